import Foundation

extension IDTokenValidator {
    /// The algorithms the provider's keys are prepared for: the ID token's, and a JWT-secured response's (JARM) when
    /// the provider answers so.
    var verifiedAlgorithms: [JWSAlgorithm] {
        let policy = provider.policy
        let response = policy.responseMode.isJWT ? policy.responseAlgorithms.filter { !policy.idTokenAlgorithms.contains($0) } : []
        return policy.idTokenAlgorithms + response
    }

    /// Verifies a JWT-secured authorization response (JARM §4.4) and returns its claims.
    ///
    /// The JWS must be signed with one of the provider's keys (its JWKS, as ID tokens are), in an algorithm
    /// `authorization.response_algs` allows (never `none`, never HMAC); `iss` must be the issuer, `aud` must name
    /// this client, and `exp` must be ahead (within the leeway); a present `nbf` must have passed. An encrypted
    /// response (JWE, five parts) is refused: OAuthFlow does not decrypt responses. A header or payload that repeats a
    /// member is refused (RFC 7515 §5.2).
    ///
    /// - Parameter token: The `response` parameter.
    /// - Returns: Every claim, as it came.
    /// - Throws: ``IDTokenError`` naming the check that failed.
    func validateAuthorizationResponse(_ token: String) async throws -> [String: JSONValue] {
        func refuse(_ code: IDTokenError.Code, _ why: String) -> IDTokenError {
            IDTokenError(code, "the JWT-secured authorization response \(why)")
        }
        let dots = token.utf8.filter { $0 == UInt8(ascii: ".") }.count
        if dots == 4 {
            throw refuse(
                .malformed,
                "is encrypted (a JWE): OAuthFlow does not decrypt authorization responses; register the client for signed responses only (`authorization_encrypted_response_alg` unset)"
            )
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            throw refuse(.malformed, "cannot be read: \(error.message)")
        }
        let name = jws.algorithmName ?? ""
        let allowed = provider.policy.responseAlgorithms
        guard let algorithm = JWSAlgorithm(rawValue: name), !algorithm.isHMAC, allowed.contains(algorithm) else {
            throw refuse(
                .algorithmNotAllowed,
                "is signed with `\(TerminalText.escaped(String(name.prefix(40))))`, which `authorization.response_algs` of `\(provider.id)` does not allow (allowed: \(JWSAlgorithm.listed(allowed)))"
            )
        }
        if jws.header["crit"] != nil {
            throw refuse(.unsupportedCriticalHeader, "marks header parameters as critical, and OAuthFlow understands none of them (RFC 7515 §4.1.11)")
        }
        do {
            try await verifySignature(jws, algorithm: algorithm, what: "authorization response")
        } catch let error as IDTokenError where error.code != .keysUnavailable {
            throw refuse(.badSignature, "was not signed by provider `\(provider.id)`: \(error.message)")
        }
        let claims = jws.claims
        let issuer = claims["iss"]?.stringValue ?? ""
        guard !issuer.isEmpty, provider.isIssuer(issuer) else {
            throw refuse(
                .issuerMismatch,
                "was issued by `\(TerminalText.escaped(String(issuer.prefix(200))))`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`: possible mix-up attack"
            )
        }
        let audiences = audienceClaim(claims) ?? []
        guard audiences.contains(clientID) else {
            let named = audiences.map { TerminalText.escaped(String($0.prefix(200))) }.joined(separator: ", ")
            throw refuse(.audienceMismatch, "is for `\(named)`, not this client (`\(clientID)`)")
        }
        guard let expiry = claims["exp"]?.numericDate else { throw refuse(.malformed, "has no `exp` (a number of seconds)") }
        let now = clock.now().timeIntervalSince1970
        guard expiry + leeway > now else { throw refuse(.expired, "expired at \(Date(timeIntervalSince1970: expiry))") }
        if let notBefore = claims["nbf"] {
            guard let seconds = notBefore.numericDate, seconds - leeway <= now else { throw refuse(.notYetValid, "is not valid yet (its `nbf`)") }
        }
        return claims
    }
}
