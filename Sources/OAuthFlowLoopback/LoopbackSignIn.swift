#if NIO
import Foundation
import OAuthFlow

/// Signs a user in through the browser and a loopback redirect (RFC 8252), and stores the session:
/// everything `oauthflow login` does, for host code.
///
/// ```swift
/// let signIn = LoopbackSignIn(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
/// let result = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "YOUR_CLIENT_ID"))
/// ```
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

    /// Where the session is stored.
    public var store: any TokenStore { oauth.store }
    public let browser: any BrowserOpener
    /// The transport, clock, logger and DPoP nonces of the client made for each sign-in.
    public var environment: OAuthEnvironment { oauth.environment }
    /// How long to wait for anything to reach the redirect URI before ``Event/stillWaiting(redirectURI:after:)``.
    public var waitingHintDelay: Duration = .seconds(20)
    /// The front door each sign-in's client is made by: the host's `OAuth` when made through it, else one over the store
    /// and environment given, so that every sign-in to a provider shares its discovery cache.
    package let oauth: OAuth

    /// - Parameters:
    ///   - store: Where the session is stored.
    ///   - browser: Opens the authorization URL (``SystemBrowser`` for the user's browser).
    ///   - environment: The transport, clock, logger and DPoP nonces of each sign-in's client.
    public init(store: any TokenStore, browser: any BrowserOpener, environment: OAuthEnvironment = OAuthEnvironment()) {
        self.init(oauth: .over(store: store, environment: environment), browser: browser)
    }

    /// A sign-in whose clients `oauth` makes, into its store.
    package init(oauth: OAuth, browser: any BrowserOpener) {
        self.oauth = oauth
        self.browser = browser
    }

    /// Signs in and stores the session.
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - settings: The registered client: its id, secret or key, and the scopes to ask for.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - account: The session's account name, to keep several sessions with one provider.
    ///   - port: A fixed port instead of the descriptor's choice.
    ///   - timeout: How long to wait for the browser to come back, and only that (300 s by default).
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
            let run = SignInRun(client: oauth.client(of: provider, configuration: configuration))
            let presenter = BrowserPresenter(
                receiver: receiver, browser: browser, timeout: timeout, waitingHintDelay: waitingHintDelay, events: events)
            let result = try await run.run(presenter, account: account, in: store) { events(.corruptSessionKept($0)) }
            await receiver.close()
            return result
        } catch {
            await receiver.close()
            throw error
        }
    }
}
#endif
