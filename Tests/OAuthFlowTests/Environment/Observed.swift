import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import OAuthFlow
import Testing
import Tracing

/// An environment whose metrics and spans go to in-memory backends, and what they received.
final class Observed: Sendable {
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()

    /// `base` reporting to these backends.
    func environment(_ base: OAuthEnvironment) -> OAuthEnvironment {
        var environment = base
        environment.metrics = metrics
        environment.tracer = tracer
        return environment
    }

    /// The sum of the counters of `metric` whose labels include `labels`.
    func count(_ metric: Instruments.Metric, _ labels: [String: String] = [:]) -> Int64 {
        metrics.counters.filter { $0.label == metric.rawValue && Self.matches($0.dimensions, labels) }.reduce(0) { $0 + $1.totalValue }
    }

    /// How many durations the timers of `metric` whose labels include `labels` recorded.
    func timings(_ metric: Instruments.Metric, _ labels: [String: String] = [:]) -> Int {
        metrics.timers.filter { $0.label == metric.rawValue && Self.matches($0.dimensions, labels) }.reduce(0) { $0 + $1.values.count }
    }

    /// The finished spans named `name`.
    func spans(_ name: String) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.operationName == name }
    }

    /// A span attribute's value as text.
    static func text(_ attribute: SpanAttribute?) -> String? {
        switch attribute {
        case let .string(value)?: value
        case let .int64(value)?: String(value)
        case let .int32(value)?: String(value)
        case let .bool(value)?: String(value)
        case let attribute?: "\(attribute)"
        case nil: nil
        }
    }

    private static func matches(_ dimensions: [(String, String)], _ labels: [String: String]) -> Bool {
        labels.allSatisfy { name, value in dimensions.contains { $0 == (name, value) } }
    }

    /// Every text the backends received: each metric's name, label names and values, each span's name, attribute
    /// names and values, events and recorded errors.
    var everything: [String] {
        var texts: [String] = []
        for counter in metrics.counters { texts += [counter.label] + counter.dimensions.flatMap { [$0.0, $0.1] } }
        for timer in metrics.timers { texts += [timer.label] + timer.dimensions.flatMap { [$0.0, $0.1] } }
        for span in tracer.finishedSpans {
            texts.append(span.operationName)
            span.attributes.forEach { name, value in texts += [name, Self.text(value) ?? ""] }
            texts += span.events.map { "\($0.name) \($0.attributes)" }
            texts += span.errors.map { "\($0.error)" }
        }
        return texts
    }

    /// Fails when a metric label or span attribute carries any of `secrets` (tokens, the client secret, the code,
    /// the subject) or a query string, or when a metric is not one `Instruments.Metric` lists with its labels.
    func expectNothingLeaks(_ secrets: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let secrets = secrets.filter { $0.count >= 4 }
        #expect(!secrets.isEmpty, "no secrets to look for", sourceLocation: sourceLocation)
        let all = everything
        #expect(tracer.activeSpans.isEmpty, "\(tracer.activeSpans.count) spans were never ended", sourceLocation: sourceLocation)
        for text in all {
            for secret in secrets where text.contains(secret) {
                Issue.record("a metric or span carries a secret: \(text.prefix(120))", sourceLocation: sourceLocation)
            }
            if text.contains("?") { Issue.record("a metric or span carries a query string: \(text.prefix(120))", sourceLocation: sourceLocation) }
        }
        let known = Dictionary(uniqueKeysWithValues: Instruments.Metric.allCases.map { ($0.rawValue, $0) })
        let made: [(String, [(String, String)])] = metrics.counters.map { ($0.label, $0.dimensions) } + metrics.timers.map { ($0.label, $0.dimensions) }
        for (label, dimensions) in made {
            guard let metric = known[label] else {
                Issue.record("\(label) is not a metric Instruments lists", sourceLocation: sourceLocation)
                continue
            }
            #expect(dimensions.map(\.0) == metric.labels, "\(label)'s labels", sourceLocation: sourceLocation)
        }
    }
}
