import CoreMetrics
import Foundation
import OAuthFlow
import Tracing

/// What `/jwt-instrumented` reports to: a metrics backend and a tracer that do in process what real ones do (every
/// counter and histogram kept under a lock, every span built with its attributes, a W3C `traceparent` formatted when
/// the context is injected), then drop the finished spans instead of exporting them. What the library's metrics and
/// spans cost a request, apart from a backend's export (Docs/operations.md, "Overhead").
enum Instrumentation {
    /// An environment sending through `transport`, reporting to the backends below.
    static func environment(transport: any HTTPTransport) -> OAuthEnvironment {
        OAuthEnvironment(transport: transport, metrics: KeptMetrics(), tracer: DroppingTracer())
    }
}

// MARK: - Metrics

/// Counters and duration histograms kept in memory, each behind its own lock.
final class KeptMetrics: MetricsFactory {
    final class Count: CounterHandler, FloatingPointCounterHandler, MeterHandler, RecorderHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var value: Double = 0
        func increment(by amount: Int64) { lock.withLock { value += Double(amount) } }
        func increment(by amount: Double) { lock.withLock { value += amount } }
        func decrement(by amount: Double) { lock.withLock { value -= amount } }
        func set(_ value: Int64) { lock.withLock { self.value = Double(value) } }
        func set(_ value: Double) { lock.withLock { self.value = value } }
        func record(_ value: Int64) { set(value) }
        func record(_ value: Double) { set(value) }
        func reset() { lock.withLock { value = 0 } }
    }

    /// A histogram with Prometheus' default duration buckets, its sum and its count.
    final class Histogram: TimerHandler, @unchecked Sendable {
        static let bounds: [Int64] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000].map { $0 * 1_000_000 }
        private let lock = NSLock()
        private var buckets = [Int](repeating: 0, count: 12)
        private var sum: Int64 = 0
        func recordNanoseconds(_ duration: Int64) {
            let index = Self.bounds.firstIndex { duration <= $0 } ?? Self.bounds.count
            lock.withLock {
                buckets[index] += 1
                sum += duration
            }
        }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Count() }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { Count() }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Count() }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Count() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Histogram() }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

// MARK: - Tracing

/// A span's identity, carried in the context to its children and to `inject`.
struct DroppedSpanIdentity: Sendable {
    let trace: (UInt64, UInt64)
    let span: UInt64
}

private enum DroppedSpanKey: InstrumentationContextKey {
    typealias Value = DroppedSpanIdentity
}

/// A tracer that builds every span as an exporter's tracer would, and drops it when it ends.
///
/// Trace and span ids come from a SplitMix64 generator seeded once from the system, as OpenTelemetry's Go and Java
/// SDKs draw theirs from a fast generator: Swift's `SystemRandomNumberGenerator` makes a `getrandom` system call for
/// each number (260 ns on the project machine), three per span, which alone is about 2% of the repeated-token route.
/// `SYSTEM_RANDOM_IDS=1` draws them from it all the same.
struct DroppingTracer: Tracer {
    typealias Span = DroppedSpan

    /// SplitMix64 behind a lock.
    final class IDs: @unchecked Sendable {
        private let lock = NSLock()
        private var state = UInt64.random(in: 1...UInt64.max)
        private let system = ProcessInfo.processInfo.environment["SYSTEM_RANDOM_IDS"] == "1"

        func next() -> UInt64 {
            if system { return .random(in: 1...UInt64.max) }
            return lock.withLock {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return max(1, z ^ (z >> 31))
            }
        }
    }

    let ids = IDs()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> DroppedSpan {
        var context = context()
        let parent = context[DroppedSpanKey.self]
        let identity = DroppedSpanIdentity(trace: parent?.trace ?? (ids.next(), ids.next()), span: ids.next())
        context[DroppedSpanKey.self] = identity
        return DroppedSpan(operationName: operationName, context: context, kind: kind, start: instant().nanosecondsSinceEpoch)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let identity = context[DroppedSpanKey.self] else { return }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        injector.inject("00-\(hex(identity.trace.0))\(hex(identity.trace.1))-\(hex(identity.span))-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

/// A span kept in memory until it ends.
final class DroppedSpan: Tracing.Span, @unchecked Sendable {
    let context: InstrumentationContext
    let kind: SpanKind
    let start: UInt64
    private let lock = NSLock()
    private var name: String
    private var kept = SpanAttributes()
    private var status: SpanStatus?
    private var events: [SpanEvent] = []
    private var links: [SpanLink] = []
    private var end: UInt64?

    init(operationName: String, context: InstrumentationContext, kind: SpanKind, start: UInt64) {
        self.name = operationName
        self.context = context
        self.kind = kind
        self.start = start
    }

    var operationName: String {
        get { lock.withLock { name } }
        set { lock.withLock { name = newValue } }
    }

    var attributes: SpanAttributes {
        get { lock.withLock { kept } }
        set { lock.withLock { kept = newValue } }
    }

    var isRecording: Bool { lock.withLock { end == nil } }

    func setStatus(_ status: SpanStatus) { lock.withLock { self.status = status } }
    func addEvent(_ event: SpanEvent) { lock.withLock { events.append(event) } }
    func addLink(_ link: SpanLink) { lock.withLock { links.append(link) } }

    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let time = instant().nanosecondsSinceEpoch
        lock.withLock { end = time }
    }
}
