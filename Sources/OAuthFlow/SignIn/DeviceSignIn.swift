import Foundation

/// Signs a user in with the device authorization grant (RFC 8628) and stores the session: for
/// machines no browser can reach (SSH sessions, containers, TVs, kiosks).
///
/// ```swift
/// let signIn = DeviceSignIn(store: store)
/// let result = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "YOUR_CLIENT_ID")) { event in
///     if case let .showCode(authorization) = event {
///         print("Open \(authorization.verificationURI) and enter \(authorization.displayUserCode)")
///     }
/// }
/// ```
///
/// Or through the front door, by name: `try await oauth.signInWithDeviceCode(to: "google")`.
public struct DeviceSignIn: Sendable {
    /// What happens during a device sign-in, for a host to show.
    public enum Event: Sendable {
        /// Show the user where to go and which code to enter.
        case showCode(OAuthClient.DeviceAuthorization)
        /// The user has not approved yet.
        case pending
        /// The server asked to poll less often; the new interval in seconds.
        case slowDown(TimeInterval)
    }

    public let store: any TokenStore
    /// The transport, clock and logger of the client made for each sign-in, and the wait between polls.
    public let environment: OAuthEnvironment
    /// The discovery cache of the provider signed in to, when `OAuth` keeps one for it; nil makes one per sign-in.
    package var discovery: DiscoveryClient?

    /// - Parameters:
    ///   - store: Where the session is stored.
    ///   - environment: The transport, clock, logger whose clock also waits between polls.
    public init(store: any TokenStore, environment: OAuthEnvironment = OAuthEnvironment()) {
        self.store = store
        self.environment = environment
    }

    /// Gets a user code, waits for the user to approve it elsewhere, and stores the session.
    ///
    /// - Returns: The stored session, with the ID token's claims as verified while polling.
    ///
    /// Cancelling the task stops the polling at once; nothing is stored then.
    /// - Throws: what ``OAuthClient/startDeviceAuthorization()`` and
    ///   ``OAuthClient/pollDeviceAuthorization(_:onPoll:)`` throw, `CancellationError`, and store errors.
    public func signIn(
        to provider: Provider, settings: ClientSettings, requestOfflineAccess: Bool = true, account: String = "default",
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        let client = OAuthClient(
            provider: provider,
            configuration: settings.configuration(redirectURI: nil, requestOfflineAccess: requestOfflineAccess),
            environment: environment, discovery: discovery)
        let authorization = try await client.startDeviceAuthorization()
        events(.showCode(authorization))
        let outcome = try await client.pollDeviceSignIn(authorization) { poll in
            switch poll {
            case .pending: events(.pending)
            case let .slowDown(interval): events(.slowDown(interval))
            }
        }
        try Task.checkCancellation()
        return try await SignInResult.store(
            outcome, client: client, account: account, redirectURI: nil,
            in: store, at: environment.clock.now())
    }
}
