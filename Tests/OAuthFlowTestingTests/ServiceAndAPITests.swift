import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Client credentials through `ServiceTokens`, and an API's check through `ProtectedResource`: JWT access tokens
/// verified with the rotating key set (RFC 9068), opaque ones introspected (RFC 7662).
@Suite struct ServiceAndAPITests {
    static let api = URL(string: "https://api.simulated.example")!

    static func jwtOptions() -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        return options
    }

    @Test func serviceTokensAreCachedUntilTheyNearExpiry() async throws {
        let simulated = try SimulatedProvider()
        let tokens = ServiceTokens(client: try Simulation.serviceClient(simulated))
        let first = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"])) == first)
        #expect(await simulated.requestCount(.token) == 1)
        simulated.clock.advance(3600 - 30)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"])) != first, "renewed within the skew")
        #expect(await simulated.requestCount(.token) == 2)
    }

    @Test func aJWTAccessTokenIsVerifiedByTheAPIAcrossAKeyRotation() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        let provider = try simulated.provider(Self.jwtOptions())
        let api = try ProtectedResource(providers: [provider], settings: .init(resource: Self.api), environment: simulated.environment)
        let service = ServiceTokens(client: try Simulation.serviceClient(simulated, Self.jwtOptions()))
        let token = try await service.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        let principal = try await api.authenticate(
            api.accessRequest(authorization: ["Bearer \(token.value)"], dpop: [], method: "GET", path: "/reports"), requiring: ["reports.read"])
        #expect(principal.clientID == SimulatedProvider.serviceClientID)
        try await simulated.rotateKeys(retiringPrevious: true)
        simulated.clock.advance(3600)
        let next = try await service.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        let again = try await api.authenticate(
            api.accessRequest(authorization: ["Bearer \(next.value)"], dpop: [], method: "GET", path: "/reports"))
        #expect(again.scopes == ["reports.read"])
    }

    @Test func anOpaqueTokenIsIntrospectedAndRevokedOnesAreRefused() async throws {
        let simulated = try SimulatedProvider()
        let provider = try simulated.provider()
        let api = try ProtectedResource(
            providers: [provider], settings: .init(resource: Self.api, cacheCapacity: 0),
            introspectionClients: [provider.id: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret))],
            environment: simulated.environment)
        let client = try Simulation.appClient(simulated)
        let outcome = try await Simulation.signIn(client, at: simulated, subject: "bob")
        let request = api.accessRequest(authorization: ["Bearer \(outcome.tokens.accessToken.value)"], dpop: [], method: "GET", path: "/")
        #expect(try await api.authenticate(request).subject == "bob")
        try await client.revoke(outcome.tokens.accessToken, kind: .accessToken)
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(request) }
    }

    /// RFC 8707 §2: a token request may name several resources; the token is for all of them, and for the default
    /// audience when it names none.
    @Test func aTokenIsForEveryResourceTheRequestNames() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        let service = try Simulation.serviceClient(simulated)
        let both = try await service.clientCredentialsToken(OAuthClient.ServiceTokenRequest(resources: ["https://a.example", "https://b.example"]))
        #expect(Simulation.claims(both.accessToken.value)["aud"] == .array([.string("https://a.example"), .string("https://b.example")]))
        #expect(try await service.introspect(both.accessToken)["aud"] == .array([.string("https://a.example"), .string("https://b.example")]))
        let none = try await service.clientCredentialsToken()
        #expect(Simulation.claims(none.accessToken.value)["aud"] == .string("https://api.simulated.example"))
        let repeated = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("scope", "a"), ("scope", "b")],
            headers: ["Authorization": SimulatedClientAuthenticationTests.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
        #expect(Simulation.error(repeated) == "invalid_request", "only the targets may repeat")
    }

    /// RFC 6749 §3.3: a client registered for some scopes is granted those of the asked ones it may have, and the answer says so.
    @Test func aClientIsGrantedOnlyTheScopesItMayHave() async throws {
        let simulated = try SimulatedProvider()
        await simulated.register(.confidential(id: SimulatedProvider.serviceClientID, secret: SimulatedProvider.serviceSecret, scopes: ["read"]))
        let service = try Simulation.serviceClient(simulated)
        let token = try await service.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"]))
        #expect(token.scopes == ["read"])
        let refused = await #expect(throws: AuthorizationServerError.self) {
            _ = try await service.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["write"]))
        }
        #expect(refused?.error == "invalid_scope")
        // At the authorization endpoint too: the app may have `openid` only.
        await simulated.register(.public(id: SimulatedProvider.appClientID, redirectURIs: [SimulatedProvider.appRedirectURI], scopes: ["openid"]))
        let outcome = try await Simulation.signIn(try Simulation.appClient(simulated), at: simulated)
        #expect(outcome.tokens.scopes == ["openid"])
    }

    @Test func introspectionAnswersInactiveForAnythingUnknown() async throws {
        let simulated = try SimulatedProvider()
        let introspected = try await Simulation.serviceClient(simulated).introspect(Secret("not-a-token"))
        #expect(introspected == ["active": .bool(false)])
    }
}
