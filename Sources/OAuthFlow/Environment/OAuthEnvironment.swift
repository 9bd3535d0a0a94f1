import CoreMetrics
import Foundation
import Logging
import Tracing

/// What every object the library makes shares: how requests are sent, what time it is, where log lines go,
/// the servers' DPoP nonces, and where metrics and spans go.
/// Nothing here reads the process environment or the user's files.
///
/// ```swift
/// var environment = OAuthEnvironment()
/// environment.logger = Logger(label: "myapp.oauth")
/// let oauth = OAuth(OAuth.Configuration(store: InMemoryTokenStore(), environment: environment))
/// ```
public struct OAuthEnvironment: Sendable {
    /// Sends every request: the platform's transport (``AsyncHTTPClientTransport`` on Linux, `URLSessionTransport`
    /// on Apple platforms) unless the host hands in its own (on Linux, an ``AsyncHTTPClientTransport`` over the
    /// host's `HTTPClient`, or a test's transport).
    public var transport: any HTTPTransport
    /// The wall clock: issue and expiry times, refresh windows, caches, and the device flow's wait between polls.
    public var clock: any DateClock
    /// Receives debug and trace lines, at info or below; secrets are never logged. Discards everything by default.
    public var logger: Logger
    /// The latest `DPoP-Nonce` of each server (RFC 9449 §8): the process's by default.
    public var nonces: DPoPNonces
    /// Receives the library's counters and timers (sign-ins, refreshes, request latency, API decisions, caches);
    /// swift-metrics' no-op factory by default, which reports nothing and costs nothing.
    public var metrics: any MetricsFactory {
        didSet { instruments = Instruments(metrics: metrics, tracer: tracer) }
    }
    /// Receives a span for each outbound request and each API token check, and propagates the trace context on
    /// outbound requests; `NoOpTracer` by default.
    public var tracer: any Tracer {
        didSet { instruments = Instruments(metrics: metrics, tracer: tracer) }
    }
    /// The metric handles made from ``metrics`` and the ``tracer``, shared by every object made from this environment.
    package private(set) var instruments: Instruments

    /// - Parameters:
    ///   - transport: Sends every request.
    ///   - clock: The wall clock.
    ///   - logger: Receives the library's log lines; a logger that discards them by default.
    ///   - nonces: Where servers' DPoP nonces are kept.
    ///   - metrics: Receives the library's metrics; none are reported by default.
    ///   - tracer: Receives the library's spans; none are made by default.
    public init(
        transport: any HTTPTransport = DefaultHTTPTransport(), clock: any DateClock = SystemDateClock(),
        logger: Logger = .disabled, nonces: DPoPNonces = .shared, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        tracer: any Tracer = NoOpTracer()
    ) {
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.nonces = nonces
        self.metrics = metrics
        self.tracer = tracer
        let disabled = metrics is NOOPMetricsHandler && tracer is NoOpTracer
        instruments = disabled ? .disabled : Instruments(metrics: metrics, tracer: tracer)
    }
}

extension Logger {
    /// A logger that discards every line: the library's default, since a library never bootstraps logging.
    @usableFromInline package static var disabled: Logger { Logger(label: "oauthflow", factory: { _ in SwiftLogNoOpLogHandler() }) }
}
