import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Docs/testing.md's Swift lines, compiled and run here: a host's tests of its own sign-in, session and service
/// tokens against the simulated provider.
@Suite struct TestingDocExamples {
    static let page = "Docs/testing.md"

    /// "A sign-in".
    @Test func signInAsAlice() async throws {
        let simulated = try SimulatedProvider()
        let client = OAuthClient(
            provider: try simulated.provider(),
            configuration: ClientConfiguration(
                clientID: SimulatedProvider.appClientID, redirectURI: URL(string: "http://127.0.0.1:8765/callback")!),
            environment: simulated.environment)

        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url, subject: "alice")   // the user signs in and consents
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)

        #expect(outcome.idToken?.subject == "alice")
        #expect(try await client.userInfo(outcome.tokens)["email"]?.stringValue == "alice@simulated.example")
    }

    /// "Over HTTP".
    @Test func servedOverHTTP() async throws {
        let authorizationServer = try await SimulatedProviderServer.start(subject: "alice")
        let issuer = authorizationServer.provider.issuer   // http://127.0.0.1:PORT, a free port
        // … sign in, call APIs …
        let metadata = try await DefaultHTTPTransport(timeout: 5).send(
            TransportRequest(method: .get, url: issuer.appendingPathComponent(".well-known/openid-configuration")))
        #expect(metadata.status == 200)
        await authorizationServer.stop()
    }

    /// "The host's session, through the front door".
    @Test func sessionRefreshesAndSignsOut() async throws {
        let simulated = try SimulatedProvider()
        let providers = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: providers) }
        let store = InMemoryTokenStore()
        try simulated.descriptorText().write(to: providers.appendingPathComponent("simulated.yaml"), atomically: true, encoding: .utf8)
        let oauth = OAuth(OAuth.Configuration(
            providerDirectories: [providers],
            clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)],
            store: store, environment: simulated.environment))

        // Sign in once (as the host's sign-in would), and keep the session.
        let run = try oauth.signInRun(to: "simulated", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
        let pending = try await run.start()
        let outcome = try await run.client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        _ = try await run.store(outcome, in: store)

        let first = try await oauth.accessToken(for: "simulated")
        simulated.clock.advance(3600)                         // an hour later the access token has expired
        let second = try await oauth.accessToken(for: "simulated")   // refreshed, and the refresh token rotated
        #expect(first != second)

        await simulated.failNext(.token, error: "invalid_grant")     // the provider revoked the grant
        simulated.clock.advance(3600)
        await #expect(throws: SessionError.self) { _ = try await oauth.accessToken(for: "simulated") }
    }

    /// "A service's own tokens".
    @Test func serviceTokenIsCached() async throws {
        let simulated = try SimulatedProvider()
        let service = ServiceTokens(client: OAuthClient(
            provider: try simulated.provider(),
            configuration: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret)),
            environment: simulated.environment))

        let token = try await service.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        #expect(try await service.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"])) == token)
        #expect(await simulated.requestCount(.token) == 1)
    }

    /// "Settings and features".
    @Test func dpopAndPushedRequests() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { settings in
            settings.requiresDPoP = true
            settings.requiresDPoPNonce = true
            settings.requiresPushedAuthorization = true
            settings.accessTokenFormat = .jwt
        }
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        options.pushesAuthorizationRequests = true
        options.accessTokensAreJWTs = true
        let provider = try simulated.provider(options)

        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(
                clientID: SimulatedProvider.appClientID, redirectURI: URL(string: "http://127.0.0.1:8765/callback")!),
            environment: simulated.environment)
        let pending = try await client.startAuthorization()
        let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        #expect(outcome.tokens.isDPoPBound)
    }

    /// "A device sign-in".
    @Test func deviceSignIn() async throws {
        let simulated = try SimulatedProvider()
        await simulated.approveDevices(afterPolls: 2)   // the user approves while the device polls
        let result = try await DeviceSignIn(store: InMemoryTokenStore(), environment: simulated.environment)
            .signIn(to: try simulated.provider(), settings: ClientSettings(clientID: SimulatedProvider.appClientID))
        #expect(result.idToken?.subject == "user-1")
    }

    /// "Clocks and transports".
    @Test func clocksAndTransports() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let recording = RecordingTransport(simulated.transport)
        let flaky = ScriptedTransport { request, count in
            count == 1 ? TransportResponse(status: 503) : try await recording.send(request)
        }
        var environment = simulated.environment
        environment.transport = flaky

        let service = ServiceTokens(client: OAuthClient(
            provider: try simulated.provider(),
            configuration: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret)),
            environment: environment))
        await #expect(throws: (any Error).self) { _ = try await service.accessToken() }   // the first answer is a 503
        _ = try await service.accessToken()
        #expect(recording.requests.map(\.url.path) == ["/token"])
    }
}
