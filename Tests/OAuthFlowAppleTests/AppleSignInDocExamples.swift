import Foundation
import OAuthFlow
import OAuthFlowApple
import OAuthFlowTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
#endif
#if canImport(SwiftUI)
import SwiftUI
#endif

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

    /// Docs/apple.md, "Sign in with Apple, natively": made in a nonisolated function, as the guide says it may be.
    static func nativeAppleSignIn(oauth: OAuth) throws -> AppleIDSignIn {
        let apple = AppleIDSignIn(provider: try oauth.provider("apple", variables: ["team_id": "ABCDE12345"]), authorizer: SystemAppleIDAuthorizer())
        return apple
    }

    /// Docs/apple.md, "Apple's own button": what SwiftUI's button's two closures call, type-checked.
    @MainActor static func appleButton(apple: AppleIDSignIn, request: ASAuthorizationAppleIDRequest, completion: Result<ASAuthorization, any Error>) async throws -> AppleIDSignIn.Result {
        var pending: AppleIDSignIn.Request?
        pending = apple.fill(request)
        let result = try await apple.verify(completion, of: pending)
        return result
    }
    #endif

    #if canImport(SwiftUI)
    /// Docs/apple.md, "Apple's own button": the SwiftUI view (no Linux build compiles SwiftUI; `appleButton` above
    /// type-checks the two calls).
    struct AppleButton: View {
        let apple: AppleIDSignIn
        let model: AppleAccountModel
        @State private var pending: AppleIDSignIn.Request?

        var body: some View {
            SignInWithAppleButton(.signIn) { request in
                pending = apple.fill(request)
            } onCompletion: { completion in
                Task {
                    do {
                        let result = try await apple.verify(completion, of: pending)
                        model.signedIn(result)
                    } catch {
                        model.failed(error)
                    }
                }
            }
        }
    }

    /// What the view hands the sign-in's outcome to.
    @MainActor final class AppleAccountModel {
        var message = ""
        func signedIn(_ result: AppleIDSignIn.Result) { message = "" }
        func failed(_ error: any Error) { message = "Sign in with Apple did not finish. Try again." }
    }
    #endif

    /// The app's own record of its users' names and e-mail addresses (the guide's `profiles`).
    final class Profiles: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [String: (name: PersonNameComponents?, email: String?)] = [:]

        func keep(name: PersonNameComponents?, email: String?, for user: String) {
            guard name != nil || email != nil else { return }
            lock.withLock { kept[user] = (name, email) }
        }

        func name(of user: String) -> PersonNameComponents? { lock.withLock { kept[user]?.name } }
        func email(of user: String) -> String? { lock.withLock { kept[user]?.email } }
    }

    /// Docs/apple.md, "Sign in with Apple, natively": the sign-in, the name and e-mail kept whatever happens to the
    /// check. Returns the verified result, or the unverified answer to verify later.
    static func signInWithApple(apple: AppleIDSignIn, profiles: Profiles) async throws -> (AppleIDSignIn.Result?, AppleIDSignIn.UnverifiedCredential?) {
        var retry: AppleIDSignIn.UnverifiedCredential?
        do {
            let result = try await apple.signIn()
            profiles.keep(name: result.fullName, email: result.email, for: result.user)   // the first authorization only
            // To the app's server: result.authorizationCode, result.identityToken, result.nonce (over TLS, once).
            return (result, nil)
        } catch let unverified as AppleIDSignIn.UnverifiedCredential {
            // Apple answered; the check here failed (no network for Apple's keys, the clock off): keep what Apple gives once.
            profiles.keep(name: unverified.fullName, email: unverified.email, for: unverified.credential.user)
            retry = unverified   // later: try await apple.verify(retry.credential, of: retry.request)
        } catch let error as FlowError where error.code == .cancelled {
            // The user closed the sheet: show the sign-in screen again, no alert.
        }
        return (nil, retry)
    }

    /// Docs/apple.md, "Sign in with Apple, natively": at launch and on `credentialRevokedNotification`.
    static func checkCredentialState(apple: AppleIDSignIn, userID: String, signOutLocally: () -> Void, migrate: (AppleIDSignIn.Result) -> Void) async throws {
        switch try await apple.credentialState(forUser: userID) {
        case .authorized: break
        case .revoked, .notFound: signOutLocally()
        case .transferred: migrate(try await apple.signIn(scopes: [], user: userID))   // the app moved to another team
        case .unknown: break   // a state this library does not know: keep the session, ask again later
        }
    }

    #if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
    /// Docs/apple.md, "Main actor, threads and one `OAuth`": a view model on the main actor makes the authenticator.
    @MainActor final class AccountModel {
        let oauth: OAuth
        var message = ""
        var detail = ""

        init(oauth: OAuth) {
            self.oauth = oauth
        }

        func signInTapped() async {
            do {
                let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
                message = result.profile?.name ?? "signed in"
            } catch let error as FlowError where error.code == .cancelled {
                message = ""
            } catch let error as TransportError {
                message = "Google could not be reached. Check your connection and try again."
                detail = "\(error)"   // the library's words: for the app's log, not the user
            } catch {
                message = "Signing in with Google did not work. Try again."
                detail = "\(error)"
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

    /// Docs/apple.md, "Step-up from an app": the API's step-up challenge read from the app's own URLSession.
    @MainActor static func stepUp(oauth: OAuth, authorizer: URLRequestAuthorizer) async throws {
        let (data, response) = try await authorizer.data(for: URLRequest(url: URL(string: "https://api.example.com/transfers")!))
        if response.statusCode == 401,
            let stepUp = ProtectedResource.StepUp(challenges: [response.value(forHTTPHeaderField: "WWW-Authenticate") ?? ""])
        {
            try await oauth.signIn(to: "auth0", authenticator: SystemWebAuthenticator(), stepUp: stepUp)   // then send it again
        }
        _ = data
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
