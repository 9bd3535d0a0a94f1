import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlowTesting
@testable import OAuthFlow

/// A stored session's refresh token goes to the authorization server that issued it, for the client it was issued to,
/// and nowhere else (RFC 6749 §10.4, RFC 9700 §4.14): the attack strangers reproduced through MCP, where two servers'
/// sessions shared one key, played here against the engine itself.
@Suite struct SessionOriginTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    let key = SessionKey(providerID: "shared-key", account: "https://mcp.example/mcp")

    /// The honest server H and the other E, whose issuers differ by one character, on one clock, reached through one
    /// transport that sends each request to the server its host names.
    private func servers() throws -> (honest: SimulatedProvider, other: SimulatedProvider, transport: ScriptedTransport) {
        let clock = MovableClock(startingAt: now)
        let honest = try SimulatedProvider(issuer: URL(string: "https://auth.example.com")!, clock: clock)
        let other = try SimulatedProvider(issuer: URL(string: "https://auth-example.com")!, clock: clock)
        let transport = ScriptedTransport { request, _ in
            try await (request.url.host == "auth-example.com" ? other : honest).transport.send(request)
        }
        return (honest, other, transport)
    }

    private func client(at simulated: SimulatedProvider, transport: ScriptedTransport, clientID: String = SimulatedProvider.appClientID)
        throws -> OAuthClient
    {
        var environment = simulated.environment
        environment.transport = transport
        return OAuthClient(
            provider: try simulated.provider(),
            configuration: ClientConfiguration(clientID: clientID, redirectURI: Simulated.redirect), environment: environment)
    }

    /// H's session, stored under the shared key.
    private func honestSession(_ honest: SimulatedProvider, transport: ScriptedTransport) async throws -> (StoredSession, InMemoryTokenStore) {
        let client = try client(at: honest, transport: transport)
        let outcome = try await Simulated.signIn(client, at: honest)
        let store = InMemoryTokenStore()
        let result = try await SignInResult.store(
            outcome, client: client, account: key.account, redirectURI: Simulated.redirect, in: store, at: honest.clock.now())
        // Stored under the key another server's sessions share (what `mcp-<host and path>` was for both issuers).
        var session = result.session
        await store.remove(session.key)
        session.key = key
        await store.save(session)
        return (session, store)
    }

    @Test func aSessionRecordsTheServerThatIssuedIt() async throws {
        let (honest, _, transport) = try servers()
        let (session, _) = try await honestSession(honest, transport: transport)
        #expect(session.authorizationServer == "https://auth.example.com")
    }

    @Test func anotherServersManagerNeverSendsTheRefreshToken() async throws {
        let (honest, other, transport) = try servers()
        let (session, store) = try await honestSession(honest, transport: transport)
        let manager = TokenManager(client: try client(at: other, transport: transport), store: store, key: key)
        honest.clock.advance(3600 + 10)
        let refreshes = await other.requestCount(.token)
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .sessionMismatch)
        #expect(error.message.contains("https://auth.example.com") && error.message.contains("Nothing was sent"))
        #expect(await other.requestCount(.token) == refreshes, "nothing reached the other server's token endpoint")
        #expect(await store.load(key) == session, "the session is kept for its own server")
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: honest))
        let forced = try await #require(throws: SessionError.self) { try await manager.refresh() }
        #expect(forced.code == .sessionMismatch)
        #expect(await other.requestCount(.token) == refreshes)
    }

    @Test func anotherClientsManagerNeverSendsTheRefreshToken() async throws {
        let (honest, _, transport) = try servers()
        let (_, store) = try await honestSession(honest, transport: transport)
        await honest.register(.public(id: "another-app", redirectURIs: [SimulatedProvider.appRedirectURI]))
        let manager = TokenManager(client: try client(at: honest, transport: transport, clientID: "another-app"), store: store, key: key)
        honest.clock.advance(3600 + 10)
        let refreshes = await honest.requestCount(.token)
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .sessionMismatch)
        #expect(error.message.contains("another-app"))
        #expect(await honest.requestCount(.token) == refreshes)
    }

    @Test func aSessionStoredBeforeTheRecordIsRefreshedByItsClientAndThenRecorded() async throws {
        let (honest, _, transport) = try servers()
        var (session, store) = try await honestSession(honest, transport: transport)
        #expect(session.tokenServers == ["https://auth.example.com:443"])
        session.authorizationServer = nil
        session.tokenServers = nil
        await store.save(session)
        let manager = TokenManager(client: try client(at: honest, transport: transport), store: store, key: key)
        honest.clock.advance(3600 + 10)
        let refreshed = try await manager.refresh()
        #expect(refreshed.tokens.accessToken != session.tokens.accessToken)
        #expect(await store.load(key)?.authorizationServer == "https://auth.example.com")
        #expect(await store.load(key)?.tokenServers == ["https://auth.example.com:443"])
    }

    /// The honest provider's descriptor with the endpoint written under `name` moved to `host`, its issuer unchanged: what
    /// a descriptor of the same name read since (`providers add --force`, a file dropped in) can say.
    private func moved(_ honest: SimulatedProvider, _ name: String, to host: String) throws -> Provider {
        let lines = honest.descriptorText().split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("  \(name): ") ? Substring(line.replacingOccurrences(of: "auth.example.com", with: host)) : line
        }
        let text = lines.joined(separator: "\n")
        #expect(text != honest.descriptorText(), "the descriptor writes `\(name)`")
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "simulated.yaml").descriptor)
        return try descriptor.resolve([:])
    }

    /// RFC 6749 §10.4: the issuer alone does not say where the refresh token goes. A descriptor whose token endpoint
    /// now names another server, the issuer unchanged, gets nothing of the session.
    @Test func aTokenEndpointMovedToAnotherServerNeverGetsTheRefreshToken() async throws {
        let (honest, other, transport) = try servers()
        let (session, store) = try await honestSession(honest, transport: transport)
        var environment = honest.environment
        environment.transport = transport
        let client = OAuthClient(
            provider: try moved(honest, "token", to: "auth-example.com"),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: Simulated.redirect), environment: environment)
        let manager = TokenManager(client: client, store: store, key: key)
        honest.clock.advance(3600 + 10)
        let refreshes = await other.requestCount(.token)
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .sessionMismatch)
        #expect(error.message.contains("https://auth-example.com:443") && error.message.contains("Nothing was sent"), "\(error.message)")
        #expect(await other.requestCount(.token) == refreshes, "nothing reached the other server's token endpoint")
        #expect(await store.load(key) == session, "the session is kept for its own server")
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: honest))
    }

    /// Every endpoint that would receive a token counts (revocation here), and a move within the same server does not.
    @Test func anEndpointMovedWithinItsServerKeepsTheSessionAndOneMovedAwayDoesNot() async throws {
        let (honest, _, transport) = try servers()
        let (session, _) = try await honestSession(honest, transport: transport)
        let clientID = SimulatedProvider.appClientID
        #expect(session.mismatch(with: try moved(honest, "revocation", to: "auth-example.com"), clientID: clientID) != nil)
        #expect(session.mismatch(with: try moved(honest, "userinfo", to: "auth.example.com:8443"), clientID: clientID) != nil)
        #expect(session.mismatch(with: try moved(honest, "token", to: "auth.example.com/v2"), clientID: clientID) == nil)
        // Where keys come from, or where the browser goes, receives no token of the session.
        #expect(session.mismatch(with: try moved(honest, "jwks", to: "keys.example.com"), clientID: clientID) == nil)
    }

    /// The APIs `call` sends the access token to (`resources`) and the profile's extra call are servers of the session
    /// too: a descriptor that names another server for one of them gets nothing.
    @Test func aResourceOrProfileCallOnAnotherServerGetsNothing() async throws {
        let (honest, _, transport) = try servers()
        let (session, _) = try await honestSession(honest, transport: transport)
        func with(_ extra: String) throws -> Provider {
            let text = honest.descriptorText() + extra
            return try #require(DescriptorDocument.parse(Data(text.utf8), path: "simulated.yaml").descriptor).resolve([:])
        }
        let clientID = SimulatedProvider.appClientID
        let ownAPI = "resources:\n  - {scope: openid, title: Own, url: https://auth.example.com/api}\n"
        #expect(session.mismatch(with: try with(ownAPI), clientID: clientID) == nil)
        let otherAPI = "resources:\n  - {scope: openid, title: Other, url: https://collector.example/api}\n"
        #expect(session.mismatch(with: try with(otherAPI), clientID: clientID)?.contains("https://collector.example:443") == true)
        let otherProfile = "profile:\n  extra_call:\n    url: https://collector.example/me\n"
        #expect(session.mismatch(with: try with(otherProfile), clientID: clientID) != nil)
    }

    @Test func signingOutAnotherServersSessionRemovesItAndSendsNothing() async throws {
        let (honest, other, transport) = try servers()
        let (session, store) = try await honestSession(honest, transport: transport)
        let manager = TokenManager(client: try client(at: other, transport: transport), store: store, key: key)
        let sent = await other.requestCount(.revocation)
        let result = try await manager.signOut(endingProviderSession: .init())
        #expect((result.revocationError as? SessionError)?.code == .sessionMismatch)
        #expect(result.endSession == nil)
        #expect(await other.requestCount(.revocation) == sent)
        #expect(await store.load(key) == nil)
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: honest), "not revoked anywhere")
    }

    @Test func aServiceTokenStoredByAnotherServerIsNotServed() async throws {
        let (honest, other, transport) = try servers()
        let store = InMemoryTokenStore()
        var honestEnvironment = honest.environment
        honestEnvironment.transport = transport
        var otherEnvironment = other.environment
        otherEnvironment.transport = transport
        let request = OAuthClient.ServiceTokenRequest(scopes: ["api"])
        // Both providers have one id and both clients one id: the two keys are one.
        let issued = try await ServiceTokens(client: try Simulated.serviceClient(honest, environment: honestEnvironment), store: store)
            .accessToken(request)
        let fetched = await other.requestCount(.token)
        let served = try await ServiceTokens(client: try Simulated.serviceClient(other, environment: otherEnvironment), store: store)
            .accessToken(request)
        #expect(served != issued, "another server's token under the same key is not handed out")
        #expect(await other.requestCount(.token) == fetched + 1)
    }

    /// RFC 6749 §5.1: `expires_in` is the lifetime in seconds, and 0 is spent at once. Only a descriptor that says
    /// its provider means "no expiry" by it (`token_response.zero_expires_in: no_expiry`) reads it so.
    @Test func aServiceTokenThatLivesZeroSecondsIsUsedOnceAndNeverCached() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: now))
        await simulated.configure { $0.accessTokenLifetime = 0 }
        let store = InMemoryTokenStore()
        let tokens = ServiceTokens(client: try Simulated.serviceClient(simulated), store: store)
        let request = OAuthClient.ServiceTokenRequest(scopes: ["api"])
        let first = try await tokens.accessToken(request)
        let second = try await tokens.accessToken(request)
        #expect(first != second, "a spent token is not served again")
        #expect(await simulated.requestCount(.token) == 2)
        // Nor kept for another process.
        _ = try await ServiceTokens(client: try Simulated.serviceClient(simulated), store: store).accessToken(request)
        #expect(await simulated.requestCount(.token) == 3)
    }

    @Test func zeroMeansNoExpiryOnlyWhereTheDescriptorSaysSo() throws {
        let response = TransportResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"access_token":"a","token_type":"Bearer","expires_in":0}"#.utf8))
        let spent = try TokenResponseParser.tokenSet(from: response, format: .json, separator: " ", requestedScopes: [], previous: nil, now: now)
        #expect(spent.expiresAt == now)
        #expect(spent.isExpired(at: now, skew: 0))
        let lasting = try TokenResponseParser.tokenSet(
            from: response, format: .json, separator: " ", zeroExpiresIn: .noExpiry, requestedScopes: [], previous: nil, now: now)
        #expect(lasting.expiresAt == nil)
        let mailchimp = try #require(try ProviderRegistry.load(includeUserDirectory: false).entry(named: "mailchimp"))
        #expect(try mailchimp.descriptor.resolve([:]).policy.zeroExpiresIn == .noExpiry)
        let google = try #require(try ProviderRegistry.load(includeUserDirectory: false).entry(named: "google"))
        #expect(try google.descriptor.resolve([:]).policy.zeroExpiresIn == .spent)
    }
}
