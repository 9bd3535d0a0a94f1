import Foundation
import Logging

extension TokenManager {
    /// Revokes the session's tokens at the provider (refresh token first, RFC 7009) and keeps the session: what an
    /// account's deletion does first, removing the session only once its tokens are revoked.
    ///
    /// - Returns: Whether the provider has a revocation endpoint, and why revoking failed when it did.
    /// - Throws: ``SessionError`` (`notSignedIn`, `sessionMismatch`: tokens that are not this provider's to revoke), store errors.
    package func revokeKeepingSession() async throws -> (available: Bool, failure: (any Error)?) {
        await revoke(try await session().tokens)
    }

    /// Revokes one of the session's tokens at the provider (RFC 7009), with the session's DPoP key or certificate
    /// binding, and keeps the session.
    ///
    /// - Returns: False when the session holds no token of that kind (no refresh token): nothing was sent.
    /// - Throws: ``SessionError`` (`notSignedIn`, `sessionMismatch`), and what
    ///   ``OAuthClient/revoke(_:kind:proofKey:certificateBound:)`` throws.
    @discardableResult
    public func revoke(_ kind: OAuthClient.TokenKind) async throws -> Bool {
        let tokens = try await session().tokens
        guard let token = kind == .refreshToken ? tokens.refreshToken : tokens.accessToken else { return false }
        try await client.revoke(token, kind: kind, proofKey: tokens.proofKey, certificateBound: tokens.isCertificateBound)
        return true
    }

    /// Revokes `tokens`, each kind the provider revokes (`revocation.tokens`; revoking a refresh token ends its access
    /// tokens too); discovery (and RFC 8414 metadata) only when the descriptor names no revocation endpoint.
    func revoke(_ tokens: TokenSet) async -> (available: Bool, failure: (any Error)?) {
        guard (try? await client.revocationEndpoint()) != nil else { return (false, nil) }
        do {
            let key = tokens.proofKey
            let bound = tokens.isCertificateBound
            if let refresh = tokens.refreshToken, client.revokes(.refreshToken) {
                try await client.revoke(refresh, kind: .refreshToken, proofKey: key, certificateBound: bound)
            }
            if client.revokes(.accessToken) {
                try await client.revoke(tokens.accessToken, kind: .accessToken, proofKey: key, certificateBound: bound)
            }
            return (true, nil)
        } catch {
            return (true, error)
        }
    }
}
