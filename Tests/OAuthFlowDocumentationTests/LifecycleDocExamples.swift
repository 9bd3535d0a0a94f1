import Hummingbird
import Logging
import OAuthFlow
import OAuthFlowPostgres
import ServiceLifecycle

/// The swift-service-lifecycle examples of Docs/tokens.md and Docs/web.md, compiled
/// (`DocExampleTests.swiftExamplesAreCompiledByTests`); PostgresOutageTests runs a store in a group and shuts it down.
struct LifecycleDocExamples {
    /// Docs/tokens.md, the PostgreSQL store in the host's `ServiceGroup`.
    func tokensExample(store: PostgresTokenStore, app: some Service, logger: Logger) async throws {
        let group = ServiceGroup(configuration: .init(
            services: [store, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Docs/web.md, a Hummingbird app and its session store in one `ServiceGroup`.
    @available(macOS 14, iOS 17, tvOS 17, *)
    func webExample(router: Router<BasicRequestContext>, store: PostgresTokenStore) async throws {
        var app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
        app.beforeServerStarts { try await store.migrate() }
        let group = ServiceGroup(configuration: .init(
            services: [store, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger))
        try await group.run()
    }
}
