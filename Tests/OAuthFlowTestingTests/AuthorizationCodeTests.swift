import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636), run by the engine against the simulated provider.
@Suite struct AuthorizationCodeTests {
    @Test func aSignInVerifiesTheIDTokenAndReadsUserinfo() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let outcome = try await Simulation.signIn(client, at: simulated, subject: "alice")
        #expect(outcome.idToken?.subject == "alice")
        #expect(outcome.idToken?.all["sid"]?.stringValue != nil)
        #expect(outcome.tokens.refreshToken != nil, "offline_access was asked for")
        #expect(outcome.tokens.tokenType.lowercased() == "bearer")
        let info = try await client.userInfo(outcome.tokens)
        #expect(info["sub"]?.stringValue == "alice")
        #expect(info["email"]?.stringValue == "alice@simulated.example")
    }

    /// The authorization endpoint reads its query form-encoded, as browsers and other clients (Python's) send it:
    /// `scope=openid+profile` asks for two scopes.
    @Test func aQueryWithPlusForSpaceAsksForEachScope() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let pending = try await client.startAuthorization()
        var components = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false))
        let query = try #require(components.percentEncodedQuery)
        components.percentEncodedQuery = query.replacingOccurrences(of: "%20", with: "+")
        #expect(components.percentEncodedQuery?.contains("scope=openid+") == true, "\(query)")
        let callback = try await simulated.approve(try #require(components.url))
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.tokens.scopes.contains("openid") && outcome.tokens.scopes.contains("profile"), "\(outcome.tokens.scopes)")
    }

    @Test func discoveryFindsEveryEndpoint() async throws {
        let simulated = try SimulatedProvider()
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        let client = try Simulation.appClient(simulated, options)
        let outcome = try await Simulation.signIn(client, at: simulated)
        #expect(outcome.idToken != nil)
        #expect(await simulated.requestCount(.openIDConfiguration) == 1)
        let discovered = try await client.discoveredProvider()
        #expect(discovered.endpoints.deviceAuthorization?.path == "/device_authorization")
    }

    @Test func theRFC8414DocumentIsServedToo() async throws {
        let simulated = try SimulatedProvider()
        let url = simulated.issuer.appendingPathComponent(".well-known/oauth-authorization-server")
        let response = try await simulated.transport.send(TransportRequest(method: .get, url: url))
        let members = Simulation.members(response)
        #expect(response.status == 200)
        #expect(members["issuer"]?.stringValue == "https://simulated.example")
        #expect(members["code_challenge_methods_supported"] == .array([.string("S256")]))
    }

    @Test func aDeclinedSignInIsTheProvidersError() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let pending = try await client.startAuthorization()
        let callback = try await simulated.deny(pending.url)
        let error = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error?.error == "access_denied")
    }

    @Test func anUnregisteredRedirectIsNeverRedirectedTo() async throws {
        let simulated = try SimulatedProvider()
        let client = OAuthClient(
            provider: try simulated.provider(),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: URL(string: "https://evil.example/cb")!),
            environment: simulated.environment)
        let pending = try await client.startAuthorization()
        await #expect(throws: SimulationError.self) { _ = try await simulated.approve(pending.url) }
    }

    @Test func theCallbackCarriesStateAndIss() async throws {
        let simulated = try SimulatedProvider()
        let pending = try await Simulation.appClient(simulated).startAuthorization()
        let query = Simulation.query(try await simulated.approve(pending.url))
        #expect(query["state"] == pending.state.value)
        #expect(query["iss"] == "https://simulated.example")
        #expect(query["code"] != nil)
    }

    /// Exchanges the code of one approval by hand, with what the test changes.
    func exchange(
        _ simulated: SimulatedProvider, verifier: String? = nil, redirect: String? = nil, times: Int = 1
    ) async throws -> [TransportResponse] {
        let pending = try await Simulation.appClient(simulated).startAuthorization()
        let code = try #require(Simulation.query(try await simulated.approve(pending.url))["code"])
        var answers: [TransportResponse] = []
        for _ in 0..<times {
            answers.append(
                try await Simulation.post(
                    simulated, "token",
                    [
                        ("grant_type", "authorization_code"), ("code", code), ("client_id", SimulatedProvider.appClientID),
                        ("redirect_uri", redirect ?? pending.redirectURI.absoluteString),
                        ("code_verifier", verifier ?? pending.pkce?.verifier.value ?? ""),
                    ]))
        }
        return answers
    }

    @Test func aWrongVerifierIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let answer = try await exchange(simulated, verifier: String(repeating: "a", count: 43))[0]
        #expect(answer.status == 400 && Simulation.error(answer) == "invalid_grant")
    }

    @Test func aShortVerifierIsRefused() async throws {
        let simulated = try SimulatedProvider()
        #expect(Simulation.error(try await exchange(simulated, verifier: "short")[0]) == "invalid_grant")
    }

    @Test func anotherRedirectURIIsRefused() async throws {
        let simulated = try SimulatedProvider()
        #expect(Simulation.error(try await exchange(simulated, redirect: "http://127.0.0.1:9999/callback")[0]) == "invalid_grant")
    }

    @Test func aCodeIsSpentOnceAndItsReuseRevokesItsTokens() async throws {
        let simulated = try SimulatedProvider()
        let answers = try await exchange(simulated, times: 2)
        #expect(answers[0].status == 200)
        #expect(Simulation.error(answers[1]) == "invalid_grant")
        let token = try #require(Simulation.members(answers[0])["access_token"]?.stringValue)
        let introspected = try await Simulation.post(
            simulated, "introspect", [("token", token)],
            headers: ["Authorization": "Basic " + Data("\(SimulatedProvider.serviceClientID):\(SimulatedProvider.serviceSecret)".utf8).base64EncodedString()])
        #expect(Simulation.members(introspected)["active"] == .bool(false))
    }

    @Test func anExpiredCodeIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url)
        simulated.clock.advance(61)
        let error = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.finishSignIn(.callback(callback), pending: pending).tokens
        }
        #expect(error?.error == "invalid_grant")
    }

    @Test func plainPKCEOrNoneGoesBackAsAnError() async throws {
        let simulated = try SimulatedProvider()
        let pending = try await Simulation.appClient(simulated).startAuthorization()
        var components = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.map { $0.name == "code_challenge_method" ? URLQueryItem(name: $0.name, value: "plain") : $0 }
        let plain = Simulation.query(try await simulated.approve(try #require(components.url)))
        #expect(plain["error"] == "invalid_request" && plain["code"] == nil)
        components.queryItems = components.queryItems?.filter { !$0.name.hasPrefix("code_challenge") }
        let none = Simulation.query(try await simulated.approve(try #require(components.url)))
        #expect(none["error"] == "invalid_request" && none["code"] == nil)
    }

    @Test func rotatedKeysAreFetchedAndRetiredKeysFailTheIDToken() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let first = try await Simulation.signIn(client, at: simulated)
        let kid = try await simulated.rotateKeys()
        let second = try await Simulation.signIn(client, at: simulated)
        #expect(second.idToken != nil && first.idToken != nil)
        #expect(await simulated.currentKeyID == kid)
        #expect(await simulated.requestCount(.jwks) == 2, "an unknown kid makes the client fetch the key set again")
        try await simulated.rotateKeys(retiringPrevious: true)
        let fresh = try Simulation.appClient(simulated)
        await #expect(throws: IDTokenError.self) { _ = try await fresh.storedIDTokenClaims(try #require(first.tokens.idToken)) }
    }

    @Test(arguments: [JWSAlgorithm.es256, .rs256, .eddsa])
    func idTokensAreSignedWithTheConfiguredAlgorithm(_ algorithm: JWSAlgorithm) async throws {
        var settings = SimulatedProvider.Settings()
        settings.signingAlgorithm = algorithm
        let simulated = try SimulatedProvider(settings: settings)
        let outcome = try await Simulation.signIn(try Simulation.appClient(simulated), at: simulated)
        let header = try #require(outcome.tokens.idToken?.value.split(separator: ".").first)
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: try #require(Base64URL.decode(String(header))))
        #expect(decoded["alg"]?.stringValue == algorithm.rawValue)
    }

    @Test func requestsToAnotherHostAreUnreachable() async throws {
        let simulated = try SimulatedProvider()
        let error = await #expect(throws: TransportError.self) {
            _ = try await simulated.transport.send(TransportRequest(method: .get, url: URL(string: "https://elsewhere.example/token")!))
        }
        #expect(error?.code == .unreachable)
    }
}
