import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The parameters of a signed request object (RFC 9101 §4, §6): a JWS with `typ: oauth-authz-req+jwt`, signed
    /// with the key `client` registered (``SimulatedClient/publicKeyPEM``), `iss` and `client_id` the client, `aud` the
    /// issuer, `exp` ahead, `nbf` and `iat` not; an encrypted (JWE) or unsigned one is refused.
    ///
    /// - Returns: The authorization parameters it carries (its string claims, without the JWT's own).
    /// - Throws: ``SimulationError`` naming the first check that failed.
    func requestObject(_ token: String, from client: SimulatedClient) throws -> [String: String] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw SimulationError("the request object is not a signed JWT (\(parts.count) parts; an encrypted one is not taken)")
        }
        guard let header = Self.decodeJSON(parts[0]), let claims = Self.decodeJSON(parts[1]), let signature = Base64URL.decode(String(parts[2]))
        else {
            throw SimulationError("the request object is not base64url JSON")
        }
        guard header["typ"]?.stringValue?.lowercased() == "oauth-authz-req+jwt" else {
            throw SimulationError("the request object's typ is not oauth-authz-req+jwt (RFC 9101 §4)")
        }
        let algorithm = header["alg"]?.stringValue ?? "none"
        let input = Data(parts[0].utf8) + Data(".".utf8) + Data(parts[1].utf8)
        guard let pem = client.publicKeyPEM, Self.verifies(signature, of: input, algorithm: algorithm, publicKeyPEM: pem) else {
            throw SimulationError("the request object does not verify (\(algorithm)) with the key client `\(client.id)` registered")
        }
        guard claims["iss"]?.stringValue == client.id, claims["client_id"]?.stringValue == client.id else {
            throw SimulationError("the request object's iss and client_id are not client `\(client.id)`")
        }
        let audiences: [String]
        switch claims["aud"] {
        case let .string(one)?: audiences = [one]
        case let .array(many)?: audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(issuer.absoluteString) else { throw SimulationError("the request object's aud is not the issuer") }
        let now = clock.now().timeIntervalSince1970
        guard let expiry = claims["exp"]?.numberValue, expiry > now else { throw SimulationError("the request object has expired or has no exp") }
        for name in ["nbf", "iat"] {
            if let time = claims[name]?.numberValue, time > now + settings.proofWindow {
                throw SimulationError("the request object's \(name) is in the future")
            }
        }
        guard claims["request"] == nil, claims["request_uri"] == nil else {
            throw SimulationError("a request object cannot hold request or request_uri (RFC 9101 §4)")
        }
        var parameters: [String: String] = [:]
        for (name, value) in claims where !["iss", "aud", "exp", "nbf", "iat", "jti"].contains(name) {
            if let text = value.stringValue { parameters[name] = text }
        }
        return parameters
    }

    /// The fields of an authorization response as `request`'s response mode sends them: as they are, or, for `jwt`,
    /// `query.jwt` and `form_post.jwt` (JARM §2.3), one `response` JWT holding them with `aud` the client and `exp`
    /// ``Settings/responseLifetime`` ahead.
    ///
    /// - Parameter post: Whether the answer is played as a POST (``approveWithPost(_:subject:)``).
    /// - Throws: ``SimulationError`` when the response mode needs the other way of answering.
    func answering(_ request: AuthorizationRequest, _ fields: [(String, String)], post: Bool) async throws -> [(String, String)] {
        let mode = request.parameters["response_mode"] ?? "query"
        let posts = mode == "form_post" || mode == "form_post.jwt"
        guard posts == post else {
            throw SimulationError(
                posts
                    ? "the request asks for response_mode \(mode), a POST: call approveWithPost(_:subject:)"
                    : "the request asks for response_mode \(mode), a redirect: call approve(_:subject:)")
        }
        guard ["jwt", "query.jwt", "form_post.jwt"].contains(mode) else { return fields }
        var claims: [String: JSONValue] = [:]
        for (name, value) in fields { claims[name] = .string(value) }
        let now = clock.now().timeIntervalSince1970.rounded(.down)
        claims["aud"] = .string(request.client.id)
        claims["iat"] = .number(now)
        claims["exp"] = .number(now + settings.responseLifetime)
        return [("response", try await signAuthorizationResponse(claims))]
    }

    /// Signs `claims` with the provider's current key as a JWT-secured authorization response (JARM) would be.
    ///
    /// For tests that forge what a real provider would never send: a response for another audience or issuer, an
    /// `error`, another `state`. ``approve(_:subject:)`` signs genuine ones by itself.
    /// - Returns: The compact JWS, for a callback's `response` parameter.
    public func signAuthorizationResponse(_ claims: [String: JSONValue]) async throws -> String {
        try await signWithCurrentKey(claims)
    }
}
