import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// A back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4), signed with the current key:
    /// what the provider would POST to a client's `backchannel_logout_uri` as `logout_token`.
    ///
    /// It carries `iss`, `aud`, `iat`, `exp` (two minutes on), a fresh `jti`, the logout event, `sub` and/or `sid`,
    /// no `nonce`, and `typ: logout+jwt`. Ending the session also revokes the refresh tokens of that subject
    /// (and session, when given), as a provider that signs a user out does.
    /// - Parameters:
    ///   - subject: The user signed out; nil to name the session only.
    ///   - sessionID: The provider session (`sid` of the ID token), or nil for every session of `subject`.
    ///   - clientID: The audience: the client that receives it.
    /// - Returns: The token, for a form body `logout_token=…`.
    public func logoutToken(subject: String?, sessionID: String? = nil, clientID: String = SimulatedProvider.appClientID) async throws -> String {
        guard subject != nil || sessionID != nil else { throw SimulationError("a logout token names a subject, a session or both") }
        let now = clock.now()
        var claims: [String: JSONValue] = [
            "iss": .string(issuer.absoluteString), "aud": .string(clientID), "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(now.addingTimeInterval(120).timeIntervalSince1970.rounded(.down)), "jti": .string(Base64URL.random(bytes: 16)),
            "events": .object([IDTokenValidator.backChannelLogoutEvent: .object([:])]),
        ]
        if let subject { claims["sub"] = .string(subject) }
        if let sessionID { claims["sid"] = .string(sessionID) }
        for (token, grant) in refreshTokens
        where (subject == nil || grant.subject == subject) && (sessionID == nil || grant.sessionID == sessionID) {
            refreshTokens[token]?.revoked = true
        }
        return try await signWithCurrentKey(claims, type: "logout+jwt")
    }
}
