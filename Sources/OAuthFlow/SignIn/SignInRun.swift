import Foundation

/// The authorization-code sign-in (RFC 6749 §4.1 with PKCE, `state`, `nonce` and every check of ``OAuthClient``), in
/// one order however the provider's page reaches the user.
///
/// ``run(_:account:in:keptCorruptSession:)`` drives a ``Presenter``; a host whose two halves run apart calls
/// ``start()``, ``OAuthClient/finishSignIn(_:pending:accepted:)`` and ``store(_:account:in:keptCorruptSession:)``.
///
/// ```swift
/// let run = try oauth.signInRun(to: "google", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
/// let started = try await run.start()   // open started.url; keep it (Codable) until the redirect comes back
/// let outcome = try await run.client.finishSignIn(.callback(redirectURL), pending: started)
/// let result = try await run.store(outcome, in: oauth.store)
/// ```
public struct SignInRun: Sendable {
    /// The client the run signs in with: the provider, the client's settings with the redirect URI, the environment.
    public let client: OAuthClient

    /// How long before it expires a pushed request (RFC 9126 §2.2) is pushed again rather than opened.
    static let renewalMargin: TimeInterval = 5

    /// Told the key of each session the run stores: `OAuth` forgets its manager of that session, so that the next call
    /// reads the new tokens.
    package var stored: (@Sendable (SessionKey) -> Void)?

    public init(client: OAuthClient) {
        self.client = client
    }

    /// Starts an authorization: the request to open, and what its response is checked against.
    ///
    /// - Throws: What ``OAuthClient/startAuthorization()`` throws, before anything opens: a client without the
    ///   credential its token request needs fails here rather than after the user consented.
    public func start() async throws -> PendingAuthorization {
        try await client.startAuthorization()
    }

    /// This run asking for `stepUp` (RFC 9470 §4, the answer to an API's `insufficient_user_authentication`):
    /// the same client and discovery cache, its authorization requests carrying `acr_values` and `max_age`, and
    /// the new ID token's `acr` and `auth_time` checked against them. The descriptor's own `authorization.acr_values`
    /// and `max_age` stay in force (RFC 9470 §4, §6.1): of its classes those the step-up names are asked, a step-up
    /// naming none of them fails to start (``FlowError`` `step_up`), and the shorter of the two ages is asked.
    public func steppedUp(_ stepUp: ProtectedResource.StepUp) -> SignInRun {
        var configuration = client.configuration
        stepUp.apply(acrValues: &configuration.acrValues, maximumAuthenticationAge: &configuration.maximumAuthenticationAge)
        var run = SignInRun(
            client: OAuthClient(provider: client.provider, configuration: configuration, environment: client.environment, discovery: client.discovery)
        )
        run.stored = stored
        return run
    }

    /// A new pushed request in place of `pending` when it has expired, or will within five seconds: opened
    /// after that, the provider would show the user an error page.
    ///
    /// - Returns: The new request, or nil when `pending` can still be opened (a request that was not pushed always can).
    public func renewed(_ pending: PendingAuthorization) async throws -> PendingAuthorization? {
        guard pending.isExpired(at: client.environment.clock.now().addingTimeInterval(Self.renewalMargin)) else { return nil }
        return try await client.startAuthorization()
    }

    /// Stores a finished sign-in as `account`'s session with the run's provider, with its redirect URI.
    ///
    /// - Parameters:
    ///   - outcome: What ``OAuthClient/finishSignIn(_:pending:accepted:)`` returned.
    ///   - account: The session's account name, for several sessions with one provider.
    ///   - store: Where the session is kept.
    ///   - keptCorruptSession: Told the path an unreadable stored session of a ``FileTokenStore`` was moved to,
    ///     instead of being overwritten.
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: ``TokenStoreError`` when the session cannot be stored.
    @discardableResult
    public func store(
        _ outcome: OAuthClient.SignInOutcome, account: String = "default", in store: any TokenStore,
        keptCorruptSession: (String) -> Void = { _ in }
    ) async throws -> SignInResult {
        if let files = store as? FileTokenStore,
            let kept = try await files.setAsideCorruptSession(SessionKey(providerID: client.provider.id, account: account))
        {
            keptCorruptSession(kept)
        }
        let result = try await SignInResult.store(
            outcome, client: client, account: account, redirectURI: client.configuration.redirectURI, in: store)
        stored?(result.session.key)
        return result
    }

    /// The whole sign-in: started, shown by `presenter` until its response is finished, and stored.
    ///
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: What ``start()``, the presenter and ``store(_:account:in:keptCorruptSession:)`` throw.
    public func run(
        _ presenter: some Presenter, account: String = "default", in store: any TokenStore,
        keptCorruptSession: (String) -> Void = { _ in }
    ) async throws -> SignInResult {
        let pending = try await start()
        let outcome = try await presenter.present(pending, of: self)
        return try await self.store(outcome, account: account, in: store, keptCorruptSession: keptCorruptSession)
    }

    /// Shows a started sign-in to the user and finishes it when the provider's response comes back: the loopback
    /// receiver and the browser, an app's authentication sheet.
    ///
    /// A presenter does only that: it opens `pending.url` (or ``SignInRun/renewed(_:)``'s, when the request expired
    /// first), waits, and hands the response to ``OAuthClient/finishSignIn(_:pending:accepted:)`` on the run's client.
    /// The run starts the request before it and stores the session after it.
    public protocol Presenter: Sendable {
        /// Shows `pending` and returns what finishing its response established.
        ///
        /// - Throws: What ``OAuthClient/finishSignIn(_:pending:accepted:)`` throws, and the presenter's own failures
        ///   (the user cancelled, nothing came back in time).
        func present(_ pending: PendingAuthorization, of run: SignInRun) async throws -> OAuthClient.SignInOutcome
    }
}
