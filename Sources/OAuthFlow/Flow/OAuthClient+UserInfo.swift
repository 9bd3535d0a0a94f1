import Foundation
import Logging

/// Who signed in: the userinfo endpoint (OpenID Connect Core §5.3), a stored ID token checked again, the mapped profile, and the errors of protected-resource answers (RFC 6750 §3).
extension OAuthClient {
    /// Calls the userinfo endpoint with the access token as a Bearer token (with a DPoP proof for DPoP-bound tokens;
    /// over mutual TLS with the configuration's certificate, at the `mtls_endpoint_aliases` entry, for certificate-bound ones).
    ///
    /// - Returns: The claims, as a JSON object.
    /// - Throws: ``AuthorizationServerError`` with the HTTP status for 4xx answers
    ///   (401 `invalid_token` after revocation), ``FlowError`` (`certificateBinding` for certificate-bound tokens and a
    ///   configuration without their certificate), or ``TransportError``.
    public func userInfo(_ tokens: TokenSet) async throws -> [String: JSONValue] {
        let endpoint = try await endpoint(\.userinfo, "userinfo")
        let response = try await profileRequest(endpoint, tokens, method: provider.policy.userinfo.method == .post ? .post : .get, label: "userinfo")
        let claims: [String: JSONValue]
        do {
            claims = try ServerJSON.object(response.body)
        } catch let disagreement where disagreement.isDisagreement {
            throw FlowError(.invalidUserInfo, "the userinfo endpoint's answer (HTTP \(response.status)) \(disagreement); it is not believed")
        } catch {
            throw FlowError(.invalidUserInfo, "the userinfo endpoint did not answer with a JSON object (HTTP \(response.status))")
        }
        // OpenID Connect Core §5.3.2: userinfo must be about the ID token's subject.
        if let idToken = tokens.idToken, let (_, idClaims) = try? IDTokenValidator.decodeUnverified(idToken.value),
            let subject = idClaims["sub"]?.stringValue, claims["sub"]?.stringValue != subject
        {
            throw IDTokenError(
                .subjectMismatch,
                "userinfo is about subject `\(claims["sub"]?.stringValue ?? "(none)")`, not the ID token's `\(subject)`")
        }
        return claims
    }

    /// The claims of an ID token kept from an earlier sign-in, verified again (signature, issuer,
    /// audience; not its expiry) before anything shows or maps them.
    ///
    /// - Throws: ``IDTokenError`` naming the check that failed.
    public func storedIDTokenClaims(_ idToken: Secret) async throws -> IDTokenClaims {
        try await idTokenValidator().validateStored(idToken)
    }

    /// The user's profile in the one shape every provider maps to (the descriptor's `profile`), reading userinfo and
    /// making the extra call when the mapping uses them.
    ///
    /// - Parameters:
    ///   - tokens: The session's tokens, for the userinfo and extra calls.
    ///   - idToken: The ID token's claims, verified (``SignInOutcome/idToken``).
    ///   - userInfo: Userinfo already read, to save the round trip.
    ///   - callback: The callback's other parameters (``SignInOutcome/callback``, Apple's `user`), for the mapping's `callback.` sources.
    public func profile(
        _ tokens: TokenSet, idToken: [String: JSONValue]?, userInfo: [String: JSONValue]? = nil, callback: [String: JSONValue]? = nil
    ) async throws -> UserProfile {
        let mapping = provider.profile
        let roots = mapping.roots
        var info = userInfo
        if info == nil, roots.contains("userinfo"), provider.endpoints.userinfo != nil || provider.usesDiscovery {
            do {
                info = try await self.userInfo(tokens)
            } catch let error as IDTokenError {
                throw error
            } catch {
                if idToken == nil { throw error }
                logger.debug("userinfo unavailable for the profile", metadata: ["provider": "\(provider.id)"])
            }
        }
        var extra: JSONValue?
        if roots.contains("extra"), let url = mapping.extraCall {
            do {
                extra = UserProfile.pick(try await profileCall(url, tokens), where: mapping.extraCallPickWhere, in: mapping.extraCallList)
            } catch {
                if idToken == nil && info == nil { throw error }
                logger.debug("the profile's extra call failed", metadata: ["provider": "\(provider.id)"])
            }
        }
        return UserProfile.map(mapping, idToken: idToken, userInfo: info, extra: extra, callback: callback, token: tokens.additionalFields)
    }

    /// The descriptor's extra profile call: a GET with the access token, answered with JSON.
    private func profileCall(_ url: URL, _ tokens: TokenSet) async throws -> JSONValue {
        let response = try await profileRequest(url, tokens, method: .get, label: "the profile's extra call")
        guard let answer = try? ServerJSON.value(response.body) else {
            throw FlowError(
                .invalidUserInfo,
                "the profile call to \(url.host ?? "the provider") did not answer with JSON one reader reads one way (HTTP \(response.status))")
        }
        return answer
    }

    /// A request for the user's profile (userinfo, the extra call) as the descriptor's `userinfo` section
    /// shapes it: the access token in the header (after its scheme), the query or a form body, and the
    /// section's headers and query parameters (GitHub needs its `User-Agent` on both calls); non-2xx throws.
    /// Certificate-bound tokens go over mutual TLS with the client's certificate (RFC 8705 §3), userinfo to its
    /// `mtls_endpoint_aliases` entry when the metadata names one.
    private func profileRequest(_ url: URL, _ tokens: TokenSet, method: TransportRequest.Method, label: String) async throws -> TransportResponse {
        let (identity, url) = try await certificateRoute(for: tokens, to: url)
        let shape = provider.policy.userinfo
        let clientID = configuration.clientID
        let answer = tokens.additionalFields
        func filled(_ template: String) throws -> String {
            do {
                return try RequestTemplate(parsing: template).rendered(clientID: clientID, token: answer)
            } catch {
                throw FlowError(.invalidUserInfo, "provider `\(provider.id)`: \(error.reason)")
            }
        }
        var headers: [String: String] = [:]
        for (name, template) in shape.headers { headers[name] = try filled(template) }
        if headers["Accept"] == nil { headers["Accept"] = "application/json" }
        var query: [(String, String)] = []
        for (name, template) in shape.query.sorted(by: { $0.key < $1.key }) { query.append((name, try filled(template))) }
        let token = tokens.accessToken.value
        let placement = shape.placement
        if placement != .header, tokens.proofKey != nil {
            throw FlowError(
                .dpop,
                "provider `\(provider.id)` takes the access token in the \(placement.rawValue), but this session's token is DPoP-bound, which only the header carries"
            )
        }
        var body: Data?
        if placement == .query { query.append((shape.tokenParameter, token)) }
        if method == .post {
            var form: [(String, String)] = []
            for (name, template) in shape.form.sorted(by: { $0.key < $1.key }) { form.append((name, try filled(template))) }
            if placement == .body { form.append((shape.tokenParameter, token)) }
            if !form.isEmpty {
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                body = Data(FormEncoding.encode(form).utf8)
            } else if let fixed = shape.body {
                body = Data(fixed.utf8)
                if let type = shape.contentType { headers["Content-Type"] = type }
            }
        }
        var target = url
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.percentEncodedQuery = [components.percentEncodedQuery, FormEncoding.encode(query)].compactMap { $0 }.joined(separator: "&")
            target = components.url ?? url
        }
        let request = TransportRequest(method: method, url: target, headers: headers, body: body, clientIdentity: identity)
        let environment = self.environment.instrumented(.userinfo, provider: provider.id)
        let response: TransportResponse
        if placement == .header, tokens.proofKey == nil, shape.scheme != "Bearer" {
            try FlowError.requireSecure(target)
            var authorized = request
            authorized.headers["Authorization"] = shape.scheme.isEmpty ? token : "\(shape.scheme) \(token)"
            response = try await environment.transport.send(authorized)
        } else if placement == .header {
            response = try await tokens.send(request, environment: environment, clientIdentity: identity, provider: provider.id)
        } else {
            try FlowError.requireSecure(target)
            response = try await environment.transport.send(request)
        }
        logger.trace("\(label) answered", metadata: ["provider": "\(provider.id)", "status": "\(response.status)"])
        guard (200..<300).contains(response.status) else {
            // The access token was sent: an error answer that echoes it must not carry it into the error.
            throw Self.resourceError(SentSecrets(values: [token]).scrub(response))
        }
        return response
    }

    /// The error for a protected-resource answer that is not 2xx (RFC 6750 §3).
    ///
    /// A redirect is a ``FlowError`` `unexpectedStatus` saying it was not followed (the request
    /// carries the access token), naming where it pointed.
    public static func resourceError(_ response: TransportResponse) -> any Error {
        if (300..<400).contains(response.status) {
            let target = response.header("location").map { " to \(TerminalText.escaped(String($0.prefix(200))))" } ?? ""
            return FlowError(
                .unexpectedStatus,
                "the server answered HTTP \(response.status), a redirect\(target); OAuthFlow does not follow redirects with an access token")
        }
        if let code = response.challenges.lazy.compactMap(\.error).first {
            return AuthorizationServerError(error: code, httpStatus: response.status)
        }
        if let fields = try? TokenResponseParser.fields(of: response, format: .auto),
            let error = TokenResponseParser.serverError(in: fields, status: response.status)
        {
            return error
        }
        return AuthorizationServerError(error: response.status == 401 ? "invalid_token" : "http_\(response.status)", httpStatus: response.status)
    }
}
