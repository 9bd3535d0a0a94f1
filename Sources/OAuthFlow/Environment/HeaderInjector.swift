import CoreMetrics
import Foundation
import Tracing

/// Writes the tracer's context into a request's headers (`traceparent` and `tracestate` for a W3C tracer).
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
