import Foundation
import OAuthFlow
import OAuthFlowApple
import OAuthFlowTesting

/// The Swift lines of Docs/apple.md's app sign-in sections and of OAuthFlowApple's DocC landing page, compiled here
/// (DocExampleTests checks that each appears in this file). The lines that name `SystemWebAuthenticator` sit behind the
/// same `#if` as it: scripts/apple-typecheck.sh type-checks them against the AuthenticationServices shim;
/// `AppleSignInDocExampleTests` runs the others.
enum AppleSignInDocExamples {
    #if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
    /// Docs/apple.md, "5. Sign in, and the user's cancel".
    @MainActor static func quickStart(store: any TokenStore) async throws {
        let oauth = OAuth(OAuth.Configuration(clients: ["google-ios": ClientSettings(clientID: "1234-abc.apps.googleusercontent.com")], store: store))
        do {
            let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
            print("signed in:", result.profile?.name ?? result.idToken?.subject ?? "")
        } catch let error as FlowError where error.code == .cancelled {
            // The user closed the sheet: show the sign-in screen again, no alert.
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
