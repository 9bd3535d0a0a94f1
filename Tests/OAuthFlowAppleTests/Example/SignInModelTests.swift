import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

import OAuthFlowApple

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
        #expect(message.contains("web_only"), "\(message)")
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
