import Foundation

extension OAuth {
    /// A sign-in whose two halves may run in two processes: its URL is opened anywhere (on another device, where no
    /// browser can reach this machine), and the URL the browser ends on is given back later
    /// (`oauthflow authorize-url`, then `oauthflow login --callback-url`).
    public struct ManualSignIn: Sendable, Hashable {
        /// The authorization URL to open.
        public let url: URL
        /// The loopback redirect URI it names, which the provider must accept.
        public let redirectURI: URL
        /// The client it was started with; finishing needs the same.
        public let clientID: String
        /// The descriptor variables the provider was resolved with; finishing resolves it with the same.
        public let variables: [String: String]
        /// When the request pushed to the provider expires (RFC 9126): the URL must be opened before then.
        public let requestExpiresAt: Date?
        /// When the sign-in can no longer be finished (``PendingAuthorization/lifetime`` after it started): the redirect
        /// must be given back before then.
        public let expiresAt: Date
        /// Whether the redirect URI names ``defaultPort`` and the descriptor fixes no port: a provider must then take
        /// any loopback port (RFC 8252 §7.3), or have that one registered.
        public let usesDefaultPort: Bool

        /// The port a redirect URI names when neither the caller nor the descriptor chose one.
        public static let defaultPort = 8765
    }

    /// Starts a sign-in to finish with ``finishManualSignIn(to:account:callback:keptCorruptSession:)``, perhaps in
    /// another process: its state (the PKCE verifier among it) is kept beside the sessions of this `OAuth`'s
    /// ``FileTokenStore``, 0600, replacing any sign-in in progress for the same session. It must be finished within
    /// ``PendingAuthorization/lifetime`` (10 minutes, ``ManualSignIn/expiresAt``).
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - port: The loopback port the redirect URI names; by default the descriptor's fixed port, else
    ///     ``ManualSignIn/defaultPort``.
    ///   - requestOfflineAccess: Whether to ask for a refresh token.
    /// - Throws: ``FlowError`` `manual_sign_in` when the store is not a ``FileTokenStore``, `web_redirect_only` for a
    ///   provider that takes https redirect URIs only; what ``SignInRun/start()`` throws.
    public func startManualSignIn(
        to name: String, account: String = "default", port: Int? = nil, requestOfflineAccess: Bool = true
    ) async throws -> ManualSignIn {
        let pendingStore = try manualSignIns()
        let settings = try clientSettings(for: name)
        let provider = try resolve(name, variables: settings.variables)
        if provider.policy.webRedirectOnly { throw FlowError.webRedirectOnly(provider) }
        let chosen = port ?? provider.loopback.fixedPort ?? ManualSignIn.defaultPort
        guard let redirectURI = provider.loopback.uri(port: chosen) else {
            throw FlowError(.invalidRedirectURI, "\(name)'s loopback redirect cannot be written with port \(chosen)")
        }
        let run = signInRun(provider: provider, settings: settings, redirectURI: redirectURI, requestOfflineAccess: requestOfflineAccess)
        let pending = try await run.start()
        let entry = PendingAuthorizationStore.Entry(
            pending: pending, clientID: settings.clientID, variables: provider.variables,
            tokenEndpoint: try await run.client.endpoint(\.token, "token"), authorizationServer: provider.authorizationServer)
        try pendingStore.save(entry, for: SessionKey(providerID: name, account: account))
        return Self.manualSignIn(entry, provider: provider)
    }

    /// The sign-in in progress for `account`'s session with `name`, if any.
    ///
    /// - Throws: ``FlowError`` `manual_sign_in` when the store is not a ``FileTokenStore``; ``TokenStoreError`` for a
    ///   kept state that is not private, or not one.
    public func manualSignIn(to name: String, account: String = "default") throws -> ManualSignIn? {
        let pendingStore = try manualSignIns()
        guard let entry = try pendingStore.load(for: SessionKey(providerID: name, account: account)) else { return nil }
        return Self.manualSignIn(entry, provider: try? resolve(name, variables: entry.variables))
    }

    /// Finishes the sign-in ``startManualSignIn(to:account:port:requestOfflineAccess:)`` started, with the URL the
    /// browser ended on, and stores the session.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - callback: The redirect URL the browser ended on.
    ///   - keptCorruptSession: Told the path an unreadable stored session was moved to, instead of being overwritten.
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: ``FlowError`` `manual_sign_in_expired` when it started more than ``PendingAuthorization/lifetime`` ago
    ///   (it is forgotten, nothing sent); `manual_sign_in` when none is in progress, this `OAuth`'s client for `name` is not the
    ///   one that started it, `name` names another provider or authorization endpoint, or another call took it first;
    ///   ``TokenStoreError`` for a kept state that is not private, or not one; what
    ///   ``OAuthClient/finishSignIn(_:pending:accepted:)`` and
    ///   ``SignInRun/store(_:account:in:keptCorruptSession:)`` throw.
    @discardableResult
    public func finishManualSignIn(
        to name: String, account: String = "default", callback: URL, keptCorruptSession: (String) -> Void = { _ in }
    ) async throws -> SignInResult {
        let pendingStore = try manualSignIns()
        let key = SessionKey(providerID: name, account: account)
        guard let saved = try pendingStore.load(for: key) else {
            throw FlowError(.manualSignIn, "no sign-in to \(name) is in progress for \(key)")
        }
        if saved.pending.hasLapsed(at: environment.clock.now()) {
            // Forgotten unsent: its code, state and verifier are for a request too old to trust (RFC 6749 §4.1.2).
            _ = pendingStore.claim(for: key, state: saved.pending.state)
            throw FlowError(
                .manualSignInExpired,
                "the sign-in to \(name) for \(key) was started at \(saved.pending.createdAt), more than \(Int(PendingAuthorization.lifetime / 60)) minutes ago: a started sign-in is finished within that, and this one was forgotten unsent; start it again"
            )
        }
        var settings = try clientSettings(for: name)
        guard settings.clientID == saved.clientID else {
            throw FlowError(
                .manualSignIn,
                "the sign-in to \(name) in progress was started by client \(saved.clientID), not \(settings.clientID): finish it with that client")
        }
        // The client's credentials go with the variables they were given with, to no other server.
        settings = settings.overriding(variables: saved.variables, provider: name)
        settings.variables = saved.variables
        let provider = try resolve(name, variables: saved.variables)
        guard provider.id == saved.pending.providerID else {
            throw FlowError(.manualSignIn, "the sign-in in progress for \(key) is with \(saved.pending.providerID), not \(provider.id)")
        }
        let run = signInRun(provider: provider, settings: settings, redirectURI: saved.pending.redirectURI)
        // Nothing is sent unless the client can authenticate, and the code, the verifier and the client's credentials
        // go only to the server the request was made for: a descriptor of the same name read since (another directory, a
        // user's file) that names another authorization or token endpoint is refused.
        _ = try run.client.configuration.authenticationMethod(for: provider)
        let endpoint = try await run.client.endpoint(\.authorization, "authorization")
        guard Self.sameEndpoint(saved.pending.url, endpoint) else {
            throw FlowError(
                .manualSignIn,
                "the sign-in in progress for \(key) was started at \(Self.endpointText(saved.pending.url)); \(name) now names \(Self.endpointText(endpoint))"
            )
        }
        if let started = saved.authorizationServer, started != provider.authorizationServer {
            throw FlowError(
                .manualSignIn,
                "the sign-in in progress for \(key) was started with the authorization server \(TerminalText.escaped(started)); \(name) now names \(TerminalText.escaped(provider.authorizationServer ?? "none")): the code is not sent there"
            )
        }
        let tokenEndpoint = try await run.client.endpoint(\.token, "token")
        if let started = saved.tokenEndpoint, !Self.sameEndpoint(started, tokenEndpoint) {
            throw FlowError(
                .manualSignIn,
                "the sign-in in progress for \(key) was started for the token endpoint \(Self.endpointText(started)); \(name) now names \(Self.endpointText(tokenEndpoint)): the code is not sent there"
            )
        }
        // Spent once its response is accepted: taken (by one call only) and forgotten before the code is sent, so that
        // neither a second finisher, a failure nor a kill during the exchange sends the code twice (RFC 6749 §4.1.2).
        let state = saved.pending.state
        let outcome = try await run.client.finishSignIn(.callback(callback), pending: saved.pending) {
            guard pendingStore.claim(for: key, state: state) else {
                throw FlowError(.manualSignIn, "the sign-in in progress for \(key) was finished, or replaced, by another call meanwhile")
            }
        }
        return try await run.store(outcome, account: account, in: store, keptCorruptSession: keptCorruptSession)
    }

    private func manualSignIns() throws -> PendingAuthorizationStore {
        guard let files = store as? FileTokenStore else {
            throw FlowError(
                .manualSignIn,
                "a sign-in finished by another process keeps its state beside a FileTokenStore's sessions; this store is \(type(of: store))")
        }
        return PendingAuthorizationStore(beside: files)
    }

    /// Whether `url` (an authorization request) is at `endpoint`: the same origin, the default port written or not, and path.
    private static func sameEndpoint(_ url: URL, _ endpoint: URL) -> Bool {
        guard Origin.same(url, endpoint) else { return false }
        return URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath
            == URLComponents(url: endpoint, resolvingAgainstBaseURL: false)?.percentEncodedPath
    }

    private static func endpointText(_ url: URL) -> String {
        TerminalText.escaped("\(url.scheme ?? "")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(url.path)")
    }

    private static func manualSignIn(_ entry: PendingAuthorizationStore.Entry, provider: Provider?) -> ManualSignIn {
        ManualSignIn(
            url: entry.pending.url, redirectURI: entry.pending.redirectURI, clientID: entry.clientID, variables: entry.variables,
            requestExpiresAt: entry.pending.requestExpiresAt, expiresAt: entry.pending.createdAt.addingTimeInterval(PendingAuthorization.lifetime),
            usesDefaultPort: provider?.loopback.fixedPort == nil && entry.pending.redirectURI.port == ManualSignIn.defaultPort)
    }
}
