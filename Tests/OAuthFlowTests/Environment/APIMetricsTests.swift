import Foundation
import OAuthFlowTestSupport
import Testing
import Tracing

import OAuthFlow

/// An API's token checks as an operator sees them: decisions by provider, outcome and refusal code, the verified-token
/// and introspection caches' hits and misses, and a span per check with the JWKS and introspection requests under it.
@Suite struct APIMetricsTests {
    static let resource = URL(string: "https://api.simulated.example")!

    @Test func jwtChecksAreCountedAndTraced() async throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let simulated = try SimulatedProvider(settings: settings)
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let outcome = try await Simulated.signIn(try Simulated.appClient(simulated, options), at: simulated, subject: "subject-erin-5")
        let observed = Observed()
        let api = try ProtectedResource(
            providers: [try simulated.provider(options)], settings: .init(resource: Self.resource),
            environment: observed.environment(simulated.environment))
        let request = ProtectedResource.Request(authorization: ["Bearer \(outcome.tokens.accessToken.value)"])

        _ = try await api.authenticate(request)   // verified: the JWKS is fetched
        _ = try await api.authenticate(request)   // remembered
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(request, requiring: ["admin"]) }
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(ProtectedResource.Request(authorization: [])) }

        #expect(observed.count(.apiDecisions, ["provider": "simulated", "outcome": "accepted", "code": "none"]) == 2)
        #expect(observed.count(.apiDecisions, ["provider": "simulated", "outcome": "refused", "code": "insufficient_scope"]) == 1)
        #expect(observed.count(.apiDecisions, ["provider": "none", "outcome": "refused", "code": "missing_token"]) == 1)
        #expect(observed.count(.apiCacheLookups, ["provider": "simulated", "cache": "verified_token", "result": "miss"]) == 1)
        #expect(observed.count(.apiCacheLookups, ["provider": "simulated", "cache": "verified_token", "result": "hit"]) == 2)
        #expect(observed.timings(.requestDuration, ["provider": "simulated", "endpoint": "jwks", "status": "2xx"]) == 1)

        let checks = observed.spans("oauthflow.authenticate")
        #expect(checks.count == 4)
        #expect(checks.map { Observed.text($0.attributes.get("oauthflow.outcome")) } == ["accepted", "accepted", "refused", "refused"])
        #expect(checks.map { Observed.text($0.attributes.get("oauthflow.cache")) } == ["miss", "hit", "hit", nil])
        #expect(Observed.text(checks[2].attributes.get("oauthflow.code")) == "insufficient_scope")
        #expect(Observed.text(checks[3].attributes.get("oauthflow.provider")) == "none")
        // The JWKS request went out inside the first check: its span is the check's child, in the check's trace.
        let jwks = try #require(observed.spans("GET jwks").first)
        #expect(jwks.parentSpanID == checks[0].spanID && jwks.traceID == checks[0].traceID)
        observed.expectNothingLeaks([outcome.tokens.accessToken.value, outcome.tokens.idToken?.value, "subject-erin-5"].compactMap { $0 })
    }

    @Test func introspectionIsCountedAsMissThenHit() async throws {
        let simulated = try SimulatedProvider()
        let outcome = try await Simulated.signIn(try Simulated.appClient(simulated), at: simulated, subject: "subject-frank-8")
        let observed = Observed()
        let api = try ProtectedResource(
            providers: [try simulated.provider()], settings: .init(resource: Self.resource),
            introspectionClients: [
                "simulated": .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret))
            ],
            environment: observed.environment(simulated.environment))
        let request = ProtectedResource.Request(authorization: ["Bearer \(outcome.tokens.accessToken.value)"])
        _ = try await api.authenticate(request)
        _ = try await api.authenticate(request)
        let unknown = ProtectedResource.Request(authorization: ["Bearer not-a-token-the-provider-issued"])
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(unknown) }
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(unknown) }

        #expect(observed.count(.apiCacheLookups, ["provider": "simulated", "cache": "introspection", "result": "miss"]) == 2)
        #expect(observed.count(.apiCacheLookups, ["provider": "simulated", "cache": "introspection", "result": "hit"]) == 2, "the active answer, then the inactive one")
        #expect(observed.count(.apiDecisions, ["provider": "simulated", "outcome": "accepted"]) == 2)
        #expect(observed.count(.apiDecisions, ["provider": "simulated", "outcome": "refused", "code": "invalid_token"]) == 2)
        #expect(observed.timings(.requestDuration, ["provider": "simulated", "endpoint": "introspection", "status": "2xx"]) == 2)
        let introspection = observed.spans("POST introspection")
        #expect(introspection.count == 2)
        #expect(introspection.allSatisfy { Observed.text($0.attributes.get("url.full")) == "https://simulated.example/introspect" })
        observed.expectNothingLeaks(
            [outcome.tokens.accessToken.value, SimulatedProvider.serviceSecret, "not-a-token-the-provider-issued", "subject-frank-8"])
    }
}
