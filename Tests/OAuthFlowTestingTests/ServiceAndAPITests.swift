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

    @Test func introspectionAnswersInactiveForAnythingUnknown() async throws {
        let simulated = try SimulatedProvider()
        let introspected = try await Simulation.serviceClient(simulated).introspect(Secret("not-a-token"))
        #expect(introspected == ["active": .bool(false)])
    }
}
