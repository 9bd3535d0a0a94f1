import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow

/// A sign-in whose halves run in two processes (`OAuth.startManualSignIn`, then `finishManualSignIn`), the library
/// call `oauthflow authorize-url` and `login --callback-url` make: its state kept 0600 beside the file store's
/// sessions, kept through a URL that is not its own, spent by anything else, and finished only by its own client.
@Suite struct ManualSignInTests {
    private struct Setup {
        let simulated: SimulatedProvider
        let directory: TemporaryDirectory
        let sessions: URL

        init() throws {
            simulated = try SimulatedProvider()
            directory = try TemporaryDirectory()
            sessions = directory.url.appendingPathComponent("sessions")
            try Data(simulated.descriptorText(.init()).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        }

        /// A process's `OAuth`: each call makes a new one, sharing only the files.
        func oauth(clientID: String = SimulatedProvider.appClientID, store: (any TokenStore)? = nil) -> OAuth {
            OAuth(
                OAuth.Configuration(
                    providerDirectories: [directory.url], includeBundledProviders: false,
                    clients: ["simulated": ClientSettings(clientID: clientID)], store: store ?? FileTokenStore(directory: sessions),
                    environment: simulated.environment))
        }

        var pendingPath: String {
            FileTokenStore(directory: sessions).companionPath(for: SessionKey(providerID: "simulated"), suffix: ".pending.json")
        }
    }

    @Test func aSignInStartedInOneProcessIsFinishedInAnother() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        #expect(started.redirectURI.absoluteString == "http://127.0.0.1:\(OAuth.ManualSignIn.defaultPort)/callback" && started.usesDefaultPort)
        #expect(started.clientID == SimulatedProvider.appClientID)
        let mode = try FileManager.default.attributesOfItem(atPath: setup.pendingPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try setup.oauth().manualSignIn(to: "simulated") == started)

        let callback = try await setup.simulated.approve(started.url, subject: "user-3")
        let finishing = setup.oauth()
        let result = try await finishing.finishManualSignIn(to: "simulated", callback: callback)
        #expect(result.idToken?.subject == "user-3")
        #expect(try await finishing.accessToken(for: "simulated") == result.tokens.accessToken)
        #expect(!FileManager.default.fileExists(atPath: setup.pendingPath), "a sign-in is finished once")
        let again = try await #require(throws: FlowError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback) }
        #expect(again.code == .manualSignIn)
    }

    @Test func aPortGivenIsTheRedirectURIsAndNotTheDefault() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated", account: "work", port: 9123)
        #expect(started.redirectURI.port == 9123 && !started.usesDefaultPort)
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil, "kept for its own account only")
        #expect(try setup.oauth().manualSignIn(to: "simulated", account: "work")?.redirectURI.port == 9123)
    }

    /// A forged or mistyped URL spends nothing and keeps the sign-in: the genuine URL still finishes it.
    @Test func aURLThatIsNotTheSignInsKeepsIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        var forged = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
        forged.queryItems = forged.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth().finishManualSignIn(to: "simulated", callback: try #require(forged.url))
        }
        #expect(error.code == .stateMismatch)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
        #expect(await setup.simulated.requestCount(.token) == 0)
        _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
    }

    /// The provider's refusal, with the sign-in's own state, ends it: a code may have been spent.
    @Test func aRefusalEndsTheSignIn() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let denied = try await setup.simulated.deny(started.url)
        await #expect(throws: AuthorizationServerError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: denied) }
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil)
    }

    /// The code goes to the client it was issued to, and only there: another client's settings are refused before
    /// anything is sent, and the sign-in is kept for its own.
    @Test func onlyTheClientThatStartedItFinishesIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth(clientID: "another-client").finishManualSignIn(to: "simulated", callback: callback)
        }
        #expect(error.code == .manualSignIn && error.message.contains(SimulatedProvider.appClientID))
        #expect(await setup.simulated.requestCount(.token) == 0)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
    }

    @Test func aStoreThatKeepsNoFilesIsToldPlainly() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth(store: InMemoryTokenStore()).startManualSignIn(to: "simulated")
        }
        #expect(error.code == .manualSignIn && error.message.contains("FileTokenStore"))
        #expect(await setup.simulated.requestCount(.pushedAuthorization) == 0)
    }
}
