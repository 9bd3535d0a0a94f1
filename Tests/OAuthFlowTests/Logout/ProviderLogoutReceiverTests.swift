import Foundation
import Logging
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// The back-channel and front-channel receiver: which sessions end, and that nothing else does.
@Suite struct ProviderLogoutReceiverTests {
    let fixture: LogoutFixture
    let store = InMemoryTokenStore()

    init() throws { fixture = try LogoutFixture(extra: "logout:\n  frontchannel_logout_supported: true\n  frontchannel_logout_session_supported: true\n") }

    let log = CapturingLogHandler()

    private func receiver(replays: any ReplayRegistry = InMemoryReplayRegistry()) -> ProviderLogoutReceiver {
        let handler = log
        var environment = fixture.client.environment
        environment.logger = Logger(label: "test") { _ in handler }
        let client = OAuthClient(provider: fixture.client.provider, configuration: fixture.client.configuration, environment: environment)
        return ProviderLogoutReceiver(client: client, sessions: store, replays: replays)
    }

    private func seed() async {
        await store.save(fixture.session("a", sid: "sid-1"))
        await store.save(fixture.session("b", sid: "sid-2"))
        await store.save(fixture.session("c", sid: "sid-3", sub: "user-2"))
    }

    private func accounts() async -> [String] {
        await store.keys(of: fixture.provider.id, matching: ProviderSession.Match(issuer: LogoutFixture.issuer, subject: "user-1", sessionID: nil)!)
            .map(\.account) + store.keys(of: fixture.provider.id, matching: ProviderSession.Match(issuer: LogoutFixture.issuer, subject: "user-2", sessionID: nil)!).map(\.account)
    }

    /// Three sign-ins at a simulated provider, kept in the store: `a` and `b` of user-1, `c` of user-2.
    private func seed(at simulated: SimulatedProvider) async throws -> [String: StoredSession] {
        let client = try Simulated.appClient(simulated)
        var sessions: [String: StoredSession] = [:]
        for (account, subject) in [("a", "user-1"), ("b", "user-1"), ("c", "user-2")] {
            sessions[account] = try await Simulated.session(client, at: simulated, subject: subject, account: account, in: store)
        }
        return sessions
    }

    /// The receiver of the simulated provider's app, sending through `transport`.
    private func receiver(at simulated: SimulatedProvider, transport: any HTTPTransport) throws -> ProviderLogoutReceiver {
        let handler = log
        var environment = simulated.environment
        environment.transport = transport
        environment.logger = Logger(label: "test") { _ in handler }
        return ProviderLogoutReceiver(client: try Simulated.appClient(simulated, environment: environment), sessions: store)
    }

    /// The accounts still signed in at the simulated provider: user-1's, then user-2's.
    private func accounts(at simulated: SimulatedProvider) async -> [String] {
        var accounts: [String] = []
        for subject in ["user-1", "user-2"] {
            let match = ProviderSession.Match(issuer: simulated.issuer.absoluteString, subject: subject, sessionID: nil)!
            accounts += await store.keys(of: "simulated", matching: match).map(\.account)
        }
        return accounts
    }

    @Test func aSidEndsThatSessionOnlyAndRevokesItsRefreshToken() async throws {
        let simulated = try SimulatedProvider()
        let sessions = try await seed(at: simulated)
        let revoked = Locked<[String]>([])
        let transport = ScriptedTransport { request, _ in
            if request.url.path == "/revoke" {
                let token = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)).first { $0.0 == "token" }?.1
                revoked.withLock { $0.append(token ?? "") }
            }
            return try await simulated.transport.send(request)
        }
        let a = try #require(sessions["a"])
        let token = try await simulated.logoutToken(subject: "user-1", sessionID: try #require(a.providerSession?.sessionID))
        let answer = try await receiver(at: simulated, transport: transport).receiveBackChannel(
            body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded")
        #expect(answer.status == 200 && answer.ended.map(\.account) == ["a"])
        #expect(answer.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
        #expect(await accounts(at: simulated) == ["b", "c"])
        #expect(revoked.withLock { $0 } == [try #require(a.tokens.refreshToken).value], "\(log.messages)")
    }

    /// The provider's keys cannot be read: 503, and whoever posted the token learns nothing of why (a discovery
    /// document's or a key set's failure stays in the log).
    @Test func aProviderThatCannotBeReadGives503WithoutItsReason() async throws {
        let simulated = try SimulatedProvider()
        _ = try await seed(at: simulated)
        let token = try await simulated.logoutToken(subject: "user-1")
        let failing = ScriptedTransport { request, _ in
            guard request.url.path.hasSuffix("jwks") || request.url.path.contains("well-known") else { return try await simulated.transport.send(request) }
            return TransportResponse(status: 500, headers: ["Content-Type": "text/plain"], body: Data("internal detail: db-7 down\u{1B}[2J".utf8))
        }
        let answer = try await receiver(at: simulated, transport: failing).receiveBackChannel(
            body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded")
        #expect(answer.status == 503)
        #expect(!answer.body.contains("db-7") && !answer.body.contains("jwks") && !answer.body.contains("discovery"), "\(answer.body)")
        #expect(await accounts(at: simulated) == ["a", "b", "c"], "nothing ended")
    }

    @Test func aSubWithoutSidEndsEveryOneOfItsSessions() async throws {
        let simulated = try SimulatedProvider()
        _ = try await seed(at: simulated)
        let token = try await simulated.logoutToken(subject: "user-1")
        let answer = try await receiver(at: simulated, transport: simulated.transport).receiveBackChannel(
            body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded; charset=utf-8")
        #expect(answer.status == 200 && Set(answer.ended.map(\.account)) == ["a", "b"])
        #expect(await accounts(at: simulated) == ["c"])
    }

    @Test func aReplayedTokenIsRefusedAndTouchesNothing() async throws {
        let token = try fixture.sign(fixture.claims(sid: "sid-1"))
        let receiver = receiver()
        #expect(await receiver.receiveBackChannel(body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded").status == 200)
        await seed()
        let again = await receiver.receiveBackChannel(body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded")
        #expect(again.status == 400 && again.body.contains("already used"))
        #expect(await accounts() == ["a", "b", "c"])
    }

    @Test func malformedRequestsAreRefused() async throws {
        await seed()
        let token = try fixture.sign(fixture.claims())
        let receiver = receiver()
        let cases: [(Data, String?, String)] = [
            (LogoutFixture.body(token), "application/json", "not application/x-www-form-urlencoded"),
            (LogoutFixture.body(token), nil, "not application/x-www-form-urlencoded"),
            (Data("token=x".utf8), "application/x-www-form-urlencoded", "no logout_token"),
            (Data(("logout_token=a&" + String(decoding: LogoutFixture.body(token), as: UTF8.self)).utf8), "application/x-www-form-urlencoded", "more than one"),
            (Data(repeating: 0x61, count: ProviderLogoutReceiver.maximumBodySize + 1), "application/x-www-form-urlencoded", "larger than"),
        ]
        for (body, type, reason) in cases {
            let answer = await receiver.receiveBackChannel(body: body, contentType: type)
            #expect(answer.status == 400 && answer.contentType == "application/json", "\(reason)")
            #expect(answer.reason?.contains(reason) == true, "\(answer.reason ?? "-")")
        }
        #expect(await accounts() == ["a", "b", "c"])
    }

    /// 10,000 hostile requests: every one refused, no session touched, nothing remembered from them.
    @Test func aFloodOfHostileTokensEndsNothing() async throws {
        await seed()
        let replays = InMemoryReplayRegistry(capacity: 10)
        let receiver = receiver(replays: replays)
        var claims = fixture.claims()
        claims["nonce"] = .string("n")
        let withNonce = try fixture.sign(claims)
        let hostile = [
            withNonce, "a.b.c", String(repeating: "x", count: 4000),
            try LogoutFixture.part(["alg": .string("none")]) + "." + LogoutFixture.part(fixture.claims()) + ".",
        ]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<10_000 {
                let token = hostile[index % hostile.count]
                group.addTask { await receiver.receiveBackChannel(body: LogoutFixture.body(token), contentType: "application/x-www-form-urlencoded").status }
                if index % 64 == 63 { while let status = try await group.next() { #expect(status == 400) } }
            }
            for try await status in group { #expect(status == 400) }
        }
        #expect(await accounts() == ["a", "b", "c"])
        // Nothing refused was recorded: a valid token still gets in.
        let answer = await receiver.receiveBackChannel(body: LogoutFixture.body(try fixture.sign(fixture.claims(sid: "sid-2"))), contentType: "application/x-www-form-urlencoded")
        #expect(answer.status == 200 && answer.ended.map(\.account) == ["b"])
    }

    @Test func frontChannelWithIssAndSidEndsThatSession() async throws {
        await seed()
        let query = "iss=" + FormEncoding.encode(LogoutFixture.issuer) + "&sid=sid-2"
        let answer = await receiver().receiveFrontChannel(query: query)
        #expect(answer.status == 200 && answer.ended.map(\.account) == ["b"])
        #expect(await receiver().receiveFrontChannel(query: "iss=https%3A%2F%2Fevil.example.com&sid=sid-1").status == 400)
        #expect(await receiver().receiveFrontChannel(query: "sid=sid-1").status == 400, "the provider declares sessions: iss and sid are required")
        #expect(await accounts() == ["a", "c"])
    }

    @Test func frontChannelIsClosedUnlessTheDescriptorDeclaresIt() async throws {
        let plain = try LogoutFixture()
        await store.save(plain.session("a", sid: "sid-1"))
        let receiver = ProviderLogoutReceiver(client: plain.client, sessions: store)
        let answer = await receiver.receiveFrontChannel(query: "iss=" + FormEncoding.encode(LogoutFixture.issuer) + "&sid=sid-1")
        #expect(answer.status == 404 && answer.ended.isEmpty)
        #expect(await store.load(SessionKey(providerID: plain.provider.id, account: "a")) != nil)
    }

    @Test func theFileStoreFindsSessionsBySidAndSub() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let files = FileTokenStore(directory: directory.url.appendingPathComponent("sessions"))
        try await files.save(fixture.session("a", sid: "sid-1"))
        try await files.save(fixture.session("b", sid: "sid-2"))
        try await files.save(sampleSession(fixture.provider.id))
        let issuer = LogoutFixture.issuer
        #expect(try await files.keys(of: fixture.provider.id, matching: ProviderSession.Match(issuer: issuer, subject: nil, sessionID: "sid-2")!).map(\.account) == ["b"])
        #expect(try await files.keys(of: fixture.provider.id, matching: ProviderSession.Match(issuer: issuer, subject: "user-1", sessionID: nil)!).map(\.account) == ["a", "b"])
        #expect(try await files.keys(of: fixture.provider.id, matching: ProviderSession.Match(issuer: "https://other", subject: "user-1", sessionID: nil)!).isEmpty)
        #expect(try await files.keys(of: "absent", matching: ProviderSession.Match(issuer: issuer, subject: "user-1", sessionID: nil)!).isEmpty)
        #expect(ProviderSession.Match(issuer: issuer, subject: "", sessionID: nil) == nil)
    }

    @Test func theProviderSessionSurvivesEncoding() throws {
        let session = fixture.session("a", sid: "sid-1")
        let decoded = try StoredSession.decoded(from: session.encoded())
        #expect(decoded.providerSession == ProviderSession(issuer: LogoutFixture.issuer, subject: "user-1", sessionID: "sid-1"))
        #expect(try session.encoded().range(of: Data(#""sid":"sid-1""#.utf8)) != nil)
    }
}

/// The end-session request each descriptor style makes.
@Suite struct EndSessionRequestTests {
    private func client(_ extra: String, endpoint: String? = "https://op.example.com/logout") throws -> OAuthClient {
        var descriptor = TestDescriptor(protocol: .oidc, issuer: "https://op.example.com", extra: extra)
        if let endpoint { descriptor = descriptor.with(endpoints: [("end_session", endpoint)]) }
        return OAuthClient(
            provider: try descriptor.provider(),
            configuration: ClientConfiguration(clientID: "client-1", redirectURI: URL(string: "http://127.0.0.1/callback")!))
    }

    private func query(_ url: URL) -> [String: String] {
        Dictionary(FormEncoding.decode(url.query ?? ""), uniquingKeysWith: { first, _ in first })
    }

    @Test func rpInitiatedSendsTheStandardParameters() async throws {
        let request = try await client("").endSessionRequest(
            idToken: Secret("id.token.value"), postLogoutRedirectURI: URL(string: "https://app.example.com/signed-out"), logoutHint: "alice",
            uiLocales: ["fr", "en"])
        let parameters = query(request.url)
        #expect(request.url.path == "/logout")
        #expect(parameters["id_token_hint"] == "id.token.value" && parameters["client_id"] == "client-1")
        #expect(parameters["post_logout_redirect_uri"] == "https://app.example.com/signed-out")
        #expect(parameters["logout_hint"] == "alice" && parameters["ui_locales"] == "fr en")
        let state = try #require(request.state?.value)
        #expect(parameters["state"] == state && state.count >= 43)
        #expect(request.acceptsReturn(query: "state=" + state))
        #expect(!request.acceptsReturn(query: "state=" + state + "x"))
        #expect(!request.acceptsReturn(query: nil))
        #expect(!request.acceptsReturn(query: "state=\(state)&state=\(state)"), "two states are not one")
    }

    @Test func withoutAReturnAddressNoStateIsSent() async throws {
        let request = try await client("").endSessionRequest(idToken: nil, postLogoutRedirectURI: nil)
        #expect(request.state == nil && query(request.url).keys.sorted() == ["client_id"])
        #expect(request.acceptsReturn(query: nil))
    }

    @Test func aCustomLogoutURLRenamesItsParameters() async throws {
        // Auth0's legacy /v2/logout: `returnTo`, `client_id`, no state, no id_token_hint; `federated` added.
        let request = try await client(
            "logout:\n  style: custom\n  redirect_parameter: returnTo\n  extra_params:\n    federated: \"\"\n",
            endpoint: "https://tenant.example.com/v2/logout"
        ).endSessionRequest(idToken: Secret("id.token"), postLogoutRedirectURI: URL(string: "https://app.example.com/"))
        let parameters = query(request.url)
        #expect(parameters == ["returnTo": "https://app.example.com/", "client_id": "client-1", "federated": ""])
        #expect(request.state == nil && request.acceptsReturn(query: nil))
    }

    @Test func cognitoStyleKeepsTheEndpointsOwnQuery() async throws {
        let request = try await client(
            "logout:\n  style: custom\n  redirect_parameter: logout_uri\n", endpoint: "https://auth.example.com/logout?lang=en"
        ).endSessionRequest(idToken: nil, postLogoutRedirectURI: URL(string: "https://app.example.com/bye"))
        #expect(request.url.query?.hasPrefix("lang=en&") == true)
        #expect(query(request.url)["logout_uri"] == "https://app.example.com/bye")
    }

    @Test func noEndpointIsSaidPlainly() async throws {
        let error = try await #require(throws: FlowError.self) {
            try await client("", endpoint: nil).endSessionRequest(idToken: nil, postLogoutRedirectURI: nil)
        }
        #expect(error.code == .noEndSessionEndpoint && error.message.contains("signed out here only"))
    }

    /// Refused when the provider is resolved, before any client is made (as a discovered one is when it is read).
    @Test func aPlainHTTPEndpointIsRefused() async throws {
        let error = try await #require(throws: ProviderError.self) {
            try await client("", endpoint: "http://op.example.com/logout").endSessionRequest(idToken: Secret("t"), postLogoutRedirectURI: nil)
        }
        #expect(error.code == .invalidURL && error.message.contains("`endpoints.end_session`") && error.message.contains("plain http"))
    }

    @Test func aCustomStyleWithoutItsURLDoesNotResolve() throws {
        let descriptor = try TestDescriptor(protocol: .oidc, extra: "logout:\n  style: custom\n  redirect_parameter: returnTo\n").descriptor()
        let error = try #require(throws: ProviderError.self) { try descriptor.resolve() }
        #expect(error.message.contains("endpoints.end_session"))
    }

    @Test func extraParametersCannotSetWhatTheEngineSends() throws {
        for name in ["state", "id_token_hint", "post_logout_redirect_uri", "returnTo"] {
            let descriptor = try TestDescriptor(
                protocol: .oidc, extra: "logout:\n  style: custom\n  redirect_parameter: returnTo\n  extra_params:\n    \(name): x\n"
            ).with(endpoints: [("end_session", "https://x.example.com/out")]).descriptor()
            let error = try #require(throws: ProviderError.self) { try descriptor.resolve() }
            #expect(error.message.contains("logout.extra_params") && error.message.contains(name), "\(error)")
        }
    }

    @Test func theDefaultsAreTyped() throws {
        let policy = try TestDescriptor(protocol: .oidc).provider().policy.logout
        #expect(policy.style == .rpInitiated && policy.redirectParameter == "post_logout_redirect_uri" && policy.clientIDParameter == "client_id")
        #expect(policy.sendsIDTokenHint && policy.returnsState && !policy.backChannel.supported && policy.logoutTokenMaxAge == 300)
        let custom = try TestDescriptor(
            protocol: .oidc, extra: "logout:\n  style: custom\n  client_id_parameter: \"\"\n  logout_token_max_age: 60\n"
        ).with(endpoints: [("end_session", "https://x.example.com/out")]).provider().policy.logout
        #expect(custom.clientIDParameter == nil && !custom.sendsIDTokenHint && !custom.returnsState && custom.logoutTokenMaxAge == 60)
    }
}
