import Foundation

/// What a completed sign-in established, whichever way it ran (loopback, device, manual, web):
/// the stored session and what was verified while signing in.
public struct SignInResult: Sendable {
    /// The session, as stored.
    public let session: StoredSession
    /// The ID token's claims, verified during this sign-in (signature, issuer, audience, expiry, nonce,
    /// `at_hash`); nil for plain OAuth, or when no ID token was asked for.
    public let idToken: IDTokenClaims?
    /// Who signed in, mapped by the provider's profile mapping from the verified claims (no extra round
    /// trip: userinfo fields stay empty until ``OAuthClient/profile(_:idToken:userInfo:callback:)`` is asked).
    public let profile: UserProfile?

    public var tokens: TokenSet { session.tokens }

    public init(session: StoredSession, idToken: IDTokenClaims?, profile: UserProfile?) {
        self.session = session
        self.idToken = idToken
        self.profile = profile
    }

    /// Stores what a finished authorization returned, as `account`'s session with `client`'s provider.
    ///
    /// - Throws: ``TokenStoreError`` when the session cannot be stored.
    @discardableResult
    public static func store(
        _ outcome: OAuthClient.SignInOutcome, client: OAuthClient, account: String = "default",
        redirectURI: URL?, in store: any TokenStore, at now: Date = Date()
    ) async throws -> SignInResult {
        let provider = client.provider
        let session = StoredSession(
            key: SessionKey(providerID: provider.id, account: account), variables: provider.variables,
            clientID: client.configuration.clientID, redirectURI: redirectURI, tokens: outcome.tokens,
            updatedAt: now, clientAuthentication: try? client.configuration.authenticationMethod(for: provider),
            providerSession: outcome.idToken.map(ProviderSession.init), authorizationServer: provider.authorizationServer)
        try await store.save(session)
        return SignInResult(
            session: session, idToken: outcome.idToken,
            profile: outcome.idToken.map {
                UserProfile.map(provider.profile, idToken: $0.all, userInfo: nil, callback: outcome.callback, token: outcome.tokens.additionalFields)
            })
    }
}
