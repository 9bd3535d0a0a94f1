import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The one authorization-code run every sign-in goes through: its order (started before the presenter, stored after
/// it), the pushed request renewed, a failure that stores nothing, a corrupt session kept, and `OAuth`'s runs sharing
/// the provider's discovery cache.
@Suite struct SignInRunTests {
    @Test func theRequestStartsBeforeThePresenterAndTheSessionIsStoredAfterIt() async throws {
        let simulated = try SimulatedProvider()
        let run = SignInRun(client: try Simulated.appClient(simulated))
        let presenter = Simulated.Approving(simulated: simulated)
        let store = InMemoryTokenStore()
        let result = try await run.run(presenter, account: "work", in: store)
        #expect(presenter.shown.current.count == 1)
        #expect(result.idToken?.subject == "user-7")
        let stored = try #require(await store.load(SessionKey(providerID: "simulated", account: "work")))
        #expect(stored.tokens.accessToken == result.tokens.accessToken)
        #expect(stored.redirectURI == Simulated.redirect && stored.clientID == SimulatedProvider.appClientID)
    }

    @Test func aClientThatCannotWorkFailsBeforeThePresenterIsShown() async throws {
        let simulated = try SimulatedProvider()
        var options = SimulatedProvider.DescriptorOptions()
        options.clientAuthentication = [.clientSecretBasic]
        let run = SignInRun(client: try Simulated.appClient(simulated, options))
        let presenter = Simulated.Approving(simulated: simulated)
        await #expect(throws: FlowError.self) { try await run.run(presenter, in: InMemoryTokenStore()) }
        #expect(presenter.shown.current.isEmpty)
        #expect(await simulated.requestCount(.token) == 0)
    }

    @Test func aRefusedSignInStoresNothing() async throws {
        let simulated = try SimulatedProvider()
        let run = SignInRun(client: try Simulated.appClient(simulated))
        let store = InMemoryTokenStore()
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await run.run(Simulated.Approving(simulated: simulated, denies: true), in: store)
        }
        #expect(error.error == "access_denied")
        #expect(await store.load(SessionKey(providerID: "simulated")) == nil)
    }

    /// RFC 9126 §2.2: a pushed request about to expire is pushed again; one that can still be opened is kept, and a
    /// request that was never pushed never expires.
    @Test func aPushedRequestIsRenewedOnlyWhenItCanNoLongerBeOpened() async throws {
        let simulated = try SimulatedProvider()
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = true
        let run = SignInRun(client: try Simulated.appClient(simulated, options))
        let pending = try await run.start()
        let expiry = try #require(pending.requestExpiresAt)
        #expect(try await run.renewed(pending) == nil)
        simulated.clock.advance(expiry.timeIntervalSince(simulated.clock.now()) - SignInRun.renewalMargin + 1)
        let renewed = try #require(try await run.renewed(pending))
        #expect(renewed.url != pending.url && renewed.state != pending.state)
        #expect(await simulated.requestCount(.pushedAuthorization) == 2)

        let plain = SignInRun(client: try Simulated.appClient(simulated))
        let unpushed = try await plain.start()
        simulated.clock.advance(86_400)
        #expect(try await plain.renewed(unpushed) == nil)
    }

    @Test func anUnreadableStoredSessionIsKeptBesideTheNewOne() async throws {
        let simulated = try SimulatedProvider()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("sessions"))
        let key = SessionKey(providerID: "simulated")
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("sessions"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: store.path(for: key), contents: Data("{not json".utf8), attributes: [.posixPermissions: 0o600])
        let kept = Locked<[String]>([])
        let run = SignInRun(client: try Simulated.appClient(simulated))
        _ = try await run.run(Simulated.Approving(simulated: simulated), in: store) { path in kept.withLock { $0.append(path) } }
        let path = try #require(kept.current.first)
        #expect(FileManager.default.contents(atPath: path) == Data("{not json".utf8))
        #expect(try await store.load(key) != nil)
    }

    /// Every run `OAuth` makes for a provider shares its discovery cache: the document is fetched once.
    @Test func runsMadeByTheFrontDoorShareTheProvidersDiscovery() async throws {
        let simulated = try SimulatedProvider()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [directory.url], includeBundledProviders: false,
                clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: InMemoryTokenStore(),
                environment: simulated.environment))
        for _ in 0..<3 {
            let run = try oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
            _ = try await run.run(Simulated.Approving(simulated: simulated), in: oauth.store)
        }
        #expect(await simulated.requestCount(.openIDConfiguration) == 1)
        // The manager made for the first session gives the newest tokens, not those it held before the last run.
        let manager = try await oauth.session("simulated")
        let before = try await oauth.accessToken(for: "simulated")
        let newest = try await oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect).run(Simulated.Approving(simulated: simulated), in: oauth.store)
        #expect(try await oauth.accessToken(for: "simulated") == newest.tokens.accessToken && newest.tokens.accessToken != before)
        #expect(try await oauth.session("simulated") !== manager)
        #expect(throws: ClientSettingsError.self) { try oauth.signInRun(to: "other", redirectURI: Simulated.redirect) }
    }

    /// The API `OAuth` makes trusts the provider through the same discovery cache as its sign-ins: the document is
    /// fetched once for both (it was fetched again for the API before).
    @Test func anAPIMadeByTheFrontDoorSharesTheProvidersDiscovery() async throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let simulated = try SimulatedProvider(settings: settings)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        options.accessTokensAreJWTs = true
        try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [directory.url], includeBundledProviders: false,
                clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: InMemoryTokenStore(),
                environment: simulated.environment))
        let signedIn = try await oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect).run(
            Simulated.Approving(simulated: simulated), in: oauth.store)
        let api = try oauth.protectedResource(trusting: ["simulated"], settings: .init(resource: URL(string: "https://api.simulated.example")!))
        _ = try await api.authenticate(ProtectedResource.Request(authorization: ["Bearer \(signedIn.tokens.accessToken.value)"]))
        #expect(await simulated.requestCount(.openIDConfiguration) == 1)
    }
}
