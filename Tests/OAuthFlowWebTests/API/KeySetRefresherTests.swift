import Foundation
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowTesting
import ServiceLifecycle
import Testing

/// `KeySetRefresher` in a `ServiceGroup`: the keys are fetched when the group starts, and graceful shutdown ends it.
@Suite struct KeySetRefresherTests {
    @Test func theKeysAreFetchedWhenTheGroupStartsAndGracefulShutdownStopsTheRefresher() async throws {
        let simulated = try OAuthFlowTesting.SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        var options = OAuthFlowTesting.SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        // The real clock: the refresher's next wait is twelve minutes, ended by the shutdown.
        let api = try ProtectedResource(
            providers: [try simulated.provider(options)], settings: .init(resource: URL(string: "https://api.simulated.example")!),
            environment: OAuthEnvironment(transport: simulated.transport))
        let group = ServiceGroup(services: [KeySetRefresher(api)], gracefulShutdownSignals: [], logger: Logger(label: "key-set-refresher-test"))
        let running = Task { try await group.run() }
        // Generous: in the full run, two cores serve every suite at once and a started task may wait its turn.
        let started = Date()
        while await simulated.requestCount(.jwks) == 0, Date().timeIntervalSince(started) < 60 { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(await simulated.requestCount(.jwks) == 1, "no key set fetched \(Int(Date().timeIntervalSince(started))) s after the start")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await simulated.requestCount(.jwks) == 1)
    }
}
