import Foundation

/// What a completed sign-in established, whichever way it ran (loopback, device, manual, web):
/// the stored session and what was verified while signing in.
public struct SignInResult: Sendable {
    /// The session, as stored.
    public let session: StoredSession
    /// The ID token's claims, verified during this sign-in (signature, issuer, audience, expiry, nonce,
    /// `at_hash`); nil for plain OAuth, or when no ID token was asked for.
    public let idToken: IDTokenClaims?
    /// Who signed in, mapped by the provider's profile mapping (the descriptor's `profile`) from the verified
    /// ID token's claims and, when the mapping names userinfo (its default sources do), from userinfo read once
    /// after the exchange: a provider may put `name` and `email` in userinfo alone (OpenID Connect Core §5.4).
    /// Userinfo that cannot be read, or is about another subject (§5.3.2), leaves its fields to the ID token. Nil
    /// for plain OAuth, or when no ID token was asked for.
    public let profile: UserProfile?

    public var tokens: TokenSet { session.tokens }

    public init(session: StoredSession, idToken: IDTokenClaims?, profile: UserProfile?) {
        self.session = session
        self.idToken = idToken
        self.profile = profile
    }

    /// Stores what a finished authorization returned, as `account`'s session with `client`'s provider.
    ///
    /// - Parameters:
    ///   - outcome: What the finished authorization returned.
    ///   - client: The client that finished it; its provider names the session, its clock times it.
    ///   - account: The account, for several sessions with one provider.
    ///   - redirectURI: The redirect URI signed in with; nil for a sign-in no browser came back from.
    ///   - store: Where the session is kept.
    ///   - now: When it was stored; nil takes the client's clock (``OAuthEnvironment/clock``), as every other time of a
    ///     sign-in does.
    /// - Throws: ``TokenStoreError`` when the session cannot be stored.
    @discardableResult
    package static func store(
        _ outcome: OAuthClient.SignInOutcome, client: OAuthClient, account: String = "default",
        redirectURI: URL?, in store: any TokenStore, at now: Date? = nil
    ) async throws -> SignInResult {
        let now = now ?? client.environment.clock.now()
        let provider = client.provider
        let session = StoredSession(
            key: SessionKey(providerID: provider.id, account: account), issuedBy: provider,
            clientID: client.configuration.clientID, redirectURI: redirectURI, tokens: outcome.tokens,
            updatedAt: now, clientAuthentication: try? client.configuration.authenticationMethod(for: provider),
            providerSession: outcome.idToken.map(ProviderSession.init), offlineAccessRequested: client.configuration.requestOfflineAccess)
        try await store.save(session)
        return SignInResult(session: session, idToken: outcome.idToken, profile: await profile(of: outcome, client: client))
    }

    /// The profile of a finished OpenID Connect sign-in: the ID token's claims, and userinfo when the mapping names it.
    private static func profile(of outcome: OAuthClient.SignInOutcome, client: OAuthClient) async -> UserProfile? {
        guard let idToken = outcome.idToken else { return nil }
        let fromIDToken = UserProfile.map(
            client.provider.profile, idToken: idToken.all, userInfo: nil, callback: outcome.callback, token: outcome.tokens.additionalFields)
        // Userinfo about another subject (`IDTokenError`) must not be used (OpenID Connect Core §5.3.2); any other failure
        // of userinfo or the extra call only leaves their fields empty.
        return (try? await client.profile(outcome.tokens, idToken: idToken.all, callback: outcome.callback)) ?? fromIDToken
    }
}
