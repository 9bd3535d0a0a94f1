import Foundation

/// Signs a user in with the device authorization grant (RFC 8628) and stores the session: for
/// machines no browser can reach (SSH sessions, containers, TVs, kiosks).
///
/// ```swift
/// let signIn = DeviceSignIn(store: FileTokenStore())
/// let result = try await signIn.signIn(to: provider, clientID: "YOUR_CLIENT_ID") { event in
///     if case let .showCode(authorization) = event {
///         print("Open \(authorization.verificationURI) and enter \(authorization.displayUserCode)")
///     }
/// }
/// ```
public struct DeviceSignIn: Sendable {
    /// What happens during a device sign-in, for a host to show.
    public enum Event: Sendable {
        /// Show the user where to go and which code to enter.
        case showCode(DeviceAuthorization)
        /// The user has not approved yet.
        case pending
        /// The server asked to poll less often; the new interval in seconds.
        case slowDown(TimeInterval)
    }

    /// The redirect URI a device session records: the device grant has none.
    // The literal always parses; the fallback only spares a force unwrap.
    public static let noRedirectURI = URL(string: GrantType.deviceCode.rawValue) ?? URL(fileURLWithPath: "/")

    public let store: any TokenStore
    public let transport: any HTTPTransport
    public let clock: any DateClock
    public let sleeper: any Sleeper

    public init(
        store: any TokenStore = FileTokenStore(), transport: any HTTPTransport = DefaultHTTPTransport(),
        clock: any DateClock = SystemDateClock(), sleeper: any Sleeper = TaskSleeper()
    ) {
        self.store = store
        self.transport = transport
        self.clock = clock
        self.sleeper = sleeper
    }

    /// Gets a user code, waits for the user to approve it elsewhere, and stores the session.
    ///
    /// - Returns: The stored session, with the ID token's claims as verified while polling.
    ///
    /// Cancelling the task stops the polling at once; nothing is stored then.
    /// - Throws: what ``OAuthClient/startDeviceAuthorization()`` and
    ///   ``OAuthClient/pollDeviceAuthorization(_:sleeper:onPoll:)`` throw, `CancellationError`, and store errors.
    public func signIn(
        to provider: Provider, clientID: String, clientSecret: Secret? = nil,
        authMethod: ClientAuthMethod? = nil, scopes: [String]? = nil,
        requestOfflineAccess: Bool = true, account: String = "default", signingKey: ClientSigningKey? = nil,
        tlsIdentity: TLSClientIdentity? = nil, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(
                clientID: clientID, redirectURI: Self.noRedirectURI, clientSecret: clientSecret, scopes: scopes,
                requestOfflineAccess: requestOfflineAccess, authMethod: authMethod, signingKey: signingKey, tlsIdentity: tlsIdentity),
            transport: transport, clock: clock)
        let authorization = try await client.startDeviceAuthorization()
        events(.showCode(authorization))
        let outcome = try await client.pollDeviceSignIn(authorization, sleeper: sleeper) { poll in
            switch poll {
            case .pending: events(.pending)
            case let .slowDown(interval): events(.slowDown(interval))
            }
        }
        try Task.checkCancellation()
        return try await SignInResult.store(
            outcome, client: client, account: account, redirectURI: Self.noRedirectURI,
            in: store, at: clock.now())
    }
}
