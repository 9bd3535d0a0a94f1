import Foundation
import Logging

extension TokenManager {
    /// Revokes the session's tokens at the provider (refresh token first, RFC 7009), deletes the session, and,
    /// when `endingProviderSession` is given, builds the request that ends the provider's session too
    /// (OpenID Connect RP-Initiated Logout 1.0, with the session's ID token as `id_token_hint`).
    ///
    /// The session is deleted even when revocation fails at the provider: the caller learns why from the result. One
    /// whose revocation needs a credential the client was not given (a confidential client's secret or key) is kept
    /// instead, as a refresh without it is refused: nothing was sent, and deleting it would leave its refresh token
    /// valid at the provider with no way to revoke it. Open ``SignOut/endSession``'s URL in the user's browser; check
    /// the return with ``OAuthClient/EndSessionRequest/acceptsReturn(query:)``.
    /// - Throws: ``SessionError`` `notSignedIn` when there is no session, `missingClientCredential` when revoking needs
    ///   a credential that was not given (the session kept), and store errors.
    public func signOut(endingProviderSession options: EndSessionOptions? = nil) async throws -> SignOut {
        let current: StoredSession
        let revocation: Bool, failure: (any Error)?
        do {
            // Under the store's lock, read afresh: a refresh under way in another process finishes first, and the tokens
            // it stored are the ones revoked and removed, never written back after the removal.
            let lock = try await lockSession()
            defer { lock.release() }
            reload()
            do {
                current = try await session()
            } catch let error as SessionError where error.code == .sessionMismatch {
                // Its tokens are not this provider's to revoke, nor its ID token this provider's hint: removed here only.
                try await removeSession()
                return SignOut(revocationAvailable: false, revocationError: error, endSession: nil, endSessionError: options.map { _ in error })
            }
            (revocation, failure) = await revoke(current.tokens)
            if let failure, Self.lacksCredential(failure) {
                throw SessionError(
                    .missingClientCredential,
                    "\(key) was not signed out: revoking its tokens needs the client's credential (\(failure)); nothing was sent and the session is kept, so that its tokens can still be revoked once the credential is given"
                )
            }
            try await removeSession()
        }
        var endSession: OAuthClient.EndSessionRequest?
        var endSessionError: (any Error)?
        if let options {
            do {
                endSession = try await client.endSessionRequest(
                    idToken: current.tokens.idToken, postLogoutRedirectURI: options.postLogoutRedirectURI, logoutHint: options.logoutHint,
                    uiLocales: options.uiLocales)
            } catch {
                endSessionError = error
            }
        }
        return SignOut(
            revocationAvailable: revocation, revocationError: failure, endSession: endSession, endSessionError: endSessionError)
    }

    /// Whether `error` refused a request before sending it because the client lacks the credential it needs.
    static func lacksCredential(_ error: any Error) -> Bool {
        if let error = error as? FlowError { return error.code == .missingClientSecret }
        return (error as? SessionError)?.code == .missingClientCredential
    }

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
