import Foundation
import OAuthFlow
import OAuthFlowApple
import OAuthFlowTesting

/// The Swift lines of Docs/apple.md's app sign-in sections and of OAuthFlowApple's DocC landing page, compiled here
/// (DocExampleTests checks that each appears in this file). The lines that name `SystemWebAuthenticator` sit behind the
/// same `#if` as it: scripts/apple-typecheck.sh type-checks them against the AuthenticationServices shim;
/// `AppleSignInDocExampleTests` runs the others.
enum AppleSignInDocExamples {
    /// Docs/apple.md, "Sign in with Apple, natively": the app's server redeems what the app sent (AppleIDSignInTests runs
    /// it against a stand-in of Apple).
    static func redeem(oauth: OAuth, code: String, identityToken: String, nonce: String) async throws -> String {
        let signedIn = try await oauth.redeemPlatformCode(Secret(code), identityToken: Secret(identityToken), nonce: Secret(nonce), issuedTo: "apple")
        let sub = signedIn.session.key.account   // the verified user: the account to delete later
        return sub
    }

    #if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
    /// Docs/apple.md, "5. Sign in, and the user's cancel".
    @MainActor static func quickStart() async throws {
        let store = try KeychainTokenStore()   // sessions in the keychain, under KeychainTokenStore.defaultService
        let oauth = OAuth(OAuth.Configuration(clients: ["google-ios": ClientSettings(clientID: "1234-abc.apps.googleusercontent.com")], store: store))
        do {
            let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
            print("signed in:", result.profile?.name ?? result.idToken?.subject ?? "")
        } catch let error as FlowError where error.code == .cancelled {
            // The user closed the sheet: show the sign-in screen again, no alert.
        }
    }

    /// Docs/apple.md, "Sign in with Apple, natively".
    @MainActor static func nativeAppleSignIn(oauth: OAuth, userID: String, signOutLocally: () -> Void) async throws {
        let apple = AppleIDSignIn(provider: try oauth.provider("apple", variables: ["team_id": "ABCDE12345"]), authorizer: SystemAppleIDAuthorizer())
        let result = try await apple.signIn()
        // To the app's server: result.authorizationCode, result.identityToken, result.nonce (over TLS, once).
        // Keep result.user, Apple's stable id of the user, to ask about them later.
        _ = result
        if try await !apple.isAuthorized(userID) { signOutLocally() }
    }

    /// Docs/apple.md, "Main actor, threads and one `OAuth`": a view model on the main actor makes the authenticator.
    @MainActor final class AccountModel {
        let oauth: OAuth
        var message = ""

        init(oauth: OAuth) {
            self.oauth = oauth
        }

        func signInTapped() async {
            do {
                let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
                message = result.profile?.name ?? "signed in"
            } catch let error as FlowError where error.code == .cancelled {
                message = ""
            } catch {
                message = "\(error)"
            }
        }
    }

    /// Docs/apple.md, "Signing out": the session revoked and deleted, then the provider's own session ended in the sheet.
    @MainActor static func signOut(oauth: OAuth) async throws {
        let signedOut = try await oauth.signOut("auth0", endingProviderSession: .init(postLogoutRedirectURI: URL(string: "com.example.notes://signed-out")))
        if let request = signedOut.endSession, let back = request.postLogoutRedirectURI {
            let returned = try await SystemWebAuthenticator().authenticate(at: request.url, redirectURI: back, prefersEphemeral: false)
            let checked = request.acceptsReturn(query: URLComponents(url: returned, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            print(checked ? "signed out here and at the provider" : "signed out here; the provider's answer was not ours")
        }
    }

    /// OAuthFlowApple's landing page.
    @MainActor static func landing(oauth: OAuth) async throws {
        let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
        print("signed in:", result.idToken?.subject ?? "(plain OAuth)")
    }
    #endif

    /// Docs/apple.md, "6. Call the API, refreshing after a 401".
    static func refreshAfter401(oauth: OAuth) async throws -> TransportResponse {
        let answer = try await oauth.session("google-ios").perform(TransportRequest(method: .get, url: URL(string: "https://openidconnect.googleapis.com/v1/userinfo")!))
        return answer
    }

    /// Docs/apple.md, "2. Register the app at the provider": the redirect an app signs in with, and Cloudentity's scheme.
    static func redirects(oauth: OAuth) throws -> (URL, ClientSettings) {
        let google = try oauth.provider("google-ios")
        print(try google.appRedirectURI(clientID: "1234-abc.apps.googleusercontent.com", bundleIdentifier: Bundle.main.bundleIdentifier))   // com.googleusercontent.apps.1234-abc:/oauth2redirect
        let cloudentity = ClientSettings(clientID: "c0ffee", variables: ["tenant": "acme", "region": "us", "workspace": "demo", "app_scheme": "oauth"])
        return (try google.appRedirectURI(clientID: "1234-abc.apps.googleusercontent.com", bundleIdentifier: nil), cloudentity)
    }

    /// Docs/apple.md, "Signing out": without the provider's session.
    static func signOutHere(oauth: OAuth) async throws {
        try await oauth.signOut("google-ios")
    }

    /// Docs/apple.md, "Who is signed in after a relaunch".
    static func relaunch(oauth: OAuth) async throws -> [String]? {
        do {
            let session = try await oauth.session("cloudentity").session()
            print("signed in; granted:", session.scopes)
            return session.scopes
        } catch let error as SessionError where error.code == .notSignedIn || error.code == .signedOut {
            // Nobody is signed in, or the provider refused the refresh token: show the sign-in screen.
            return nil
        }
    }

    /// Docs/apple.md, "Buttons for the granted scopes": the types, after a relaunch.
    static func buttonsAfterRelaunch(oauth: OAuth) async throws -> [Resource] {
        let granted: [String] = try await oauth.session("cloudentity").session().scopes
        let buttons: [Resource] = try oauth.provider("cloudentity").resources.resources(granted: granted)
        return buttons
    }

    /// Docs/apple.md, "Buttons for the granted scopes".
    static func buttons(oauth: OAuth, result: SignInResult) async throws {
        let buttons = try oauth.provider("cloudentity").resources.resources(granted: result.tokens.scopes)
        for button in buttons {
            let response = try await oauth.session("cloudentity").perform(TransportRequest(method: .get, url: button.url))
            print(button.title, response.status)
        }
    }

    /// Docs/apple.md, "The app sign-in": a host's test plays the user.
    struct ApprovingUser: WebAuthenticator {
        let simulated: SimulatedProvider
        func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
            try await simulated.approve(url)
        }
    }

    /// Docs/apple.md, "Showing a token".
    static func tabs(result: SignInResult) {
        if let jwt = try? UnverifiedJWT(result.tokens.accessToken.value) {
            print(jwt.prettyHeader, jwt.prettyPayload)
        }
    }
}
