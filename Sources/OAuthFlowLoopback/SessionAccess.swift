import Foundation
import OAuthFlow

/// A usable session in one call: the stored one while it is valid, else refreshed, else a new sign-in
/// through the browser (or, where no browser can be opened and the provider declares the grant, with a
/// device code). What a credential helper or a command-line tool needs before each use.
///
/// ```swift
/// let access = SessionAccess(store: store, clients: ClientSettingsResolver(environment: ProcessInfo.processInfo.environment))
/// let session = try await access.session(for: SessionKey(providerID: "google")) { event in
///     if case let .browser(.openURL(url)) = event { print("Sign in at", url) }
/// }
/// ```
///
/// Client settings come from a `ClientSettingsResolver` (the environment and the clients file), the
/// provider from ``providers`` (the bundled descriptors and the user's directory by default). A session
/// the server signed out (`invalid_grant`) or that vanished is reported with
/// ``Event/sessionUnusable(_:)`` and replaced by a sign-in; any other failure (the network, a refusal
/// that is not `invalid_grant`) is thrown and the stored session kept.
public struct SessionAccess: Sendable {
    /// What happens, in order, for a host to show.
    public enum Event: Sendable {
        /// The stored session cannot be used any more (signed out by the server, or removed); a sign-in follows.
        case sessionUnusable(SessionError)
        /// A sign-in starts: with this provider, by this route, with these client settings (their
        /// `ClientSettings.notes` and `ClientSettings.secretSource` are for the user to see).
        case signingIn(provider: Provider, route: SignInRoute, settings: ClientSettings)
        /// A step of the sign-in through the browser.
        case browser(LoopbackSignIn.Event)
        /// A step of the sign-in with a device code.
        case device(DeviceSignIn.Event)
    }

    /// Finds a provider by id and resolves it with the session's variables.
    public typealias ProviderLookup = @Sendable (_ id: String, _ variables: [String: String]) throws -> Provider

    public let store: any TokenStore
    public let clients: ClientSettingsResolver
    public let browser: any BrowserOpener
    /// The transport, clock, logger and DPoP nonces of every client made here, and the device flow's wait.
    public let environment: OAuthEnvironment
    public let providers: ProviderLookup
    /// Read by ``SignInRoute/automatic(for:environment:)`` for the route of a sign-in.
    public var environmentVariables: [String: String] { clients.environment }

    /// - Parameters:
    ///   - store: Where sessions live.
    ///   - clients: Resolves client settings; its environment also decides whether a browser can open.
    ///   - browser: Opens the authorization URL; the system's browser (found in `clients.environment`) by default.
    ///   - environment: The transport, clock, logger, DPoP nonces and the device flow's wait.
    ///   - providers: Finds a provider by id; by default the bundled descriptors and the user's
    ///     directory (`~/.config/oauthflow/providers`), reading only the files named after the id.
    public init(
        store: any TokenStore, clients: ClientSettingsResolver, browser: (any BrowserOpener)? = nil,
        environment: OAuthEnvironment = OAuthEnvironment(), providers: ProviderLookup? = nil
    ) {
        self.store = store
        self.clients = clients
        self.browser = browser ?? SystemBrowser(environment: clients.environment)
        self.environment = environment
        let variables = clients.environment
        self.providers =
            providers ?? { id, values in
                try ProviderRegistry.descriptor(named: id, includeUserDirectory: true, environment: variables).resolve(values)
            }
    }

    /// A session whose access token is valid: the stored one, refreshed when it is about to expire, or a new
    /// sign-in when there is none or the server signed it out.
    ///
    /// - Parameters:
    ///   - key: The session.
    ///   - variables: Provider variables; nil uses the stored session's, and the clients file's for a sign-in.
    ///   - events: Receives what happens, in order; nothing when the stored session is valid.
    /// - Returns: The session, as stored.
    /// - Throws: `ClientSettingsError` (no client id configured, a secret variable unset), `ProviderError`,
    ///   `SessionError` (other than a signed-out session), and what ``signIn(to:settings:account:route:port:timeout:requestOfflineAccess:events:)`` throws.
    public func session(
        for key: SessionKey, variables: [String: String]? = nil,
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> StoredSession {
        if let valid = try await TokenManager.storedSession(key: key, in: store) {
            return valid
        }
        if let stored = try await store.load(key) {
            let manager = try self.manager(for: stored, variables: variables)
            do {
                _ = try await manager.validAccessToken()
                return try await manager.session()
            } catch let error as SessionError where error.code == .signedOut || error.code == .notSignedIn {
                events(.sessionUnusable(error))
            }
        }
        let settings = try clients.settings(for: key.providerID, overrides: .init(variables: variables ?? [:]))
        let provider = try providers(key.providerID, settings.variables)
        return try await signIn(to: provider, settings: settings, account: key.account, events: events).session
    }

    /// Like ``session(for:variables:events:)``, for a tool that sends the access token as a Bearer token
    /// itself (git, kubectl): a provider whose descriptor says `security.dpop: required` is refused before any
    /// sign-in, and a DPoP-bound session after it, since such a tool cannot add the proof the token needs.
    ///
    /// - Parameters:
    ///   - key: The session.
    ///   - variables: Provider variables; nil uses the stored session's, and the clients file's for a sign-in.
    ///   - tool: The tool's name, for the message (`git`).
    ///   - events: Receives what happens, in order; nothing when the stored session is valid.
    /// - Throws: `FlowError` `dpop` as above, `certificateBinding` for a session bound to the client certificate (RFC 8705),
    ///   which the tool does not present either, and what ``session(for:variables:events:)`` throws.
    public func bearerSession(
        for key: SessionKey, variables: [String: String]? = nil, tool: String, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> StoredSession {
        let refusal =
            "its tokens are DPoP-bound (RFC 9449): they work only with a proof signed by the session's key, which \(tool) cannot send. \(tool) needs a provider that issues Bearer tokens (a descriptor with `security.dpop: never`, where the server allows it); for requests to APIs use `oauthflow call`"
        let stored = try await store.load(key)
        if let provider = try? providers(key.providerID, variables ?? stored?.variables ?? [:]), provider.policy.dpop.use == .required {
            throw FlowError.dpopRefused("provider `\(key.providerID)` requires DPoP (`security.dpop: required`): \(refusal)")
        }
        let session = try await session(for: key, variables: variables, events: events)
        guard !session.tokens.isDPoPBound else { throw FlowError.dpopRefused("the session \(key) cannot be handed to \(tool): \(refusal)") }
        guard !session.tokens.isCertificateBound else {
            throw FlowError.certificateBindingRefused(
                "the session \(key) cannot be handed to \(tool): its tokens are bound to the client certificate (RFC 8705), which \(tool) does not present; for requests to APIs use `oauthflow call`"
            )
        }
        return session
    }

    /// Refreshes a stored session now (for a host that needs a fresher token than the access token's
    /// expiry asks for, such as an ID token about to expire), under the session's lock, joining a
    /// refresh already running.
    ///
    /// - Throws: `SessionError`, `ClientSettingsError`, `ProviderError` and the refresh's errors.
    public func refreshed(_ session: StoredSession, variables: [String: String]? = nil) async throws -> StoredSession {
        try await manager(for: session, variables: variables).refresh()
    }

    /// Signs in and stores the session, by `route`: through the browser (``LoopbackSignIn``) or with a
    /// device code (`DeviceSignIn`).
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - settings: The client, from ``clients`` or the host.
    ///   - account: The session's account name.
    ///   - route: Nil chooses with ``SignInRoute/automatic(for:environment:)``.
    ///   - port: A fixed loopback port, for the browser route.
    ///   - timeout: How long the browser route waits for the browser to come back.
    ///   - requestOfflineAccess: Whether to ask for a refresh token.
    ///   - events: Receives ``Event/signingIn(provider:route:settings:)``, then the sign-in's own events.
    /// - Throws: What ``LoopbackSignIn/signIn(to:settings:requestOfflineAccess:account:port:timeout:events:)`` or
    ///   `DeviceSignIn.signIn(to:settings:requestOfflineAccess:account:events:)` throw.
    public func signIn(
        to provider: Provider, settings: ClientSettings, account: String = "default", route: SignInRoute? = nil,
        port: Int? = nil, timeout: Duration = .seconds(300), requestOfflineAccess: Bool = true,
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        try await Self.signIn(
            to: provider, settings: settings, account: account, route: route ?? .automatic(for: provider, environment: environmentVariables),
            port: port, timeout: timeout, requestOfflineAccess: requestOfflineAccess, store: store, browser: browser,
            environment: environment, events: events)
    }

    /// A sign-in by `route`, storing the session in `store`: what ``signIn(to:settings:account:route:port:timeout:requestOfflineAccess:events:)``
    /// and the front door's `signIn(to:)` run.
    static func signIn(
        to provider: Provider, settings: ClientSettings, account: String, route: SignInRoute, port: Int?, timeout: Duration,
        requestOfflineAccess: Bool, store: any TokenStore, browser: any BrowserOpener, environment: OAuthEnvironment,
        events: @escaping @Sendable (Event) -> Void
    ) async throws -> SignInResult {
        events(.signingIn(provider: provider, route: route, settings: settings))
        switch route {
        case .deviceCode:
            return try await DeviceSignIn(store: store, environment: environment).signIn(
                to: provider, settings: settings, requestOfflineAccess: requestOfflineAccess, account: account
            ) { events(.device($0)) }
        case .browser:
            return try await LoopbackSignIn(store: store, browser: browser, environment: environment).signIn(
                to: provider, settings: settings, requestOfflineAccess: requestOfflineAccess, account: account, port: port, timeout: timeout
            ) { events(.browser($0)) }
        }
    }

    /// The token manager of a stored session, its client resolved as `ClientSettingsResolver` resolves it.
    private func manager(for session: StoredSession, variables: [String: String]?) throws -> TokenManager {
        let provider = try providers(session.key.providerID, variables ?? session.variables)
        let client = try clients.client(for: session, provider: provider, environment: environment)
        return TokenManager(client: client, store: store, key: session.key)
    }
}
