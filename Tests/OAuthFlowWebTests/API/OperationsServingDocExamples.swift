import Foundation
import Hummingbird
import InMemoryTracing
import Logging
import NIOCore
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowTestSupport
import OAuthFlowTesting
import Prometheus
import ServiceLifecycle
import Testing
import Tracing

/// Docs/operations.md, "Serving `/metrics`", run against the simulated provider served over HTTP: the API's metrics
/// scraped from the app it protects, its checks traced, and the group's task cancelled at the end.
@Suite struct OperationsServingDocExamples {
    /// The page's example, up to the service group: an API whose metrics go to a Prometheus registry that `GET /metrics`
    /// shows, and the app that serves both.
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func parts(providers: URL, resource: URL, tracer: any Tracer, port: Int, logger: Logger) throws -> (api: ProtectedResource, app: any Service) {
        let registry = PrometheusCollectorRegistry()
        var environment = OAuthEnvironment(logger: logger)
        environment.metrics = PrometheusMetricsFactory(registry: registry)
        environment.tracer = tracer
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [providers], environment: environment))
        let api = try oauth.protectedResource(trusting: ["simulated"], settings: .init(resource: resource))

        let router = Router(context: BasicAccessRequestContext.self)
        router.group("notes")
            .add(middleware: AccessTokenMiddleware(api, requiring: ["notes:read"]))
            .get { _, context in context.accessPrincipal?.subject ?? "" }
        router.get("metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        return (api, app)
    }

    /// The page's example whole: the app and the key refresher in one group that a signal shuts down. The test runs
    /// the same group without the signals, which would stay installed in the test process for every later test.
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func serve(providers: URL, resource: URL, tracer: any Tracer, port: Int, logger: Logger) async throws {
        let (api, app) = try parts(providers: providers, resource: resource, tracer: tracer, port: port, logger: logger)
        let services = ServiceGroup(services: [KeySetRefresher(api), app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await services.run()
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test(.timeLimit(.minutes(5))) func theAPIsMetricsAreScrapedAndItsChecksTraced() async throws {
        let authorizationServer = try await SimulatedProviderServer.start()
        defer { Task { await authorizationServer.stop() } }
        let simulated = authorizationServer.provider
        await simulated.configure { $0.accessTokenFormat = .jwt }
        var options = OAuthFlowTesting.SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let providers = FileManager.default.temporaryDirectory.appendingPathComponent("operations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: providers) }
        try simulated.descriptorText(options).write(to: providers.appendingPathComponent("simulated.yaml"), atomically: true, encoding: .utf8)
        let resource = try #require(URL(string: "https://notes.example"))
        let tracer = InMemoryTracer()
        let port = try unusedPort()
        let logger = Logger(label: "operations-doc")
        let (api, app) = try Self.parts(providers: providers, resource: resource, tracer: tracer, port: port, logger: logger)
        let serving = Task {
            try await ServiceGroup(services: [KeySetRefresher(api), app], gracefulShutdownSignals: [], logger: logger).run()
        }
        defer { serving.cancel() }

        // A token for the API from the provider's service client, over HTTP.
        let service = OAuth(OAuth.Configuration(
            providerDirectories: [providers],
            serviceClients: ["simulated": ClientSettings(clientID: OAuthFlowTesting.SimulatedProvider.serviceClientID, secret: Secret(OAuthFlowTesting.SimulatedProvider.serviceSecret))]))
        let token = try await service.serviceTokens(for: "simulated")
            .accessToken(OAuthClient.ServiceTokenRequest(scopes: ["notes:read"], resources: [resource.absoluteString]))
        let http = DefaultHTTPTransport(timeout: 60)
        let notes = try #require(URL(string: "http://127.0.0.1:\(port)/notes"))
        var accepted: TransportResponse?
        // The app is up once it answers; on a loaded machine that can take a while.
        for _ in 0..<600 where accepted == nil {
            accepted = try? await http.send(TransportRequest(method: .get, url: notes, headers: ["Authorization": "Bearer \(token.value)"]))
            if accepted == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(accepted?.status == 200)
        let refused = try await http.send(TransportRequest(method: .get, url: notes))
        #expect(refused.status == 401)

        let scrape = try await http.send(TransportRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(port)/metrics"))))
        #expect(scrape.status == 200)
        let text = String(decoding: scrape.body, as: UTF8.self)
        #expect(text.contains(#"oauthflow_api_decisions_total{provider="simulated",outcome="accepted",code="none"} 1"#), "\(text)")
        #expect(text.contains(#"oauthflow_api_decisions_total{provider="none",outcome="refused",code="missing_token"} 1"#), "\(text)")
        #expect(text.contains(#"oauthflow_request_duration_seconds_count{provider="simulated",endpoint="jwks",status="2xx"}"#), "\(text)")
        #expect(!text.contains(token.value))
        let checks = tracer.finishedSpans.filter { $0.operationName == "oauthflow.authenticate" }
        #expect(checks.count == 2, "\(tracer.finishedSpans.map(\.operationName))")

        // Cancelling the group's task cancels its services, and the group's run returns.
        serving.cancel()
        _ = try? await serving.value
    }
}
