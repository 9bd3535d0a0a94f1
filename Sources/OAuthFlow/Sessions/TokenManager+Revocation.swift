import Foundation
import Logging

extension TokenManager {
    /// For account deletion: under the store's lock, reads the session afresh, revokes its tokens (refresh token first,
    /// RFC 7009) and removes it; a session whose revocation failed is kept, for the next try. Holding the lock, a refresh
    /// under way in another process finishes first, and its tokens are the ones revoked and removed, never written back
    /// after the removal.
    ///
    /// - Returns: Whether the provider has a revocation endpoint, and the revocation's failure (the session kept).
    /// - Throws: ``SessionError`` `notSignedIn`; `sessionMismatch` once the session, whose tokens another authorization
    ///   server issued, is removed unrevoked; store errors.
    package func revokeAndRemove() async throws -> (available: Bool, failure: (any Error)?) {
        let lock = try await lockSession()
        defer { lock.release() }
        reload()
        let tokens: TokenSet
        do {
            tokens = try await session().tokens
        } catch let error as SessionError where error.code == .sessionMismatch {
            try await removeSession()
            throw error
        }
        let revocation = await revoke(tokens)
        if revocation.failure == nil { try await removeSession() }
        return revocation
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
