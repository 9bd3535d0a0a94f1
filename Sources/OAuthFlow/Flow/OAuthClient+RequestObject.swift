import Foundation

/// Signed request objects (RFC 9101, JAR): the authorization request's parameters in a JWT the client signs.
extension OAuthClient {
    /// How long a request object is valid: ten minutes from its signing (FAPI 2.0 Message Signing allows at most sixty).
    static let requestObjectLifetime: TimeInterval = 600

    /// The key the authorization request to `target` is signed with, or nil when it goes unsigned.
    ///
    /// A request object is made with `authorization.request_object: always`, or when discovery says
    /// `require_signed_request_object: true`; with `if_supported`, when discovery lists the key's algorithm in
    /// `request_object_signing_alg_values_supported`. The key is the client's private key (``ClientConfiguration/signingKey``),
    /// and its algorithm must be one `request_object_algs` allows (and, when discovery lists some, one of those).
    /// - Throws: ``FlowError`` `requestObject` when one is required and cannot be made.
    func requestObjectKey(for target: Provider) throws -> ClientConfiguration.SigningKey? {
        let policy = target.policy
        let required = policy.requestObject == .always || target.capabilities.requiresSignedRequestObject
        guard required || policy.requestObject == .ifSupported else { return nil }
        let why =
            policy.requestObject == .always
            ? "its descriptor says `authorization.request_object: always`" : "its discovery document requires signed request objects"
        guard let key = configuration.signingKey else {
            guard required else { return nil }
            throw FlowError(
                .requestObject,
                "provider `\(provider.id)` takes signed request objects only (\(why)), and client `\(configuration.clientID)` has no private key to sign one with"
            )
        }
        let offered = target.capabilities.requestObjectAlgorithms
        let takes = policy.requestObjectAlgorithms.contains(key.algorithm) && (offered?.contains(key.algorithm.rawValue) ?? required)
        guard takes else {
            guard required else { return nil }
            let listed = offered.map { $0.map { TerminalText.escaped(String($0.prefix(12))) }.joined(separator: ", ") }
            throw FlowError(
                .requestObject,
                "provider `\(provider.id)` takes signed request objects only (\(why)), and the client's \(key) is not one it takes (`request_object_algs`: \(JWSAlgorithm.listed(policy.requestObjectAlgorithms))\(listed.map { "; discovery lists \($0)" } ?? ""))"
            )
        }
        return key
    }

    /// What the authorization request sends when its parameters go in a request object: the client id (RFC 9101 §5
    /// repeats it outside) and `request`, the signed JWT; for an OpenID provider whose request goes through the
    /// browser, also `response_type` and `scope` (OpenID Connect Core §6.1 keeps them a valid OAuth request).
    func requestObjectParameters(
        _ request: PendingAuthorization.Request, target: Provider, key: ClientConfiguration.SigningKey, pushed: Bool
    ) async throws -> [(String, String)] {
        let object = try await signRequestObject(request.parameters, target: target, key: key)
        let clientIDName = target.policy.clientIDParameter
        var outside = [(clientIDName, configuration.clientID)]
        if !pushed, target.isOpenIDConnect {
            outside += request.parameters.filter { $0.0 == "response_type" || $0.0 == "scope" }
        }
        return outside + [("request", object.value)]
    }

    /// The parameters signed into a request object (RFC 9101 §4): each as a string claim, with `iss` the client id,
    /// `aud` the issuer, `iat` and `nbf` now, `exp` ``requestObjectLifetime`` later and a random `jti`;
    /// `typ: oauth-authz-req+jwt` and the key's `kid` in the header.
    func signRequestObject(_ parameters: [(String, String)], target: Provider, key: ClientConfiguration.SigningKey) async throws -> Secret {
        guard let issuer = target.issuer?.absoluteString else {
            throw FlowError(.requestObject, "provider `\(provider.id)` declares no issuer, which a request object's `aud` must name (RFC 9101 §4)")
        }
        var claims: [String: JSONValue] = [:]
        for (name, value) in parameters where claims[name] == nil { claims[name] = .string(value) }
        let now = clock.now().timeIntervalSince1970.rounded(.down)
        claims["iss"] = .string(configuration.clientID)
        claims["aud"] = .string(issuer)
        claims["iat"] = .number(now)
        claims["nbf"] = .number(now)
        claims["exp"] = .number(now + Self.requestObjectLifetime)
        claims["jti"] = .string(ClientAssertion.randomIdentifier())
        do {
            return Secret(try await key.sign(claims, type: "oauth-authz-req+jwt"))
        } catch {
            throw FlowError(.requestObject, "the request object could not be signed with the \(key) (\(type(of: error)))")
        }
    }
}
