import Foundation

/// The front door: one configuration, written once, and from it everything by provider name.
///
/// ```swift
/// let oauth = OAuth(OAuth.Configuration(
///     providerDirectories: [URL(fileURLWithPath: "/etc/myapp/providers")],
///     clients: ["auth0": ClientSettings(clientID: "abc", variables: ["domain": "example.us.auth0.com"])],
///     store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/sessions"))))
///
/// let token = try await oauth.accessToken(for: "auth0")                 // a signed-in user's, refreshed when due
/// let service = try await oauth.serviceTokens(for: "auth0").accessToken()   // the service's own
/// ```
public final class OAuth: Sendable {
    /// What a host writes once.
    public struct Configuration: Sendable {
        /// Directories of descriptors of the host's own, read after the bundled ones: a file named after a
        /// bundled provider replaces it.
        public var providerDirectories: [URL]
        /// Descriptors of the host's own already in memory (``ProviderDescriptor/init(yaml:path:)`` reads one from YAML
        /// text): each replaces any provider with its id that a directory or the bundle offers.
        public var descriptors: [ProviderDescriptor] = []
        /// Whether the descriptors bundled with the library are offered (default true).
        public var includeBundledProviders: Bool
        /// Whether the user's `$XDG_CONFIG_HOME/oauthflow/providers` is read, found with ``environmentVariables``
        /// (default false: a file there can neither break nor replace the host's providers).
        public var includeUserProviders: Bool
        /// Each provider's client, by provider name: its id, secret or key, scopes and descriptor variables.
        public var clients: [String: ClientSettings]
        /// The service's own client at a provider, by provider name, when it is not the one users sign in with
        /// (a public app signs users in; a confidential client gets service tokens and introspects): used by
        /// ``OAuth/serviceTokens(for:)`` and ``OAuth/protectedResource(trusting:settings:)``, which otherwise take
        /// ``clients``.
        public var serviceClients: [String: ClientSettings]
        /// Where the settings of a provider missing from ``clients`` come from, when the host asks for it:
        /// `ClientSettingsResolver(environment:)` reads the `OAUTHFLOW_<PROVIDER>_*` variables and the clients file,
        /// as the CLI does. Nil (the default) reads nothing.
        public var clientSettings: ClientSettingsResolver?
        /// The security profile each provider is held to, by provider name, whatever its descriptor says (`security.profile`):
        /// resolving it refuses what contradicts the profile (``ProviderError`` `security_profile`). A name no provider
        /// has holds nothing: name each provider as ``clients`` does.
        public var securityProfiles: [String: ProviderDescriptor.SecurityProfile]
        /// The process's environment variables, as the host hands them in: where the user's provider directory is
        /// (`XDG_CONFIG_HOME`, `HOME`; only with ``includeUserProviders``) and whether a browser can open here
        /// (`BROWSER`, `DISPLAY`, `SSH_CONNECTION`). Empty by default: the library never reads the process environment itself.
        public var environmentVariables: [String: String]
        /// Where sessions and service tokens are kept.
        public var store: any TokenStore
        /// The transport, clock, logger and DPoP nonces every object made from this configuration shares.
        public var environment: OAuthEnvironment

        /// - Parameters:
        ///   - providerDirectories: Directories of the host's own descriptors.
        ///   - includeBundledProviders: Whether the bundled descriptors are offered.
        ///   - includeUserProviders: Whether the user's `$XDG_CONFIG_HOME/oauthflow/providers` is read.
        ///   - clients: Each provider's client, by provider name.
        ///   - serviceClients: The service's own client at a provider, when it is not the one in `clients`.
        ///   - clientSettings: Where the settings of a provider missing from `clients` come from; nil reads nothing.
        ///   - securityProfiles: The security profile each provider is held to, by provider name.
        ///   - environmentVariables: The process's variables, when the host hands them in.
        ///   - store: Where sessions are kept; in memory by default.
        ///   - environment: The transport, clock, logger and DPoP nonces.
        public init(
            providerDirectories: [URL] = [], includeBundledProviders: Bool = true, includeUserProviders: Bool = false,
            clients: [String: ClientSettings] = [:], serviceClients: [String: ClientSettings] = [:],
            clientSettings: ClientSettingsResolver? = nil, securityProfiles: [String: ProviderDescriptor.SecurityProfile] = [:],
            environmentVariables: [String: String] = [:], store: any TokenStore = InMemoryTokenStore(),
            environment: OAuthEnvironment = OAuthEnvironment()
        ) {
            self.providerDirectories = providerDirectories
            self.includeBundledProviders = includeBundledProviders
            self.includeUserProviders = includeUserProviders
            self.clients = clients
            self.serviceClients = serviceClients
            self.clientSettings = clientSettings
            self.securityProfiles = securityProfiles
            self.environmentVariables = environmentVariables
            self.store = store
            self.environment = environment
        }

        /// What the `oauthflow` command uses, for a host that shares its sessions and settings: the user's
        /// provider directory, client settings from `environment` and the clients file, and the sessions in
        /// `$XDG_STATE_HOME/oauthflow`.
        ///
        /// - Parameters:
        ///   - environment: The variables to read: pass `ProcessInfo.processInfo.environment` to read the process's.
        ///   - transport: Sends every request (the platform's transport by default).
        public static func commandLine(environment: [String: String], transport: any HTTPTransport = DefaultHTTPTransport()) -> Configuration {
            var configuration = Configuration(
                store: FileTokenStore(directory: FileTokenStore.standardDirectory(environment: environment)),
                environment: OAuthEnvironment(transport: transport))
            configuration.includeUserProviders = true
            configuration.environmentVariables = environment
            configuration.clientSettings = ClientSettingsResolver(environment: environment)
            return configuration
        }
    }

    public let configuration: Configuration
    private let managers: Locked<RecentlyUsed<SessionKey, TokenManager>>
    /// Every manager handed out, weakly, to be told when a sign-in replaces its session.
    private let held = Locked(HeldManagers())
    private let services = Locked<[String: ServiceTokens]>([:])
    /// Each descriptor read, by provider name: its files are read and parsed once.
    private let descriptors = Locked<[String: ProviderDescriptor]>([:])
    /// Each provider resolved, by name and variables: the most recently used, as a host resolving with each request's
    /// own variables (a tenant) would otherwise keep one per value.
    private let resolved = Locked(RecentlyUsed<ResolvedKey, Provider>(capacity: 256))
    /// One discovery cache per provider, shared by every client made here for it: the most recently used ones, as the
    /// providers an MCP authorization drafts from servers' metadata (one per issuer a server names) have no end.
    private let discoveries = Locked(RecentlyUsed<String, DiscoveryClient>(capacity: 256))

    private struct ResolvedKey: Hashable {
        let name: String
        let variables: [String: String]
    }

    /// How many sessions' token managers are kept: a web host asking for the session of each of a million users
    /// keeps the most recently used ones. A manager dropped is made again from the store when next asked for, and a
    /// save it was retrying goes on without it.
    static let managerCapacity = 4096

    /// - Parameter configuration: Where providers, clients and sessions come from, and the environment.
    public convenience init(_ configuration: Configuration) {
        self.init(configuration, managerCapacity: Self.managerCapacity)
    }

    init(_ configuration: Configuration, managerCapacity: Int) {
        self.configuration = configuration
        managers = Locked(RecentlyUsed(capacity: managerCapacity))
    }

    /// How many token managers are kept now.
    var keptManagers: Int { managers.withLock { $0.count } }

    /// The environment every object made here carries.
    public var environment: OAuthEnvironment { configuration.environment }
    /// Where sessions are kept.
    public var store: any TokenStore { configuration.store }

    // MARK: - Providers and clients

    /// A provider's descriptor, by name, reading only the files named after it, once: later calls for the name get
    /// the descriptor read then. It is held to the profile ``Configuration/securityProfiles`` names for it, if any.
    ///
    /// - Throws: ``ProviderError`` `unknown_provider` (with the nearest name), or the descriptor's positioned problems.
    public func descriptor(_ name: String) throws -> ProviderDescriptor {
        if let known = descriptors.withLock({ $0[name] }) { return known }
        var read: ProviderDescriptor
        if let given = configuration.descriptors.last(where: { $0.id == name }) {
            read = given
            if let profile = configuration.securityProfiles[name] { read.securityProfile = profile }
            descriptors.withLock { $0[name] = read }
            return read
        }
        read = try ProviderRegistry.descriptor(
            named: name, directories: configuration.providerDirectories, includeBundled: configuration.includeBundledProviders,
            includeUserDirectory: configuration.includeUserProviders, environment: configuration.environmentVariables,
            logger: environment.logger)
        if let profile = configuration.securityProfiles[name] { read.securityProfile = profile }
        descriptors.withLock { $0[name] = read }
        return read
    }

    /// The descriptor named `name`, resolved with exactly `variables` (a stored session's, a tenant's), once per name
    /// and variables; ``provider(_:variables:)`` adds the client's.
    ///
    /// - Throws: ``ProviderError`` (unknown provider, invalid descriptor, a variable missing).
    public func resolve(_ name: String, variables: [String: String]) throws -> Provider {
        let key = ResolvedKey(name: name, variables: variables)
        if let known = resolved.withLock({ $0.value(for: key) }) { return known }
        let provider = try descriptor(name).resolve(variables)
        resolved.withLock { $0.insert(provider, for: key) }
        return provider
    }

    /// A client of `provider` (a provider this `OAuth` resolved) that shares the provider's discovery cache with every
    /// other client made here: the discovery document is fetched once, however many sessions and sign-ins use it.
    package func client(of provider: Provider, configuration client: ClientConfiguration) -> OAuthClient {
        OAuthClient(provider: provider, configuration: client, environment: environment, discovery: discovery(for: provider.id))
    }

    /// A front door over `store` and `environment` alone, with no descriptor or client of its own: what a sign-in a host
    /// makes from a provider it resolved itself (`LoopbackSignIn`, `AppSignIn`, `WebSignIn`, MCP) makes its clients
    /// with, so that they too share each provider's discovery cache.
    package static func over(store: any TokenStore, environment: OAuthEnvironment) -> OAuth {
        OAuth(Configuration(includeBundledProviders: false, store: store, environment: environment))
    }

    /// The discovery cache this `OAuth` keeps for the provider `id`.
    package func discovery(for id: String) -> DiscoveryClient {
        discoveries.withLock { caches in
            if let cache = caches.value(for: id) { return cache }
            let made = OAuthClient.discoveryClient(for: id, environment: environment)
            caches.insert(made, for: id)
            return made
        }
    }

    /// How many providers' discovery caches are kept (for the tests).
    var discoveryCacheCount: Int { discoveries.withLock { $0.count } }

    /// Every provider this configuration offers (the bundled ones, the host's directories and its descriptors in memory),
    /// loaded now.
    ///
    /// - Throws: ``ProviderError`` when a directory cannot be listed; an unreadable file is in ``ProviderRegistry/skipped``.
    public func registry() throws -> ProviderRegistry {
        try ProviderRegistry.load(
            directories: configuration.providerDirectories, includeBundled: configuration.includeBundledProviders,
            includeUserDirectory: configuration.includeUserProviders, environment: configuration.environmentVariables,
            logger: environment.logger
        ).replacing(with: configuration.descriptors)
    }

    /// The client settings for a provider: ``Configuration/clients``, else ``Configuration/clientSettings``.
    ///
    /// - Throws: ``ClientSettingsError`` `missing_client_id` when neither names a client for it.
    public func clientSettings(for name: String) throws -> ClientSettings {
        if let settings = configuration.clients[name] { return settings }
        if let resolver = configuration.clientSettings { return try resolver.settings(for: name) }
        throw ClientSettingsError(
            .missingClientID, "no client for \(name): add one to the configuration's `clients` (\"\(name)\": ClientSettings(clientID: ...))",
            provider: name)
    }

    /// The service's own client at a provider: ``Configuration/serviceClients``, else ``clientSettings(for:)``.
    ///
    /// - Throws: ``ClientSettingsError`` `missing_client_id` when none names a client for it.
    public func serviceClientSettings(for name: String) throws -> ClientSettings {
        if let settings = configuration.serviceClients[name] { return settings }
        return try clientSettings(for: name)
    }

    /// A provider by name, resolved with its client's variables (``ClientSettings/variables``, read even while the
    /// client's secret is missing), then `variables`.
    ///
    /// Discovery is not run here: every client made from the provider runs it once, when first needed.
    /// - Throws: ``ProviderError`` (unknown provider, invalid descriptor, a variable missing).
    public func provider(_ name: String, variables: [String: String] = [:]) throws -> Provider {
        try resolve(name, variables: configuredVariables(for: name).merging(variables) { _, given in given })
    }

    /// The client settings of a stored session: its client id and variables, with the secret and key of
    /// ``Configuration/clients`` when that names the same client, else as ``Configuration/clientSettings`` resolves
    /// them for that client id (a secret only beside its own client id); with neither, no secret.
    ///
    /// - Throws: ``ClientSettingsError`` when the resolver names a secret it cannot read.
    package func settings(for session: StoredSession) throws -> ClientSettings {
        let name = session.key.providerID
        var settings: ClientSettings
        if let given = configuration.clients[name] {
            // A session of another client: that client's secret is not this one's to send; nor is it a session's signed in
            // with other values of the variables the settings state (another tenant's server).
            settings =
                given.clientID == session.clientID
                ? given.overriding(variables: session.variables, provider: name) : ClientSettings(clientID: session.clientID)
        } else if let resolver = configuration.clientSettings {
            settings = try resolver.settings(for: session)
        } else {
            settings = ClientSettings(clientID: session.clientID)
        }
        settings.variables = settings.variables.merging(session.variables) { _, stored in stored }
        return settings
    }

    /// The client of a stored session: its provider, client id, redirect URI and variables, with the secret and
    /// key from ``settings(for:)``.
    package func client(for session: StoredSession) throws -> OAuthClient {
        let settings = try settings(for: session)
        let provider = try resolve(session.key.providerID, variables: settings.variables)
        return client(of: provider, configuration: settings.configuration(redirectURI: session.redirectURI))
    }

    // MARK: - Sessions

    /// The session of a signed-in user, ready to give a valid access token: its token manager, made once and
    /// shared by every caller of this `OAuth`, so one refresh runs however many ask.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The account, for several sessions with one provider.
    /// - Throws: ``SessionError`` `not_signed_in` when nothing is stored, `session_mismatch` (from the manager's first use)
    ///   when another authorization server issued its tokens (nothing is sent; sign in again),
    ///   ``ProviderError``, store errors.
    public func session(_ name: String, account: String = "default") async throws -> TokenManager {
        let key = SessionKey(providerID: name, account: account)
        if let manager = managers.withLock({ $0.value(for: key) }) { return handOut(manager, for: key) }
        guard let stored = try await store.load(key) else {
            // A misspelt provider is an unknown provider, not a missing sign-in.
            _ = try descriptor(name)
            throw SessionError(.notSignedIn, "no stored session for \(key); sign in first")
        }
        let made = TokenManager(client: try client(for: stored), store: store, key: key)
        let manager = managers.withLock { managers in
            if let existing = managers.value(for: key) { return existing }
            managers.insert(made, for: key)
            return made
        }
        return handOut(manager, for: key)
    }

    private func handOut(_ manager: TokenManager, for key: SessionKey) -> TokenManager {
        held.withLock { $0.add(manager, for: key) }
        return manager
    }

    /// Forgets the token managers of `keys`, whose sessions something outside them changed (a security event ended or
    /// marked them): the next use reads each from the store.
    package func forgetManagers(of keys: [SessionKey]) {
        managers.withLock { managers in
            for key in keys { managers.remove(key) }
        }
        // A host may still hold a manager (an authorizer made from it): it reads the store at its next use.
        for manager in held.withLock({ $0.alive(for: keys) }) { manager.storeChanged() }
    }

    /// A signed-in user's access token, refreshed first when it expires within a minute.
    ///
    /// - Throws: ``SessionError`` (`not_signed_in`, `signed_out` when the provider refused the refresh token), and the refresh's errors.
    public func accessToken(for name: String, account: String = "default") async throws -> Secret {
        try await session(name, account: account).validAccessToken()
    }

    /// Signs a user out: revokes the session's tokens (RFC 7009), deletes it, and, with `endingProviderSession`,
    /// builds the request that ends the provider's session too (RP-Initiated Logout) for the host to send the
    /// browser to.
    ///
    /// - Throws: ``SessionError`` `not_signed_in` when nothing is stored, and store errors.
    @discardableResult
    public func signOut(
        _ name: String, account: String = "default", endingProviderSession: TokenManager.EndSessionOptions? = nil
    ) async throws -> TokenManager.SignOut {
        let manager = try await session(name, account: account)
        let result = try await manager.signOut(endingProviderSession: endingProviderSession)
        forgetManagers(of: [SessionKey(providerID: name, account: account)])
        return result
    }

    // MARK: - Services and APIs

    /// Tokens for the service's own calls at a provider (client credentials, the JWT bearer grant, token
    /// exchange), cached in ``Configuration/store`` and asked for once however many callers want one.
    ///
    /// - Throws: ``ClientSettingsError`` without a client for the provider, ``ProviderError``.
    public func serviceTokens(for name: String) throws -> ServiceTokens {
        if let tokens = services.withLock({ $0[name] }) { return tokens }
        return try serviceTokens(for: name, settings: try serviceClientSettings(for: name))
    }

    /// ``serviceTokens(for:)`` with the service's client settings given (the CLI's flags decided them), made once.
    package func serviceTokens(for name: String, settings: ClientSettings) throws -> ServiceTokens {
        if let tokens = services.withLock({ $0[name] }), tokens.client.configuration.clientID == settings.clientID { return tokens }
        let provider = try resolve(name, variables: settings.variables)
        let made = ServiceTokens(client: client(of: provider, configuration: settings.serviceConfiguration()), store: store)
        return services.withLock { services in
            if let existing = services[name], existing.client.configuration.clientID == settings.clientID { return existing }
            services[name] = made
            return made
        }
    }

    /// An API's token check, trusting the access tokens of the providers named.
    ///
    /// A provider whose tokens are introspected (`access_tokens.format: opaque` or `both`) needs the API's own
    /// client there, from ``Configuration/serviceClients`` or ``Configuration/clients``.
    /// - Throws: ``ProviderError`` for a setup that could never accept a token; ``ClientSettingsError`` when an
    ///   introspecting provider has no client.
    public func protectedResource(trusting names: [String], settings: ProtectedResource.Settings) throws -> ProtectedResource {
        try ProtectedResource.trusting(
            try names.map { try descriptor($0) }, settings: settings, environment: environment,
            variables: { variables(of: $0) }, client: { try serviceClientSettings(for: $0) }, discovery: { discovery(for: $0) })
    }

    /// Checks one access token as an API with `audience` would, trusting only the provider `name`: what
    /// `oauthflow verify-token` runs. A DPoP- or certificate-bound token is refused, as it would be without its proof.
    ///
    /// - Parameters:
    ///   - token: The access token to check, as a client would send it.
    ///   - name: The provider that issued it; the only one trusted.
    ///   - audience: The API's audience, in place of the descriptor's `access_tokens.audience`; nil takes that one.
    /// - Returns: The principal.
    /// - Throws: ``ProtectedResource/Denial`` saying exactly which check failed (``ProtectedResource/Denial/reason``);
    ///   ``ClientSettingsError`` or ``ProviderError`` for a setup that cannot check it (no audience anywhere, above all).
    public func verifyAccessToken(_ token: Secret, issuedBy name: String, audience: String?) async throws -> ProtectedResource.Principal {
        try ProtectedResource.checkAlone(token)
        var descriptor = try descriptor(name)
        // `format: both` verifies a JWT with the provider's keys and never introspects it: such a token needs no
        // introspection client, so none is looked for.
        if descriptor.accessTokens.format == .both, (try? CompactJWS(token.value)) != nil { descriptor.accessTokens.format = .jwt }
        // The resource URL only names the API in challenges and metadata, which a single check never shows.
        let named = audience.flatMap(URL.init(string:)).flatMap { TransportPolicy.isSecure($0) && $0.host != nil ? $0 : nil }
        let unpublished = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
        let resource = try ProtectedResource.trusting(
            [descriptor], settings: .init(resource: named ?? unpublished, audience: audience, cacheCapacity: 0), environment: environment,
            variables: { self.variables(of: $0) }, client: { try self.serviceClientSettings(for: $0) },
            discovery: { self.discovery(for: $0) })
        guard audience != nil || resource.trusted.contains(where: { $0.policy.audience != nil }) else {
            // RFC 9068 §4, RFC 7662 §4: the audience is the API's, never assumed; without one no token could be told apart.
            throw ProviderError(
                .unsupportedPolicy,
                "provider `\(name)` states no audience for its access tokens (`access_tokens.audience`), so the API's audience is required: give the `aud` value the API's tokens carry (the `audience` argument here, `--audience AUD` for `oauthflow verify-token`), or state it as `access_tokens.audience` in the descriptor",
                provider: name)
        }
        let outcome: Result<ProtectedResource.Principal, ProtectedResource.Denial>
        do {
            outcome = .success(try await resource.authenticate(ProtectedResource.Request(authorization: "Bearer " + token.value)))
        } catch {
            outcome = .failure(error)
        }
        // The API's own client refused at introspection says nothing of the token: the server's error, as it is.
        if case let .failure(denial) = outcome, denial.code == .unavailable, let cause = denial.cause, TrustedProvider.refusesClient(cause) {
            throw cause
        }
        return try outcome.get()
    }

    /// The variables a provider resolves with when its client is not needed: the service client's, else those the
    /// resolver's overrides name (a provider whose tokens are JWTs needs no client to check them).
    private func variables(of name: String) -> [String: String] {
        // Read without the client's secret or id: an API that only checks JWTs needs the server's variables, not a client.
        configuration.serviceClients[name]?.variables ?? configuredVariables(for: name)
    }

    // MARK: - Sign-in without a browser here

    /// Signs a user in with a device code (RFC 8628): shows the user a code to enter on another device, waits
    /// for approval, and stores the session.
    ///
    /// - Parameters:
    ///   - name: The provider; its descriptor must declare the device grant.
    ///   - account: The session's account name.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - events: Receives the code to show, then each poll.
    /// - Throws: ``ClientSettingsError``, ``ProviderError``, and what ``DeviceSignIn`` throws.
    public func signInWithDeviceCode(
        to name: String, account: String = "default", requestOfflineAccess: Bool = true,
        events: @escaping @Sendable (DeviceSignIn.Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        let settings = try clientSettings(for: name)
        let provider = try resolve(name, variables: settings.variables)
        var signIn = DeviceSignIn(store: store, environment: environment)
        signIn.discovery = discovery(for: provider.id)
        let result = try await signIn.signIn(
            to: provider, settings: settings, requestOfflineAccess: requestOfflineAccess, account: account, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }

    /// Drops the token manager made for `key`, after a sign-in replaced its session.
    public func forget(_ key: SessionKey) {
        forgetManagers(of: [key])
    }
}
