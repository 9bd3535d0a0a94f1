import Foundation
import Logging
import OAuthFlow

/// "Sign in with …" for web servers, independent of any web framework: ``signInPage(returnTo:)``,
/// ``start(_:returnTo:stepUp:)`` and ``finish(_:callback:)``, which an adapter maps to a framework's routes.
///
/// Nothing is kept on the server between start and callback: share the `SessionKeyring` between instances.
public final class WebSignIn: Sendable {
    /// The most of a `form_post` callback body an adapter reads: a small urlencoded form. A longer body is
    /// not a callback. (A back-channel logout body has `ProviderLogoutReceiver.maximumBodySize`.)
    public static let maximumFormPostSize = 64 * 1024

    /// The public origin the browser sees (`https://app.example.com`), for redirect URIs and cookies.
    public let origin: URL
    /// Where the routes live (`/auth`).
    public let basePath: String
    /// How long a started sign-in may take before its cookie expires.
    public let pendingLifetime: TimeInterval
    /// The enabled providers, in the order the sign-in page lists them.
    public let providerIDs: [String]

    let clients: [String: OAuthClient]
    let keyring: SessionKeyring
    /// The transport, clock, logger and DPoP nonces of every client and session manager made here.
    public let environment: OAuthEnvironment
    let clock: any DateClock
    let logger: Logger
    let secureCookies: Bool
    /// Where finished sign-ins are kept, when the host gave a store (``init(providers:origin:keyring:sessions:replays:basePath:pendingLifetime:environment:)``).
    public let sessions: (any SessionDirectory)?
    /// Back-channel and front-channel logout, per provider; only with a store.
    let logoutReceivers: [String: ProviderLogoutReceiver]

    /// Enables providers of a registry by name.
    ///
    /// ```swift
    /// let web = try WebSignIn(registry: .load(), enable: [
    ///     "google": .init(clientID: env["GOOGLE_CLIENT_ID"]!, secret: Secret(env["GOOGLE_CLIENT_SECRET"]!)),
    ///     "auth0": .init(clientID: env["AUTH0_CLIENT_ID"]!, variables: ["domain": "example.eu.auth0.com"]),
    /// ], origin: URL(string: "https://app.example.com")!, keyring: keyring)
    /// ```
    /// - Parameters:
    ///   - registry: The descriptors the providers are found in, by id.
    ///   - enable: The providers to offer, by descriptor id, each with its client (id, secret or key, scopes and the
    ///     descriptor's variables); listed by display name.
    ///   - origin: The site's public origin; plain `http` only for loopback (development).
    ///   - keyring: Seals the pending sign-in cookies; share it between instances.
    ///   - sessions: Where finished sign-ins are stored, so that tokens refresh on use (``accessToken(for:)``),
    ///     sign-out revokes them and back-channel logout ends them; nil keeps nothing.
    ///   - replays: The logout token `jti`s seen; share one (`PostgresReplayRegistry`) between instances.
    ///   - basePath: The routes' prefix.
    ///   - pendingLifetime: How long a started sign-in (or sign-out) may take before its cookie expires, in seconds.
    ///   - environment: The transport, clock, logger and DPoP nonces every client and session of the sign-in uses.
    /// - Throws: `ProviderError` for an unknown provider or missing variables, ``WebSignInError``
    ///   `configuration` for an origin or base path that cannot work.
    public convenience init(
        registry: ProviderRegistry, enable: [String: ClientSettings], origin: URL, keyring: SessionKeyring,
        sessions: (any SessionDirectory)? = nil, replays: any ReplayRegistry = InMemoryReplayRegistry(),
        basePath: String = "/auth", pendingLifetime: TimeInterval = 600, environment: OAuthEnvironment = OAuthEnvironment()
    ) throws {
        var providers: [(Provider, ClientSettings)] = []
        for (name, client) in enable {
            providers.append((try registry.descriptor(named: name).resolve(client.variables), client))
        }
        providers.sort { ($0.0.displayName, $0.0.id) < ($1.0.displayName, $1.0.id) }
        try self.init(
            providers: providers, origin: origin, keyring: keyring, sessions: sessions, replays: replays, basePath: basePath,
            pendingLifetime: pendingLifetime, environment: environment)
    }

    /// Enables resolved providers, listed in the order given.
    public convenience init(
        providers: [(Provider, ClientSettings)], origin: URL, keyring: SessionKeyring, sessions: (any SessionDirectory)? = nil,
        replays: any ReplayRegistry = InMemoryReplayRegistry(), basePath: String = "/auth", pendingLifetime: TimeInterval = 600,
        environment: OAuthEnvironment = OAuthEnvironment()
    ) throws {
        try self.init(
            providers: providers, origin: origin, keyring: keyring, sessions: sessions, replays: replays, basePath: basePath,
            pendingLifetime: pendingLifetime,
            oauth: .over(store: sessions.map { $0 as any TokenStore } ?? InMemoryTokenStore(), environment: environment))
    }

    /// Enables resolved providers, each client made by `oauth` (the host's, or one over `sessions` and the environment),
    /// which shares each provider's discovery cache.
    package init(
        providers: [(Provider, ClientSettings)], origin: URL, keyring: SessionKeyring, sessions: (any SessionDirectory)?,
        replays: any ReplayRegistry, basePath: String, pendingLifetime: TimeInterval, oauth: OAuth
    ) throws {
        let environment = oauth.environment
        guard let scheme = origin.scheme?.lowercased(), let host = origin.host, !host.isEmpty,
            origin.path.isEmpty || origin.path == "/", origin.query == nil, origin.fragment == nil
        else {
            throw WebSignInError(
                .configuration, "the origin \(origin) must be a scheme, a host and an optional port, such as https://app.example.com")
        }
        guard TransportPolicy.isSecure(origin) else {
            throw WebSignInError(.configuration, "the origin \(origin) must use https (plain http only for a loopback host during development)")
        }
        guard basePath.hasPrefix("/"), !basePath.hasSuffix("/"), !basePath.contains("//"),
            basePath.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else {
            throw WebSignInError(
                .configuration, "the base path \(basePath.debugDescription) must start with / and have no trailing /, query or fragment")
        }
        var origin = origin.absoluteString
        while origin.hasSuffix("/") { origin.removeLast() }
        guard let trimmedOrigin = URL(string: origin) else {
            throw WebSignInError(.configuration, "the origin \(origin) does not parse as a URL")
        }
        self.origin = trimmedOrigin
        self.basePath = basePath
        self.pendingLifetime = pendingLifetime
        self.keyring = keyring
        self.environment = environment
        self.clock = environment.clock
        self.logger = environment.logger
        self.secureCookies = scheme == "https"
        var clients: [String: OAuthClient] = [:]
        var ids: [String] = []
        for (provider, client) in providers {
            guard clients[provider.id] == nil else {
                throw WebSignInError(.configuration, "provider \(provider.id) is enabled twice")
            }
            guard let redirect = URL(string: "\(origin)\(basePath)/\(provider.id)/callback") else {
                throw WebSignInError(.configuration, "the redirect URI \(origin)\(basePath)/\(provider.id)/callback does not parse as a URL")
            }
            let configuration = client.configuration(redirectURI: redirect)
            try Self.checkSettings(of: provider, configuration, secureOrigin: scheme == "https", origin: origin)
            clients[provider.id] = oauth.client(of: provider, configuration: configuration)
            ids.append(provider.id)
        }
        self.clients = clients
        self.providerIDs = ids
        self.sessions = sessions
        var receivers: [String: ProviderLogoutReceiver] = [:]
        if let sessions {
            for (id, client) in clients {
                receivers[id] = ProviderLogoutReceiver(client: client, sessions: sessions, replays: replays)
            }
        }
        self.logoutReceivers = receivers
    }

    /// Refuses, before any browser is sent anywhere, a provider whose sign-ins could only fail: a client without the
    /// credential its token requests need (a generated secret's key without its Key ID among them), or a
    /// `form_post` answer (a cross-site POST, which only a `SameSite=None; Secure` cookie survives) to a plain-http origin.
    static func checkSettings(of provider: Provider, _ configuration: ClientConfiguration, secureOrigin: Bool, origin: String) throws {
        do {
            _ = try configuration.authenticationMethod(for: provider)
        } catch let error as FlowError {
            throw WebSignInError(.configuration, error.message)
        }
        if provider.policy.responseMode.isFormPost, !secureOrigin {
            throw WebSignInError(
                .configuration,
                "provider \(provider.id) answers with a cross-site POST (`response_mode: \(provider.policy.responseMode.rawValue)`), which carries the pending sign-in cookie only when it is SameSite=None and Secure: the origin \(origin) must be https"
            )
        }
    }

    /// The redirect URI to register at `providerID`: `{origin}{basePath}/{provider}/callback`.
    public func redirectURI(for providerID: String) -> URL? {
        clients[providerID]?.configuration.redirectURI
    }

    /// The path of a provider's callback route, which also scopes its pending cookies.
    public func callbackPath(for providerID: String) -> String {
        "\(basePath)/\(providerID)/callback"
    }

    /// The resolved provider behind an id.
    public func provider(_ id: String) -> Provider? {
        clients[id]?.provider
    }

    // MARK: - The sign-in page

    /// A plain, accessible page with one link per provider; hosts may serve their own instead.
    public func signInPage(returnTo: String? = nil) -> WebResponse {
        let target = ReturnPath.accept(returnTo)
        let suffix = target == "/" ? "" : "?return_to=" + FormEncoding.encode(target)
        let items = providerIDs.compactMap { id -> String? in
            guard let provider = clients[id]?.provider else { return nil }
            let href = WebHTML.escape("\(basePath)/\(id)\(suffix)")
            return "<li><a class=\"provider\" href=\"\(href)\">Sign in with \(WebHTML.escape(provider.displayName))</a></li>"
        }
        return WebHTML.page(
            title: "Sign in",
            body: """
                <h1>Sign in</h1>
                <ul class="providers">
                \(items.joined(separator: "\n"))
                </ul>
                """)
    }

    // MARK: - Start

    /// Starts a sign-in: a redirect to the provider, with the sealed pending cookie.
    ///
    /// - Parameters:
    ///   - providerID: The enabled provider to sign in with, by descriptor id.
    ///   - returnTo: Where to send the user afterwards: a same-origin path (`/account`);
    ///     anything else (an absolute URL, `//host`, a backslash, control characters) becomes `/`.
    ///   - stepUp: What an API's step-up challenge asked for (`ProtectedResource.StepUp(challenges:)`, RFC 9470): its
    ///     `acr_values` and `max_age` go in the request, and the callback's ID token must meet them. It only adds to
    ///     what the descriptor asks of every sign-in (`authorization.acr_values`, `max_age`), which stays in force.
    public func start(_ providerID: String, returnTo: String? = nil, stepUp: ProtectedResource.StepUp? = nil) async -> WebResponse {
        do {
            guard let client = clients[providerID] else {
                throw WebSignInError(.unknownProvider, "no enabled provider is called \(providerID.debugDescription)")
            }
            let pending: PendingAuthorization
            do {
                let run = SignInRun(client: client)
                pending = try await (stepUp.map(run.steppedUp) ?? run).start()
            } catch {
                throw WebSignInError(.providerUnavailable, "cannot start signing in with \(providerID): \(error)")
            }
            let target = ReturnPath.accept(returnTo)
            if let returnTo, target != returnTo {
                logger.warning(
                    "sign-in return path refused; using /", metadata: ["provider": "\(providerID)", "return_to": "\(TerminalText.escaped(returnTo))"])
            }
            let record = PendingSignIn(
                pending: pending, providerID: providerID, returnTo: target,
                expiresAt: clock.now().addingTimeInterval(pendingLifetime))
            let (name, value) = try record.seal(with: keyring)
            let cookie = SetCookie(
                name: name, value: value, path: callbackPath(for: providerID), maxAge: Int(pendingLifetime),
                secure: secureCookies, sameSite: sameSite(for: client.provider))
            logger.debug("sign-in started", metadata: ["provider": "\(providerID)"])
            return WebResponse(
                status: 302,
                headers: [
                    ("Location", pending.url.absoluteString), ("Set-Cookie", cookie.header),
                    ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
                ], body: "")
        } catch let error as WebSignInError {
            return failure(error, providerID: providerID).page(signInPath: basePath)
        } catch {
            return failure(WebSignInError(.configuration, "\(error)"), providerID: providerID).page(signInPath: basePath)
        }
    }

    /// SameSite=Lax keeps the cookie on the provider's top-level GET redirect back. A
    /// `form_post` callback is a cross-site POST, which only `SameSite=None; Secure` survives.
    private func sameSite(for provider: Provider) -> String {
        provider.policy.responseMode.isFormPost && secureCookies ? "None" : "Lax"
    }

    // MARK: - Callback

    /// What a callback request carried.
    public struct Callback: Sendable {
        /// The raw query string (without `?`) of a GET callback.
        public var query: String?
        /// The `application/x-www-form-urlencoded` body of a `form_post` callback.
        public var formBody: Data?
        /// The request's cookies by name (``CookieHeader/parse(_:)`` reads a `Cookie` header).
        public var cookies: [String: String]

        public init(query: String? = nil, formBody: Data? = nil, cookies: [String: String]) {
            self.query = query
            self.formBody = formBody
            self.cookies = cookies
        }
    }

    /// Finishes a sign-in: opens the pending cookie, checks the callback (state in constant
    /// time, RFC 9207 `iss` against the provider the flow started with, the code), exchanges
    /// the code with PKCE, verifies the ID token (nonce included) and reads userinfo.
    ///
    /// - Returns: The result, or the error with the page to show; both carry the
    ///   `Set-Cookie` that deletes the pending cookie.
    public func finish(_ providerID: String, callback: Callback) async -> Result<WebSignInResult, WebSignInError> {
        let engine = Locked(false)
        let result = await finishing(providerID, callback: callback, engine: engine)
        // A callback the engine never saw (no pending cookie, a provider that is not enabled, whose name is never a
        // label) is counted here, with the code the page shows; the engine counts every callback it finishes.
        if case let .failure(error) = result, !engine.current {
            let provider = clients[providerID] == nil ? Instruments.none : providerID
            environment.instruments.count(.signIns, provider, "failure", error.code.description)
        }
        return result
    }

    private func finishing(_ providerID: String, callback: Callback, engine: Locked<Bool>) async -> Result<WebSignInResult, WebSignInError> {
        var clearing: String?
        do {
            guard let client = clients[providerID] else {
                throw WebSignInError(.unknownProvider, "no enabled provider is called \(providerID.debugDescription)")
            }
            let state = try Self.state(of: callback)
            let name = PendingSignIn.cookieName(forState: state)
            clearing =
                SetCookie(
                    name: name, value: "", path: callbackPath(for: providerID), maxAge: 0, secure: secureCookies,
                    sameSite: sameSite(for: client.provider)
                ).header
            let record = try pendingSignIn(named: name, in: callback, for: providerID)
            engine.withLock { $0 = true }
            let outcome = try await exchange(callback, of: record, with: client)
            let userInfo = try await userInfo(of: outcome, from: client, providerID: providerID)
            let profile = try await client.profile(
                outcome.tokens, idToken: outcome.idToken?.all, userInfo: userInfo ?? [:], callback: outcome.callback)
            let stored = try await store(outcome, client: client)
            let result = WebSignInResult(
                providerID: providerID, displayName: client.provider.displayName,
                idToken: outcome.idToken, userInfo: userInfo, profile: profile, tokens: outcome.tokens,
                resources: client.provider.resources.resources(granted: outcome.tokens.scopes),
                returnTo: record.returnTo, clearPendingCookie: clearing ?? "", session: stored, callback: outcome.callback)
            logger.info("signed in", metadata: ["provider": "\(providerID)", "subject": "\(result.subject ?? "-")"])
            return .success(result)
        } catch var error as WebSignInError {
            error.clearPendingCookie = clearing
            return .failure(failure(error, providerID: providerID))
        } catch {
            var wrapped = WebSignInError(.exchangeFailed, "\(error)")
            wrapped.clearPendingCookie = clearing
            return .failure(failure(wrapped, providerID: providerID))
        }
    }

    /// The callback's `state`, which names its pending cookie.
    private static func state(of callback: Callback) throws -> String {
        let parameters = FormEncoding.decode(callback.formBody.map { String(decoding: $0, as: UTF8.self) } ?? callback.query ?? "")
        // A JWT-secured response (JARM) carries `state` inside its `response`: read unverified here only to find the
        // pending cookie; the engine verifies the JWT before it believes any of it.
        let plainState = parameters.first(where: { $0.0 == "state" })?.1
        let sealedState = parameters.first(where: { $0.0 == "response" }).flatMap {
            try? IDTokenValidator.decodeUnverified($0.1).claims["state"]?.stringValue
        }
        guard let state = plainState ?? sealedState, !state.isEmpty else {
            throw WebSignInError(.stateMismatch, "the callback carries no state")
        }
        return state
    }

    /// The pending sign-in the cookie `name` holds: opened, unexpired, and started with `providerID`.
    private func pendingSignIn(named name: String, in callback: Callback, for providerID: String) throws -> PendingSignIn {
        guard let value = callback.cookies[name] else {
            throw WebSignInError(
                .noPendingSignIn,
                "no pending sign-in cookie for this state: the flow was not started in this browser, already finished, or expired")
        }
        let record = try PendingSignIn.open(value, name: name, keyring: keyring)
        guard record.expiresAt > clock.now() else {
            throw WebSignInError(.expired, "the pending sign-in expired at \(record.expiresAt)")
        }
        guard record.providerID == providerID, record.pending.providerID == providerID else {
            throw WebSignInError(.providerMismatch, "the sign-in was started with \(record.providerID), but the callback came to \(providerID)")
        }
        return record
    }

    /// The engine's check of the callback and its code exchange, each failure told as the page names it.
    private func exchange(_ callback: Callback, of record: PendingSignIn, with client: OAuthClient) async throws -> OAuthClient.SignInOutcome {
        do {
            if let body = callback.formBody {
                return try await client.finishSignIn(.formPost(body), pending: record.pending)
            } else {
                // An unparsable redirect URI leaves a bare query, which finishSignIn rejects as not for this redirect URI.
                var components = URLComponents(url: record.pending.redirectURI, resolvingAgainstBaseURL: false) ?? URLComponents()
                components.percentEncodedQuery = callback.query
                return try await client.finishSignIn(
                    .callback(components.url ?? record.pending.redirectURI), pending: record.pending)
            }
        } catch let error as AuthorizationServerError where error.httpStatus == nil {
            throw WebSignInError(
                .denied, "the provider answered \(error.error)\(error.errorDescription.map { ": \($0)" } ?? "")",
                providerError: error.error)
        } catch let error as FlowError where error.code == .alreadyCompleted {
            throw WebSignInError(.replayed, "this callback was already used")
        } catch let error as FlowError where [.stateMismatch, .issuerMismatch, .missingCode, .invalidCallback].contains(error.code) {
            throw WebSignInError(error.code == .issuerMismatch ? .issuerMismatch : .callbackRejected, "\(error)")
        } catch let error as IDTokenError {
            throw WebSignInError(.idTokenRejected, "\(error)")
        } catch let error as AuthorizationServerError {
            // A definite answer from the token endpoint (`invalid_grant`, ...): the provider was reached and said no.
            throw WebSignInError(.exchangeRefused, "the token endpoint refused the code: \(error)", providerError: error.error)
        } catch let error as TransportError {
            throw WebSignInError(.providerUnavailable, "the token endpoint could not be reached: \(error)")
        } catch {
            throw WebSignInError(.exchangeFailed, "\(error)")
        }
    }

    /// The provider's userinfo, when it has the endpoint; nil when it has none, or an OpenID sign-in could not read it.
    private func userInfo(
        of outcome: OAuthClient.SignInOutcome, from client: OAuthClient, providerID: String
    ) async throws -> [String: JSONValue]? {
        guard client.provider.endpoints.userinfo != nil || client.provider.usesDiscovery else { return nil }
        do {
            return try await client.userInfo(outcome.tokens)
        } catch let error as IDTokenError {
            throw WebSignInError(.idTokenRejected, "userinfo is about someone else: \(error)")
        } catch {
            // An OpenID sign-in is complete with its verified ID token; without one, userinfo is the identity.
            guard outcome.idToken != nil else { throw WebSignInError(.exchangeFailed, "cannot read userinfo: \(error)") }
            logger.info("userinfo unavailable; using the ID token's claims", metadata: ["provider": "\(providerID)"])
            return nil
        }
    }

    /// Logs a refusal (one line, escaped, no secrets) and passes the error on.
    private func failure(_ error: WebSignInError, providerID: String) -> WebSignInError {
        logger.warning(
            "sign-in refused",
            metadata: [
                "provider": "\(TerminalText.escaped(providerID))", "code": "\(error.code)", "reason": "\(TerminalText.escaped(error.message))",
            ])
        return error
    }
}
