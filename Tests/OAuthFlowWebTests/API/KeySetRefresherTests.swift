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

    /// An API whose tokens are only introspected has no keys to keep: its refresher stays until the shutdown, so that
    /// the group (and the app beside it) keeps running.
    @Test func aRefresherWithNoKeysToKeepWaitsForTheShutdown() async throws {
        let simulated = try OAuthFlowTesting.SimulatedProvider()
        let api = try ProtectedResource(
            providers: [try simulated.provider()], settings: .init(resource: URL(string: "https://api.simulated.example")!),
            introspectionClients: [
                "simulated": .service(
                    clientID: OAuthFlowTesting.SimulatedProvider.serviceClientID,
                    clientSecret: Secret(OAuthFlowTesting.SimulatedProvider.serviceSecret))
            ],
            environment: OAuthEnvironment(transport: simulated.transport))
        let group = ServiceGroup(services: [KeySetRefresher(api)], gracefulShutdownSignals: [], logger: Logger(label: "key-set-refresher-test"))
        let running = Task { try await group.run() }
        let ended = Locked(false)
        let watcher = Task {
            _ = try? await running.value
            ended.withLock { $0 = true }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(!ended.current, "the group ended by itself: a refresher with nothing to refresh returned")
        await group.triggerGracefulShutdown()
        try await running.value
        await watcher.value
        #expect(await simulated.requestCount(.jwks) == 0)
    }
}
