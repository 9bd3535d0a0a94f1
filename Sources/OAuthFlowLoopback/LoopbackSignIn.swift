import Foundation
import OAuthFlow

/// Signs a user in through the browser and a loopback redirect (RFC 8252), and stores the session:
/// everything `oauthflow login` does, for host code.
///
/// ```swift
/// let signIn = LoopbackSignIn(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
/// let result = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "YOUR_CLIENT_ID"))
/// ```
///
/// Or through the front door, by name: `try await oauth.signIn(to: "google", browser: browser)`.
///
/// The receiver listens on the descriptor's loopback host and port (an ephemeral one by
/// default), the authorization request carries PKCE, `state` and (for OpenID Connect)
/// `nonce`, forged or stale callbacks are refused while the wait goes on, and the
/// callback, token exchange and ID token pass every check of `OAuthClient`.
public struct LoopbackSignIn: Sendable {
    /// What happens during a sign-in, for a host to show.
    public enum Event: Sendable {
        /// The receiver listens; this is the redirect URI sent.
        case listening(URL)
        /// The provider's authorization endpoint, where the user signs in: its scheme, host and path, without the
        /// request's parameters. Sent just before ``openURL(_:)``, whose URL names no provider when it is the
        /// receiver's own start address (a pushed request, RFC 9126): show both.
        case authorizationEndpoint(URL)
        /// The URL to sign in at; show it, whether or not the browser opened. With a pushed request it is the
        /// receiver's start address (`http://127.0.0.1:PORT/PATH?oauthflow_start=...`), which sends the browser
        /// on to the provider.
        case openURL(URL)
        /// The browser could not be started; the user must open the URL.
        case browserFailed(String)
        /// A callback that does not belong to this sign-in was refused; the wait goes on.
        case callbackIgnored(String)
        /// A callback passed its checks (state, `iss`, no error, a code); the code is being exchanged at this host.
        case exchangingCode(String)
        /// An unreadable stored session was moved to this path instead of being overwritten.
        case corruptSessionKept(String)
        /// Nothing has come back to the redirect URI for this long (``waitingHintDelay``): the
        /// provider may refuse this redirect URI, which must be registered there (exactly, port
        /// included, for providers that do not accept any loopback port; RFC 8252 §7.3).
        case stillWaiting(redirectURI: URL, after: Duration)
        /// The pushed request (RFC 9126) had expired when the browser opened the sign-in: a new one was pushed and
        /// the browser sent on to it, instead of to a provider's error page. The older request's callback is refused.
        case pushedRequestRenewed
    }

    public let store: any TokenStore
    public let browser: any BrowserOpener
    /// The transport, clock, logger and DPoP nonces of the client made for each sign-in.
    public let environment: OAuthEnvironment
    /// How long to wait for anything to reach the redirect URI before ``Event/stillWaiting(redirectURI:after:)``.
    public var waitingHintDelay: Duration = .seconds(20)
    /// The discovery cache of the provider signed in to, when `OAuth` keeps one for it; nil makes one per sign-in.
    package var discovery: DiscoveryClient?

    /// - Parameters:
    ///   - store: Where the session is stored.
    ///   - browser: Opens the authorization URL (``SystemBrowser`` for the user's browser).
    ///   - environment: The transport, clock, logger and DPoP nonces of each sign-in's client.
    public init(store: any TokenStore, browser: any BrowserOpener, environment: OAuthEnvironment = OAuthEnvironment()) {
        self.store = store
        self.browser = browser
        self.environment = environment
    }

    /// Signs in and stores the session.
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - settings: The registered client: its id, secret or key, and the scopes to ask for.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - account: The session's account name, to keep several sessions with one provider.
    ///   - port: A fixed port instead of the descriptor's choice.
    ///   - timeout: How long to wait for the browser to come back (300 s by default); it bounds only that
    ///     wait, as the token exchange after the callback has the transport's own deadline.
    ///   - events: Receives what happens, in order.
    /// - Returns: The stored session, with the ID token's claims as verified during the sign-in and the profile mapped from them.
    /// - Throws: ``LoopbackError`` (port taken, timed out), `AuthorizationServerError` (the user
    ///   or the server said no), `FlowError`, `IDTokenError`, `TransportError`, `TokenStoreError`.
    public func signIn(
        to provider: Provider, settings: ClientSettings, requestOfflineAccess: Bool = true, account: String = "default",
        port: Int? = nil, timeout: Duration = .seconds(300), events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        if provider.policy.webRedirectOnly {
            throw FlowError.webRedirectOnly(provider)
        }
        let loopback = provider.loopback
        let receiver = try await LoopbackReceiver.start(host: loopback.host, port: port ?? loopback.fixedPort ?? 0, path: loopback.path)
        do {
            let configuration = settings.configuration(redirectURI: receiver.redirectURI, requestOfflineAccess: requestOfflineAccess)
            let session = try await run(
                provider: provider, configuration: configuration, account: account, receiver: receiver, timeout: timeout, events: events)
            await receiver.close()
            return session
        } catch {
            await receiver.close()
            throw error
        }
    }

    private func run(
        provider: Provider, configuration: ClientConfiguration, account: String, receiver: LoopbackReceiver, timeout: Duration,
        events: @escaping @Sendable (Event) -> Void
    ) async throws -> SignInResult {
        let oauth = OAuthClient(provider: provider, configuration: configuration, environment: environment, discovery: discovery)
        // Fails before the browser opens when the client settings cannot work (`startAuthorization` checks them first).
        let current = Locked(try await oauth.startAuthorization())
        events(.listening(receiver.redirectURI))
        // A pushed request expires (RFC 9126 §2.2): the browser opens it through the receiver, which pushes
        // a new one when the first has expired by the time the browser (or the user) gets to it.
        let start = Base64URL.random(bytes: 16)
        let first = current.current
        let opened = first.requestExpiresAt == nil ? first.url : Self.startURL(receiver.redirectURI, start)
        events(.authorizationEndpoint(Self.endpoint(of: first.url)))
        events(.openURL(opened))
        do {
            try await browser.open(opened)
        } catch {
            events(.browserFailed("\(error)"))
        }
        let outcome = Locked<Outcome?>(nil)
        // Discovery only when the descriptor names no token endpoint: no extra round trip otherwise.
        let tokenEndpoint = provider.endpoints.token == nil ? (try? await oauth.discoveredProvider())?.endpoints.token : provider.endpoints.token
        let tokenHost = tokenEndpoint?.host ?? "the token endpoint"
        // Whether any request reached the redirect path.
        let arrived = Locked(false)
        // A provider that refuses the redirect URI shows the user its own error page and never
        // sends the browser back: say which redirect URI was sent while the wait goes on.
        let delay = waitingHintDelay
        let redirectURI = receiver.redirectURI
        let hint = Task {
            try await Task.sleep(for: delay)
            if !arrived.current { events(.stillWaiting(redirectURI: redirectURI, after: delay)) }
        }
        defer { hint.cancel() }
        try await receiver.waitForCallback(timeout: timeout) { request in
            if Self.startToken(of: request) == start {
                return await Self.begin(client: oauth, current: current, events: events)
            }
            arrived.withLock { $0 = true }
            return await Self.handle(
                request, client: oauth, pending: current.current, tokenHost: tokenHost, outcome: outcome, events: events)
        }
        guard let result = outcome.current else {
            throw LoopbackError(code: .noResult, message: "the sign-in ended without a result")
        }
        let finished = try result.get()
        if let files = store as? FileTokenStore,
            let kept = try await files.setAsideCorruptSession(SessionKey(providerID: provider.id, account: account))
        {
            events(.corruptSessionKept(kept))
        }
        return try await SignInResult.store(finished, client: oauth, account: account, redirectURI: receiver.redirectURI, in: store)
    }

    /// The authorization endpoint an authorization URL goes to: the URL without its query and fragment.
    static func endpoint(of url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }

    /// The query parameter of the receiver's start address.
    static let startParameter = "oauthflow_start"

    /// The receiver's start address: the redirect URI with a random token only this sign-in knows.
    static func startURL(_ redirectURI: URL, _ token: String) -> URL {
        var components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: startParameter, value: token)]
        return components?.url ?? redirectURI
    }

    /// The start token of a GET to the start address, if it is one.
    static func startToken(of request: LoopbackRequest) -> String? {
        guard request.method == "GET", let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems,
            items.count == 1, items[0].name == startParameter
        else { return nil }
        return items[0].value
    }

    /// Sends the browser to the authorization URL, pushing a new request first when the current one has expired
    /// (or will within a few seconds).
    static func begin(client: OAuthClient, current: Locked<PendingAuthorization>, events: @Sendable (Event) -> Void) async -> LoopbackResponse {
        if current.current.isExpired(at: client.environment.clock.now().addingTimeInterval(5)) {
            do {
                let renewed = try await client.startAuthorization()
                current.withLock { $0 = renewed }
                events(.pushedRequestRenewed)
            } catch {
                return LoopbackResponse(
                    status: 502,
                    html: LoopbackPages.page(title: "Sign-in could not start", message: "\(error). Return to the application for details."),
                    finishes: false)
            }
        }
        return LoopbackResponse(
            status: 303, html: LoopbackPages.page(title: "Signing in", message: "Continue to the provider to sign in."), finishes: false,
            location: current.current.url)
    }

    /// Decides what one request on the redirect path means.
    static func handle(
        _ request: LoopbackRequest, client: OAuthClient, pending: PendingAuthorization, tokenHost: String,
        outcome: Locked<Outcome?>, events: @Sendable (Event) -> Void
    ) async -> LoopbackResponse {
        do {
            // Only a callback that passes its checks (state, `iss`, no error, a code) leads to a token request. It is
            // parsed and checked once (a JWT-secured one verified once), and that check is what the exchange spends.
            let callback =
                request.method == "POST"
                ? try AuthorizationCallback(formBody: request.body)
                : try AuthorizationCallback(url: request.url, expectedRedirectURI: pending.redirectURI)
            let accepted = try await client.accept(callback, pending: pending)
            events(.exchangingCode(tokenHost))
            let finished = try await client.finishSignIn(accepted, pending: pending)
            outcome.withLock { $0 = .success(finished) }
            return LoopbackResponse(
                status: 200,
                html: LoopbackPages.page(
                    title: "Signed in",
                    message: "You are signed in to \(client.provider.displayName). You can close this tab and return to the application."),
                finishes: true)
        } catch let error as FlowError where error.code == .stateMismatch || error.code == .invalidCallback {
            // Not this sign-in's callback (forged, or from an older attempt): refuse it and keep waiting.
            events(.callbackIgnored(error.message))
            return LoopbackResponse(
                status: 400,
                html: LoopbackPages.page(
                    title: "Not this sign-in", message: "This response does not match the sign-in in progress and was ignored."),
                finishes: false)
        } catch {
            outcome.withLock { $0 = .failure(error) }
            return LoopbackResponse(
                status: 400,
                html: LoopbackPages.page(
                    title: "Sign-in failed", message: "\(error). Return to the application for details."), finishes: true)
        }
    }

    /// The result of the finishing callback, handed from the receiver's handler to the caller.
    typealias Outcome = Result<OAuthClient.SignInOutcome, any Error>
}
