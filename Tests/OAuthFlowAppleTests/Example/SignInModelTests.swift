import Foundation
@testable import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlowApple

/// Examples/AppleSignIn's model (SignInModel.swift and AppClients.swift, linked here from Examples/AppleSignIn/Model):
/// what its SwiftUI views show, run against the seeds' providers on Linux.
@MainActor
@Suite struct SignInModelTests {
    /// Cloudentity's sample in the app: an ephemeral sign-in, the token tabs, the scopeData.json buttons, a button's call.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cloudentityShowsTheTokenTabsAndTheGrantedButtons() async throws {
        let simulated = try SimulatedProvider(
            issuer: URL(string: "https://acme.us.authz.cloudentity.io/acme/demo")!,
            settings: { var settings = SimulatedProvider.Settings(); settings.accessTokenFormat = .jwt; return settings }(),
            clients: [
                .public(id: "c0ffee", redirectURIs: [URL(string: "oauth://com.example.simple-pkce")!]),
                .confidential(id: SimulatedProvider.serviceClientID, secret: SimulatedProvider.serviceSecret),
            ])
        let seed = try SeedProvider("cloudentity", at: simulated, copying: ["cloudentity-scopeData.json"])
        defer { seed.cleanUp() }
        let clients = try AppClients.settings(infoDictionary: try Self.infoPlist())
        let resources = ResourceServer(base: simulated.transport, simulated: simulated)
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [seed.directory], clients: clients,
                environment: OAuthEnvironment(transport: resources, clock: simulated.clock, nonces: simulated.nonces)))
        let user = ScriptedUser(simulated, moves: [.cancel, .approve(subject: "ada")])
        let model = SignInModel(oauth: oauth, bundleIdentifier: "com.example.simple-pkce") { user }

        await model.signIn(to: "cloudentity")
        #expect(model.phase == .signedOut, "the user's cancel is no failure: \(model.phase)")
        await model.signIn(to: "cloudentity")
        #expect(model.phase == .signedIn("cloudentity"), "\(model.phase)")
        #expect(user.sheets.last?.prefersEphemeral == true)
        #expect(model.header?.contains("\"alg\"") == true && model.payload?.contains("\"sub\" : \"ada\"") == true, "\(model.payload ?? "-")")
        #expect(model.buttons.map(\.title).sorted() == ["Balance", "Some name", "Transfer"])
        await model.tap(try #require(model.buttons.first { $0.title == "Balance" }))
        #expect(model.answer == "Balance: HTTP 200")
        await model.signOut()
        #expect(model.phase == .signedOut && model.buttons.isEmpty)
    }

    /// A provider refused before the sheet opens is a sentence on the screen, not a crash.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFailureIsShownAsASentence() async throws {
        let oauth = OAuth(OAuth.Configuration(clients: ["apple": ClientSettings(clientID: "com.example.web", variables: ["team_id": "ABCDE12345"])]))
        let model = SignInModel(oauth: oauth, providers: ["apple"], bundleIdentifier: "com.example.app") {
            ScriptedUser(try! SimulatedProvider())
        }
        await model.signIn(to: "apple")
        guard case .failed(let message) = model.phase else {
            Issue.record("\(model.phase)")
            return
        }
        #expect(message == "Signing in to apple did not work. Try again; if it keeps failing, the app may need an update.", "\(message)")
        #expect(model.detail?.contains("web_only") == true, "the library's words are kept for the developer: \(model.detail ?? "-")")
    }

    /// What a user reads for each kind of failure: what happened and what to do, never the library's error text.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aUserReadsWhatHappenedAndWhatToDo() {
        let url = URL(string: "https://example.com/token")!
        let cases: [(any Error, String)] = [
            (TransportError(.unreachable, url: url, message: "connection refused"), "could not be reached. Check your connection"),
            (AuthorizationServerError(error: "access_denied"), "was declined"),
            (AuthorizationServerError(error: "server_error"), "could not sign you in just now"),
            (SessionError(.signedOut, "the provider refused the refresh token"), "You are signed out of acme. Sign in again"),
            (FlowError(.dpopKeyMissing, "gone"), "can no longer use your acme sign-in. Sign in again"),
            (FlowError(.dpopKeyUnavailable, "busy"), "cannot be used just now"),
            (TokenStoreError(.unavailable, "errSecInteractionNotAllowed (-25308)"), "Unlock your device"),
        ]
        for (error, expected) in cases {
            let message = SignInModel.message(for: error, provider: "acme")
            #expect(message.contains(expected), "\(error): \(message)")
            #expect(!message.contains("\(error)") && !message.contains("_"), "\(message)")
        }
    }

    /// A launch that finds the keychain locked (a prewarmed launch before the first unlock) waits for protected data
    /// and shows the session then, instead of the sign-in screen.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aLockedKeychainAtLaunchWaitsForTheUnlockInsteadOfSigningOut() async throws {
        let simulated = try SimulatedProvider(
            issuer: URL(string: "https://acme.us.authz.cloudentity.io/acme/demo")!,
            clients: [.public(id: "c0ffee", redirectURIs: [URL(string: "oauth://com.example.simple-pkce")!])])
        let seed = try SeedProvider("cloudentity", at: simulated, copying: ["cloudentity-scopeData.json"])
        defer { seed.cleanUp() }
        let clients = try AppClients.settings(infoDictionary: try Self.infoPlist())
        let keychain = InMemoryKeychain()
        func oauth() -> OAuth {
            OAuth(
                OAuth.Configuration(
                    providerDirectories: [seed.directory], clients: clients, store: KeychainTokenStore.testing(keychain),
                    environment: simulated.environment))
        }
        let user = ScriptedUser(simulated, moves: [.approve(subject: "ada")])
        let first = SignInModel(oauth: oauth(), providers: ["cloudentity"], bundleIdentifier: "com.example.simple-pkce") { user }
        await first.signIn(to: "cloudentity")
        #expect(first.phase == .signedIn("cloudentity"), "\(first.phase)")

        keychain.device = .beforeFirstUnlock
        let waits = Locked(0)
        let relaunched = SignInModel(
            oauth: oauth(), providers: ["cloudentity"], bundleIdentifier: "com.example.simple-pkce",
            protectedDataAvailable: {
                waits.withLock { $0 += 1 }
                if waits.current == 2 { keychain.device = .unlocked }   // the user unlocks while the app waits
            }
        ) { user }
        await relaunched.restore("cloudentity")
        #expect(relaunched.phase == .signedIn("cloudentity"), "\(relaunched.phase): \(relaunched.detail ?? "-")")
        #expect(waits.current == 2, "read again each time protected data may have come back")
        #expect(try await KeychainTokenStore.testing(keychain).load(SessionKey(providerID: "cloudentity", account: "default")) != nil)
    }

    /// The app's Info.plist holds its clients: ids and variables, never a secret.
    @Test func infoPlistClients() throws {
        let clients = try AppClients.settings(infoDictionary: try Self.infoPlist())
        #expect(Set(clients.keys) == ["google-ios", "cloudentity", "auth0"])
        #expect(clients["google-ios"]?.clientID == "1234-abc.apps.googleusercontent.com" && clients["google-ios"]?.secret == nil)
        #expect(clients["cloudentity"]?.variables["app_scheme"] == "oauth")
        #expect(throws: AppClients.Problem.self) {
            try AppClients.settings(infoDictionary: [AppClients.key: ["x": ["ClientID": "a", "ClientSecret": "b"]]])
        }
        #expect(throws: AppClients.Problem.self) { try AppClients.settings(infoDictionary: [AppClients.key: ["x": ["Variables": [:]]]]) }
        #expect(try AppClients.settings(infoDictionary: [:]).isEmpty)
    }

    /// Examples/AppleSignIn/App/Info.plist, read as the app reads it.
    static func infoPlist() throws -> [String: Any] {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Examples/AppleSignIn/App/Info.plist"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }
}
