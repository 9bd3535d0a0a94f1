import Foundation
import OAuthFlow
import OAuthFlowTesting
import OAuthFlowVapor
import Testing
import Vapor

/// `KeySetRefreshHandler`: the keys are fetched when the application boots, and its shutdown ends the refresh.
@Suite struct KeySetRefreshHandlerTests {
    @Test func theKeysAreFetchedWhenTheApplicationBootsAndShutdownStopsTheRefresh() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let api = try ProtectedResource(
            providers: [try simulated.provider(options)], settings: .init(resource: URL(string: "https://api.simulated.example")!),
            environment: OAuthEnvironment(transport: simulated.transport))
        let app = try await Application.make(.testing)
        let handler = KeySetRefreshHandler(api)
        app.lifecycle.use(handler)
        try await app.asyncBoot()
        // Generous: in the full run, two cores serve every suite at once and a started task may wait its turn.
        let started = Date()
        while await simulated.requestCount(.jwks) == 0, Date().timeIntervalSince(started) < 60 { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(await simulated.requestCount(.jwks) == 1, "no key set fetched \(Int(Date().timeIntervalSince(started))) s after the start")
        try await app.asyncShutdown()
        #expect(await simulated.requestCount(.jwks) == 1)
    }
}
