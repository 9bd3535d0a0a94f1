import Foundation

extension IDTokenValidator {
    /// The header `typ` of an Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant).
    package static let identityAssertionGrantType = "oauth-id-jag+jwt"

    /// Checks what an identity provider vouches for in an ID-JAG it issued: the header `typ` (`oauth-id-jag+jwt`, compared
    /// without case), an algorithm the provider signs ID tokens with, no critical extension, the signature with the
    /// provider's keys, and `iss` the provider. The grant's own claims are the caller's to check.
    ///
    /// - Returns: The grant's claims.
    /// - Throws: ``IDTokenError`` naming the first check that failed.
    package func verifyIdentityAssertionGrant(_ token: Secret) async throws -> [String: JSONValue] {
        let jws = try Self.compactJWS(token.value)
        guard case let .string(type)? = jws.header["typ"], type.lowercased() == Self.identityAssertionGrantType else {
            throw IDTokenError(.malformed, "the grant's header `typ` is not \(Self.identityAssertionGrantType)")
        }
        try await verifySignature(jws, algorithm: try checkHeader(jws.header), what: "identity assertion grant")
        let issuer = jws.claims["iss"]?.stringValue ?? ""
        guard provider.isIDTokenIssuer(issuer, claims: jws.claims) else {
            throw IDTokenError(
                .issuerMismatch,
                "the grant was issued by `\(TerminalText.escaped(String(issuer.prefix(200))))`, not `\(provider.issuer?.absoluteString ?? "(no issuer declared)")`"
            )
        }
        return jws.claims
    }
}
