import Foundation
import OAuthFlow

/// Signs a user in from an app (RFC 8252): the provider's page in a ``WebAuthenticator`` (`ASWebAuthenticationSession`),
/// the redirect to the app's private-use scheme or claimed https link, every check of the engine, and the session stored.
///
/// ```swift
/// let signIn = AppSignIn(store: store, authenticator: SystemWebAuthenticator())
/// let result = try await signIn.signIn(to: provider, settings: ClientSettings(clientID: "1234-abc.apps.googleusercontent.com"))
/// ```
public struct AppSignIn: Sendable {
    /// Which redirect URI the sign-in sends.
    public enum Redirect: Sendable, Hashable {
        /// The descriptor's private-use redirect: `redirect.private_use_uri`, or `redirect.private_use_scheme` and
        /// `:/oauth2redirect` (RFC 8252 §7.1).
        case privateUseScheme
        /// The descriptor's claimed https link, `redirect.claimed_https` (RFC 8252 §7.2; iOS 17.4, macOS 14.4).
        case claimedHTTPS
        /// The redirect URI registered at the provider, checked against the descriptor's form.
        case registered(URL)
    }

    /// What happens during a sign-in, for a host to show.
    public enum Event: Sendable {
        /// The authorization request is ready and the sheet opens next; a pushed request's `request_uri` expires at
        /// `requestExpiresAt`.
        case started(requestExpiresAt: Date?)
        /// The pushed request had expired, or would within seconds, before the sheet opened: a new one was pushed.
        case pushedRequestRenewed
        /// The callback passed its checks; the code is being exchanged at the token endpoint.
        case exchangingCode
    }

    /// Where the session is stored.
    public var store: any TokenStore { oauth.store }
    public let authenticator: any WebAuthenticator
    /// The transport, clock, logger and DPoP nonces of the client made for each sign-in.
    public var environment: OAuthEnvironment { oauth.environment }
    /// The app's bundle identifier: `{bundle_id}` in the descriptor's redirect, and a scheme an app may always use
    /// (RFC 8252 §7.1).
    public let bundleIdentifier: String?
    /// The front door each sign-in's client is made by: the host's `OAuth` when made through it, else one over the store
    /// and environment given, so that every sign-in to a provider shares its discovery cache.
    package let oauth: OAuth

    /// - Parameters:
    ///   - store: Where the session is stored.
    ///   - authenticator: Shows the provider's page (`SystemWebAuthenticator` in an app).
    ///   - environment: The transport, clock, logger and DPoP nonces of each sign-in's client.
    ///   - bundleIdentifier: The app's bundle identifier; `Bundle.main`'s by default.
    public init(
        store: any TokenStore, authenticator: any WebAuthenticator, environment: OAuthEnvironment = OAuthEnvironment(),
        bundleIdentifier: String? = Bundle.main.bundleIdentifier
    ) {
        self.init(oauth: .over(store: store, environment: environment), authenticator: authenticator, bundleIdentifier: bundleIdentifier)
    }

    /// A sign-in whose clients `oauth` makes, into its store.
    package init(oauth: OAuth, authenticator: any WebAuthenticator, bundleIdentifier: String?) {
        self.oauth = oauth
        self.authenticator = authenticator
        self.bundleIdentifier = bundleIdentifier
    }

    /// Signs in and stores the session.
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - settings: The registered client: its id (an app has no secret), the scopes to ask for, the variables.
    ///   - redirect: Which redirect URI to send; the descriptor's private-use one by default.
    ///   - prefersEphemeral: Share no cookies with the user's browser (`prefersEphemeralWebBrowserSession`).
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - account: The session's account name, to keep several sessions with one provider.
    ///   - events: Receives what happens, in order.
    /// - Returns: The stored session, with the ID token's claims as verified during the sign-in and the profile mapped from them.
    /// - Throws: `FlowError` (`cancelled` when the user cancelled, `invalidRedirectURI` for a redirect or provider no app
    ///   can use), `AuthorizationServerError` (the user or the server said no), `IDTokenError`, `TransportError`,
    ///   `TokenStoreError`.
    @discardableResult
    public func signIn(
        to provider: Provider, settings: ClientSettings, redirect: Redirect = .privateUseScheme, prefersEphemeral: Bool = false,
        requestOfflineAccess: Bool = true, account: String = "default", events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        let redirectURI: URL
        switch redirect {
        case .privateUseScheme:
            redirectURI = try provider.appRedirectURI(clientID: settings.clientID, bundleIdentifier: bundleIdentifier)
        case .claimedHTTPS:
            redirectURI = try provider.appRedirectURI(clientID: settings.clientID, bundleIdentifier: bundleIdentifier, claimedHTTPS: true)
        case .registered(let uri):
            redirectURI = try provider.appRedirectURI(clientID: settings.clientID, bundleIdentifier: bundleIdentifier, requested: uri)
        }
        let configuration = settings.configuration(redirectURI: redirectURI, requestOfflineAccess: requestOfflineAccess)
        let run = SignInRun(client: oauth.client(of: provider, configuration: configuration))
        let sheet = SheetPresenter(authenticator: authenticator, prefersEphemeral: prefersEphemeral, events: events)
        return try await run.run(sheet, account: account, in: store)
    }
}
