import Foundation
import OAuthFlow
import OAuthFlowApple
import Observation

/// What the example app shows and does: the three seeds' apps in one, each provider by name. Plain Swift, compiled
/// and run by the package's tests on Linux (Tests/OAuthFlowAppleTests/Example); the SwiftUI views only show it.
///
/// - Google (the Kodeco tutorial): sign in, the user's name and email, the session kept, refreshed after a 401.
/// - Cloudentity (its iOS sample): an ephemeral sign-in, the token's header and payload tabs, a button for each
///   granted scope its `scopeData.json` lists, each calling its resource with the access token.
/// - Auth0 (the DZone article): sign in, userinfo with the Bearer token.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable  // apple-portability: ok the class is @available at Observation's versions (above)
public final class SignInModel {
    /// Where the screen is.
    public enum Phase: Equatable, Sendable {
        case signedOut
        case signingIn(String)
        case signedIn(String)
        /// The device is locked (a launch the system prewarmed before the first unlock, a background launch): the
        /// provider's session cannot be read yet; it is read again when protected data becomes available.
        case waitingForUnlock(String)
        /// A sentence for the user (``SignInModel/message(for:provider:)``); the user's cancel is not a failure and
        /// comes back to `signedOut`. What went wrong in the developer's words is ``SignInModel/detail``.
        case failed(String)
    }

    /// The providers the app offers, by name (their descriptors are bundled with the library or with the app).
    public let providers: [String]
    public private(set) var phase = Phase.signedOut
    /// Who signed in, from the verified ID token and userinfo.
    public private(set) var name: String?
    public private(set) var email: String?
    /// The access token's header and payload as JSON, when it is a JWT (the Cloudentity sample's tabs); nothing here is
    /// verified, it is for showing.
    public private(set) var header: String?
    public private(set) var payload: String?
    /// The resources the granted scopes open (`scopeData.json`): one button each.
    public private(set) var buttons: [Resource] = []
    /// What the last button's call answered.
    public private(set) var answer: String?
    /// The last failure in the library's words, for the app's log or a "details" disclosure; never a token (the
    /// library's errors hold none). The user reads ``Phase/failed(_:)``'s sentence.
    public private(set) var detail: String?

    private let oauth: OAuth
    private let bundleIdentifier: String?
    private let authenticator: @MainActor () -> any WebAuthenticator
    private let protectedDataAvailable: @MainActor () async -> Void

    /// - Parameters:
    ///   - oauth: The front door: descriptors, clients (``AppClients``), the keychain store.
    ///   - providers: The providers offered.
    ///   - bundleIdentifier: The app's bundle identifier.
    ///   - protectedDataAvailable: Returns when the device's protected data may have become available: in the app,
    ///     when UIKit posts `UIApplication.protectedDataDidBecomeAvailableNotification`; by default after five seconds.
    ///   - authenticator: Makes the sign-in sheet: `SystemWebAuthenticator()` in the app, a scripted user in tests.
    public init(
        oauth: OAuth, providers: [String] = ["google-ios", "cloudentity", "auth0"], bundleIdentifier: String? = Bundle.main.bundleIdentifier,
        protectedDataAvailable: @escaping @MainActor () async -> Void = { try? await Task.sleep(nanoseconds: 5_000_000_000) },
        authenticator: @escaping @MainActor () -> any WebAuthenticator
    ) {
        self.oauth = oauth
        self.providers = providers
        self.bundleIdentifier = bundleIdentifier
        self.protectedDataAvailable = protectedDataAvailable
        self.authenticator = authenticator
    }

    /// Signs in to `provider` and shows the session. Cloudentity's sample asks for an ephemeral session.
    public func signIn(to provider: String) async {
        phase = .signingIn(provider)
        do {
            let result = try await oauth.signIn(
                to: provider, authenticator: authenticator(), prefersEphemeral: provider == "cloudentity", bundleIdentifier: bundleIdentifier)
            try await show(result.session, of: provider, profile: result.profile)
        } catch let error as FlowError where error.code == .cancelled {
            phase = .signedOut
        } catch {
            fail(error, provider: provider)
        }
    }

    /// Shows a session already in the store (the app's launch), if there is one. A locked keychain
    /// (`errSecInteractionNotAllowed`: the app launched before the device's first unlock, or in the background with
    /// items readable only while unlocked) is no sign-out: the model waits for protected data and reads again, until
    /// the task is cancelled.
    public func restore(_ provider: String) async {
        while !Task.isCancelled {
            do {
                let session = try await oauth.session(provider).session()
                try await show(session, of: provider, profile: nil)
                return
            } catch let error as TokenStoreError where error.code == .unavailable {
                phase = .waitingForUnlock(provider)
                await protectedDataAvailable()
            } catch let error as SessionError where error.code == .notSignedIn || error.code == .signedOut {
                if phase == .waitingForUnlock(provider) { phase = .signedOut }
                return
            } catch let error as TokenStoreError {
                fail(error, provider: provider)   // a session the store cannot read: say so, never show "signed out"
                return
            } catch {
                // A provider without a client in Info.plist, say: nothing to restore; the developer's words are kept.
                detail = "\(error)"
                if phase == .waitingForUnlock(provider) { phase = .signedOut }
                return
            }
        }
    }

    /// Calls a button's resource with the session's access token; a 401 refreshes the session once and calls again.
    public func tap(_ button: Resource) async {
        guard case .signedIn(let provider) = phase else { return }
        do {
            let response = try await oauth.session(provider).perform(TransportRequest(method: .get, url: button.url))
            answer = "\(button.title): HTTP \(response.status)"
        } catch {
            detail = "\(error)"
            answer = "\(button.title): \(Self.message(for: error, provider: provider))"
        }
    }

    /// Revokes the session at the provider and forgets it.
    public func signOut() async {
        guard case .signedIn(let provider) = phase else { return }
        _ = try? await oauth.signOut(provider)
        phase = .signedOut
        (name, email, header, payload, buttons, answer, detail) = (nil, nil, nil, nil, [], nil, nil)
    }

    /// What a user reads for `error`: what happened and what to do, in their words; the library's sentence goes to
    /// ``detail``.
    public static func message(for error: any Error, provider: String) -> String {
        switch error {
        case let error as AuthorizationServerError where error.error == "access_denied":
            return "Sign-in to \(provider) was declined. You can try again when you are ready."
        case let error as SessionError where error.code == .notSignedIn || error.code == .signedOut:
            return "You are signed out of \(provider). Sign in again to continue."
        case let error as FlowError where error.code == .dpopKeyMissing:
            return "This device can no longer use your \(provider) sign-in. Sign in again to continue."
        case let error as TokenStoreError where error.code == .unavailable:
            return "Unlock your device to continue."
        case is TransportError:
            return "\(provider) could not be reached. Check your connection and try again."
        case is AuthorizationServerError:
            return "\(provider) could not sign you in just now. Try again in a moment."
        case let error as FlowError where error.code == .dpopKeyUnavailable:
            return "Your \(provider) sign-in cannot be used just now. Try again in a moment."
        default:
            return "Signing in to \(provider) did not work. Try again; if it keeps failing, the app may need an update."
        }
    }

    /// Shows `error` as a sentence for the user, keeping the library's words in ``detail``.
    private func fail(_ error: any Error, provider: String) {
        detail = "\(error)"
        phase = .failed(Self.message(for: error, provider: provider))
    }

    private func show(_ session: StoredSession, of provider: String, profile: UserProfile?) async throws {
        var profile = profile
        if profile == nil, let claims = try? await oauth.session(provider).userInfo() {
            profile = UserProfile(subject: claims["sub"]?.stringValue, name: claims["name"]?.stringValue, email: claims["email"]?.stringValue)
        }
        name = profile?.name
        email = profile?.email
        let jwt = try? UnverifiedJWT(session.tokens.accessToken.value)
        header = jwt?.prettyHeader
        payload = jwt?.prettyPayload
        buttons = try oauth.provider(provider).resources.resources(granted: session.tokens.scopes)
        answer = nil
        phase = .signedIn(provider)
    }
}
