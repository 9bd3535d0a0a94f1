import Foundation
import Hummingbird
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowWeb

/// Docs/sign-in-with-apple.md's Swift lines, compiled here (DocExampleTests checks that each appears in this
/// file); CatalogShapeTests runs Apple's sign-in, profile and refresh against a stand-in that answers as Apple
/// documents, and AppleSignInRouteTests runs it through the Hummingbird routes.
enum AppleDocExamples {
    struct AppUser {
        let subject: String
        let name: String?
        var sessionAccount = ""
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    static func host(env: [String: String], keyring: SessionKeyring, store: any TokenStore, router: Router<BasicRequestContext>) throws {
        let apple = ClientSettings(
            clientID: "com.example.web",   // the Services ID
            variables: ["team_id": "ABCDE12345"],
            signingKey: try ClientConfiguration.SigningKey(pem: String(contentsOfFile: "/run/secrets/AuthKey_KEY123ABCD.p8", encoding: .utf8), keyID: "KEY123ABCD"))
        let oauth = OAuth(OAuth.Configuration(clients: ["apple": apple], store: store))
        let web = try oauth.webSignIn(enabling: ["apple"], origin: URL(string: "https://app.example.com")!, keyring: keyring)

        router.addSignInRoutes(web) { result, _, _ in
            // Apple sends the name on the first consent only: keep it now (result.profile.name is nil afterwards).
            let user = AppUser(subject: result.subject ?? "", name: result.profile.name, sessionAccount: result.session?.account ?? "")
            _ = user   // keep it with your user: `sessionAccount` is what deleteAccount(_:account:) names
            return .redirect(to: result.returnTo)
        }
    }

    /// "When a user deletes their account".
    static func deleteAccount(oauth: OAuth, user: AppUser) async throws {
        let deletion = try await oauth.deleteAccount("apple", account: user.sessionAccount)
        if !deletion.revokedEverywhere {
            print("not revoked yet:", deletion.revocationFailures.keys.map(\.account))   // call deleteAccount again later
        }
    }
}
