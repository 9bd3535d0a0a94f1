import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowWeb

/// Docs/web.md's host example, compiled: the host's own types (a user, a context with sessions) are
/// stand-ins here, as they are the host's choice; every line of the doc's block is below, as written.
enum DocWebExample {
    struct User {
        let provider: String
        let subject: String
        let email: String?
    }

    struct Sessions {
        func setSession(_ user: User) {}
    }

    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
        var sessions: Sessions { Sessions() }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    static func hostEnablingProvidersByName(env: [String: String], router: Router<Context>) throws {
        let oauth = OAuth(OAuth.Configuration(clients: [
            "google": ClientSettings(clientID: env["GOOGLE_CLIENT_ID"]!, secret: Secret(env["GOOGLE_CLIENT_SECRET"]!)),
            "auth0": ClientSettings(clientID: env["AUTH0_CLIENT_ID"]!, secret: Secret(env["AUTH0_SECRET"]!),
                                    variables: ["domain": "example.eu.auth0.com"]),
        ], store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/sessions"))))
        let web = try oauth.webSignIn(enabling: ["google", "auth0"], origin: URL(string: "https://app.example.com")!,
                                      keyring: SessionKeyring(current: .init(id: "2026-11", base64: env["SIGN_IN_KEY"]!)))

        router.addSignInRoutes(web) { result, request, context in
            // Your idea of a signed-in user: `context.sessions` and `User` are your app's (HummingbirdAuth's sessions, a cookie, a JWT).
            context.sessions.setSession(User(provider: result.providerID, subject: result.subject!, email: result.claims["email"]?.stringValue))
            return .redirect(to: result.returnTo)
        }
    }
}
