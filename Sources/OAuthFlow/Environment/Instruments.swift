import CoreMetrics
import Foundation
import Tracing

/// What the library reports to the host's metrics and tracing backends (``OAuthEnvironment/metrics``,
/// ``OAuthEnvironment/tracer``): every metric's name and labels are written here, once, and each handle is made
/// once per set of label values and kept, so counting on a request's path costs a cached handle's increment.
///
/// Label values are provider ids (from the host's configuration, never from a request), outcomes and error codes
/// from fixed sets (``CodedError``): never a subject, a token, a secret or a URL. With swift-metrics' no-op factory
/// and `NoOpTracer`, the defaults, nothing is made and nothing is formatted.
package final class Instruments: Sendable {
    /// Every metric the library reports (Docs/operations.md lists them; a test holds the two to each other).
    package enum Metric: String, CaseIterable, Sendable {
        case signIns = "oauthflow_sign_ins_total"
        case refreshes = "oauthflow_refreshes_total"
        case requestDuration = "oauthflow_request_duration_seconds"
        case apiDecisions = "oauthflow_api_decisions_total"
        case apiCacheLookups = "oauthflow_api_cache_lookups_total"
        case dpopNonceRetries = "oauthflow_dpop_nonce_retries_total"
        case providerLogouts = "oauthflow_provider_logouts_total"
        case securityEvents = "oauthflow_security_events_total"
        case serviceTokens = "oauthflow_service_tokens_total"
        case postgresLockWait = "oauthflow_postgres_lock_wait_seconds"

        /// How a metric is made: a counter, or a timer (a histogram of seconds in Prometheus).
        package enum Kind: String, Sendable {
            case counter, timer
        }

        package var kind: Kind {
            switch self {
            case .requestDuration, .postgresLockWait: .timer
            default: .counter
            }
        }

        /// The names of its labels, in the order their values are given.
        package var labels: [String] {
            switch self {
            case .signIns, .refreshes, .apiDecisions: ["provider", "outcome", "code"]
            case .requestDuration: ["provider", "endpoint", "status"]
            case .apiCacheLookups: ["provider", "cache", "result"]
            case .dpopNonceRetries: ["provider", "server"]
            case .providerLogouts: ["provider", "channel", "outcome"]
            case .securityEvents: ["provider", "delivery", "outcome"]
            case .serviceTokens, .postgresLockWait: ["provider", "outcome"]
            }
        }
    }

    /// The outbound requests the library times and traces, by what they are for.
    package enum Endpoint: String, Sendable, CaseIterable {
        case token, par, userinfo, discovery, jwks, introspection, revocation
        case deviceAuthorization = "device_authorization"
        case grantManagement = "grant_management"
    }

    /// The label value that stands for "no provider" (a request refused before any provider was chosen) and for "no
    /// code" (a success).
    package static let none = "none"

    package let metrics: any MetricsFactory
    package let tracer: any Tracer
    /// Whether metrics go anywhere: false with swift-metrics' no-op factory.
    package let metricsEnabled: Bool
    /// Whether spans go anywhere: false with `NoOpTracer`.
    package let tracingEnabled: Bool
    private let counters = Locked<[Key: Counter]>([:])
    private let timers = Locked<[Key: CoreMetrics.Timer]>([:])

    private struct Key: Hashable {
        let metric: Metric
        let values: [String]
    }

    package init(metrics: any MetricsFactory, tracer: any Tracer) {
        self.metrics = metrics
        self.tracer = tracer
        metricsEnabled = !(metrics is NOOPMetricsHandler)
        tracingEnabled = !(tracer is NoOpTracer)
    }

    /// Instruments that report nothing: the default of every environment.
    package static let disabled = Instruments(metrics: NOOPMetricsHandler.instance, tracer: NoOpTracer())

    /// Instruments that count with `metrics` and make no spans: a token store's, which is given a factory of its own.
    package static func counting(_ metrics: any MetricsFactory) -> Instruments {
        metrics is NOOPMetricsHandler ? .disabled : Instruments(metrics: metrics, tracer: NoOpTracer())
    }

    // MARK: - Metrics

    /// The counter of `metric` with these label values (in ``Metric/labels`` order), made on first use and kept;
    /// nil when metrics are off.
    package func counter(_ metric: Metric, _ values: [String]) -> Counter? {
        guard metricsEnabled else { return nil }
        let key = Key(metric: metric, values: values)
        return counters.withLock { made in
            if let counter = made[key] { return counter }
            let counter = Counter(label: metric.rawValue, dimensions: Array(zip(metric.labels, values)), factory: metrics)
            made[key] = counter
            return counter
        }
    }

    /// Adds one to the counter of `metric` with these label values.
    package func count(_ metric: Metric, _ values: String...) {
        guard metricsEnabled else { return }
        counter(metric, values)?.increment()
    }

    /// Records a duration in the timer of `metric` with these label values.
    package func record(_ metric: Metric, _ duration: Duration, _ values: String...) {
        guard metricsEnabled else { return }
        let key = Key(metric: metric, values: values)
        let timer = timers.withLock { made in
            if let timer = made[key] { return timer }
            let timer = CoreMetrics.Timer(label: metric.rawValue, dimensions: Array(zip(metric.labels, values)), factory: metrics)
            made[key] = timer
            return timer
        }
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The code a failure is counted by: its ``CodedError`` code, `cancelled`, or `other`.
    package static func code(of error: any Error) -> String {
        if let coded = error as? any CodedError { return coded.codeName }
        if error is CancellationError { return "cancelled" }
        return "other"
    }

    // MARK: - Outbound requests

    /// `transport`, timing and tracing what it sends to `endpoint` of `provider`; `transport` itself when both
    /// metrics and tracing are off.
    package func transport(_ transport: any HTTPTransport, provider: String, endpoint: Endpoint) -> any HTTPTransport {
        guard metricsEnabled || tracingEnabled else { return transport }
        return InstrumentedTransport(base: transport, instruments: self, provider: provider, endpoint: endpoint)
    }

    /// Sends `request` through `send`, in a client span (OpenTelemetry's HTTP conventions, the W3C context injected
    /// into its headers by the tracer) and timed.
    func measure(
        _ request: TransportRequest, provider: String, endpoint: Endpoint,
        _ send: (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        var request = request
        var span: (any Span)?
        if tracingEnabled {
            let started = tracer.startSpan(
                "\(request.method.rawValue) \(endpoint.rawValue)", context: InstrumentationContext.current ?? .topLevel, ofKind: .client)
            started.attributes = Self.requestAttributes(request, provider: provider, endpoint: endpoint)
            tracer.inject(started.context, into: &request.headers, using: HeaderInjector())
            span = started
        }
        let began = ContinuousClock.now
        do {
            let response: TransportResponse
            if let span {
                // The host's own instrumented transport, if it has one, nests its spans under this one.
                response = try await InstrumentationContext.$current.withValue(span.context) { try await send(request) }
            } else {
                response = try await send(request)
            }
            record(.requestDuration, ContinuousClock.now - began, provider, endpoint.rawValue, "\(response.status / 100)xx")
            if let span {
                span.attributes["http.response.status_code"] = response.status
                if response.status >= 400 {
                    span.attributes["error.type"] = String(response.status)
                    span.setStatus(SpanStatus(code: .error))
                }
                span.end()
            }
            return response
        } catch {
            record(.requestDuration, ContinuousClock.now - began, provider, endpoint.rawValue, "error")
            if let span {
                span.attributes["error.type"] = Self.code(of: error)
                span.setStatus(SpanStatus(code: .error))
                span.end()
            }
            throw error
        }
    }

    /// A client span's attributes (OpenTelemetry HTTP client conventions): the method, the server, and the URL
    /// without its query, fragment or user information; the provider and the endpoint. Never a header or a body.
    static func requestAttributes(_ request: TransportRequest, provider: String, endpoint: Endpoint) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = request.method.rawValue
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        if let full = components?.string { attributes["url.full"] = full }
        if let host = request.url.host { attributes["server.address"] = host }
        let scheme = request.url.scheme?.lowercased()
        if let port = request.url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil) { attributes["server.port"] = port }
        attributes["oauthflow.provider"] = provider
        attributes["oauthflow.endpoint"] = endpoint.rawValue
        return attributes
    }

    // MARK: - API checks

    /// Starts the span of an API's token check, a child of the task's current context (the host's request span);
    /// nil when tracing is off.
    package func startCheckSpan() -> (any Span)? {
        guard tracingEnabled else { return nil }
        return tracer.startSpan("oauthflow.authenticate", context: InstrumentationContext.current ?? .topLevel, ofKind: .internal)
    }
}

extension OAuthEnvironment {
    /// This environment with its transport timing and tracing what it sends to `endpoint` of `provider`; itself when
    /// metrics and tracing are off.
    package func instrumented(_ endpoint: Instruments.Endpoint, provider: String) -> OAuthEnvironment {
        guard instruments.metricsEnabled || instruments.tracingEnabled else { return self }
        var copy = self
        copy.transport = instruments.transport(transport, provider: provider, endpoint: endpoint)
        return copy
    }
}
