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
        /// A sentence to show; the user's cancel is not a failure and comes back to `signedOut`.
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

    private let oauth: OAuth
    private let bundleIdentifier: String?
    private let authenticator: @MainActor () -> any WebAuthenticator

    /// - Parameters:
    ///   - oauth: The front door: descriptors, clients (``AppClients``), the keychain store.
    ///   - providers: The providers offered.
    ///   - bundleIdentifier: The app's bundle identifier.
    ///   - authenticator: Makes the sign-in sheet: `SystemWebAuthenticator()` in the app, a scripted user in tests.
    public init(
        oauth: OAuth, providers: [String] = ["google-ios", "cloudentity", "auth0"], bundleIdentifier: String? = Bundle.main.bundleIdentifier,
        authenticator: @escaping @MainActor () -> any WebAuthenticator
    ) {
        self.oauth = oauth
        self.providers = providers
        self.bundleIdentifier = bundleIdentifier
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
            phase = .failed("\(error)")
        }
    }

    /// Shows a session already in the store (the app's launch), if there is one.
    public func restore(_ provider: String) async {
        guard let manager = try? await oauth.session(provider), let session = try? await manager.session() else { return }
        try? await show(session, of: provider, profile: nil)
    }

    /// Calls a button's resource with the session's access token; a 401 refreshes the session once and calls again.
    public func tap(_ button: Resource) async {
        guard case .signedIn(let provider) = phase else { return }
        do {
            let response = try await oauth.session(provider).perform(TransportRequest(method: .get, url: button.url))
            answer = "\(button.title): HTTP \(response.status)"
        } catch {
            answer = "\(button.title): \(error)"
        }
    }

    /// Revokes the session at the provider and forgets it.
    public func signOut() async {
        guard case .signedIn(let provider) = phase else { return }
        _ = try? await oauth.signOut(provider)
        phase = .signedOut
        (name, email, header, payload, buttons, answer) = (nil, nil, nil, nil, [], nil)
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
