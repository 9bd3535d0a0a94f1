import Foundation

extension IDTokenValidator {
    /// The event a logout token must carry in `events`.
    package static let backChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// Validates a logout token as Back-Channel Logout 1.0 §2.6 says: the signature with the provider's
    /// keys and its ID token algorithms, `iss`, `aud` containing the client id, `iat` no older than
    /// `maximumAge` (and not in the future), `exp` and `nbf` when present, `jti`, the logout event in
    /// `events`, `sub` or `sid`, no `nonce` (so an ID token cannot pass for one), and `typ`, when present,
    /// `logout+jwt`. Replays are the caller's to refuse, by ``LogoutTokenClaims/tokenID``.
    ///
    /// - Throws: ``IDTokenError`` naming the first check that failed.
    package func validateLogoutToken(_ token: Secret, maximumAge: TimeInterval) async throws -> LogoutTokenClaims {
        let jws = try Self.compactJWS(token.value)
        if let type = jws.header["typ"] {
            let name = type.stringValue?.lowercased()
            guard name == "logout+jwt" || name == "application/logout+jwt" else {
                throw IDTokenError(
                    .notALogoutToken, "the token is typed `\(TerminalText.escaped(String(String(describing: type).prefix(40))))`, not `logout+jwt`")
            }
        }
        let algorithm = try checkHeader(jws.header)
        try await verifySignature(jws, algorithm: algorithm)
        return try checkLogoutClaims(jws.claims, maximumAge: maximumAge)
    }

    private func checkLogoutClaims(_ claims: [String: JSONValue], maximumAge: TimeInterval) throws -> LogoutTokenClaims {
        let issuer = claims["iss"]?.stringValue ?? ""
        guard provider.isIDTokenIssuer(issuer, claims: claims) else {
            throw IDTokenError(
                .issuerMismatch,
                "the logout token was issued by `\(TerminalText.escaped(String(issuer.prefix(200))))`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`"
            )
        }
        let audiences = audienceClaim(claims) ?? []
        guard audiences.contains(clientID) else {
            throw IDTokenError(.audienceMismatch, "the logout token is not for this client (`\(clientID)`)")
        }
        guard let issued = claims["iat"]?.numericDate else {
            throw IDTokenError(.malformed, "the logout token has no `iat` (a number of seconds)")
        }
        let now = clock.now().timeIntervalSince1970
        guard issued - leeway <= now else {
            throw IDTokenError(.issuedInFuture, "the logout token claims to be issued in the future (\(Date(timeIntervalSince1970: issued)))")
        }
        guard now - issued <= maximumAge + leeway else {
            throw IDTokenError(
                .tooOld, "the logout token was issued at \(Date(timeIntervalSince1970: issued)), more than \(Int(maximumAge)) s ago")
        }
        var expiry: Date?
        if let exp = claims["exp"] {
            guard let seconds = exp.numericDate else { throw IDTokenError(.malformed, "the logout token's `exp` is not a number") }
            guard seconds + leeway > now else { throw IDTokenError(.expired, "the logout token expired at \(Date(timeIntervalSince1970: seconds))") }
            expiry = Date(timeIntervalSince1970: seconds)
        }
        try checkNotBefore(claims)
        guard case let .object(events)? = claims["events"], case .object? = events[Self.backChannelLogoutEvent] else {
            throw IDTokenError(.notALogoutToken, "the token's `events` holds no `\(Self.backChannelLogoutEvent)` object")
        }
        guard claims["nonce"] == nil else {
            throw IDTokenError(.notALogoutToken, "the token carries a `nonce`, which a logout token must not (an ID token is not a logout token)")
        }
        guard let tokenID = claims["jti"]?.stringValue, !tokenID.isEmpty, tokenID.utf8.count <= 256 else {
            throw IDTokenError(.notALogoutToken, "the logout token has no `jti` (a string of at most 256 bytes)")
        }
        let subject = claims["sub"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let sessionID = claims["sid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard subject != nil || sessionID != nil else {
            throw IDTokenError(.notALogoutToken, "the logout token names neither a `sub` nor a `sid`")
        }
        return LogoutTokenClaims(
            issuer: issuer, subject: subject, sessionID: sessionID, audiences: audiences, issuedAt: Date(timeIntervalSince1970: issued),
            expiresAt: expiry, tokenID: tokenID, all: claims)
    }
}
