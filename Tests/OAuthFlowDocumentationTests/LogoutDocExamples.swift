import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowLoopback
import OAuthFlowPostgres
import OAuthFlowWeb
import PostgresNIO

/// Docs/logout.md's Swift lines, compiled here (DocExampleTests checks that each appears in this file).
/// LoginCLITests runs the native sign-out against DOT, SharedLogoutEndToEndTests the web one (two instances
/// sharing PostgreSQL) against the idpyoidc logout server, WebSignOutTests the routes one by one.
enum LogoutDocExamples {
    /// The host's own session, a stand-in: it keeps only the stored session's key.
    struct AppSession {
        func key(for request: Request) -> SessionKey? { nil }
        func set(_ key: SessionKey?, for request: Request) {}
        func clear(for request: Request) {}
    }

    static func native(oauth: OAuth) async throws {
        let browser = SystemBrowser(environment: ProcessInfo.processInfo.environment)
        let ended = try await oauth.signOut("keycloak", providerSession: .endInBrowser, browser: browser)
        print(ended.endedAtProvider ? "signed out here and at the provider" : "signed out here")
    }

    static func ownBrowser(oauth: OAuth, browser: any BrowserOpener) async throws {
        let signedOut = try await oauth.signOut("keycloak", endingProviderSession: .init(postLogoutRedirectURI: URL(string: "myapp://signed-out")))
        if let request = signedOut.endSession { try await browser.open(request.url) }   // it holds the ID token: open it, never print it; then request.acceptsReturn(query:)
    }

    static func underneath(client: OAuthClient, provider: Provider, store: FileTokenStore, browser: any BrowserOpener) async throws {
        let manager = TokenManager(client: client, store: store, key: SessionKey(providerID: "keycloak"))
        let result = try await LoopbackSignOut(browser: browser).signOut(manager, provider: provider, providerSession: .endInBrowser)
        print(result.endedAtProvider ? "signed out here and at the provider" : "signed out here")
        let signOut = try await manager.signOut(endingProviderSession: .init(postLogoutRedirectURI: URL(string: "myapp://signed-out")))
        _ = signOut
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    static func web(
        clients: [String: ClientSettings], keyring: SessionKeyring, postgres: PostgresClient.Configuration,
        router: Router<BasicRequestContext>, appSession: AppSession
    ) throws {
        let store = try PostgresTokenStore(configuration: postgres, keyring: keyring)
        let oauth = OAuth(OAuth.Configuration(clients: clients, store: store))
        let web = try oauth.webSignIn(
            enabling: ["google", "auth0"], origin: URL(string: "https://app.example.com")!, keyring: keyring,
            replays: try PostgresReplayRegistry(store: store))

        router.addSignInRoutes(web) { result, request, _ in
            appSession.set(result.session, for: request)   // only the key: the tokens stay in the store
            return .redirect(to: result.returnTo)
        }
        router.addSignOutRoutes(web, currentSession: { request, _ in appSession.key(for: request) }) { request, _ in
            appSession.clear(for: request)
        }
    }

    static func onEachRequest(web: WebSignIn, appSession: AppSession, request: Request) async throws {
        guard let key = appSession.key(for: request), try await web.isSignedIn(key) else { return }   // ended by the provider?
        let accessToken = try await web.accessToken(for: key)   // refreshed when it has expired
        _ = accessToken
    }
}
