import CoreMetrics
import Tracing

/// What an API's token checks report (Docs/operations.md): a decision counter per provider and outcome, the
/// verified-token and introspection cache lookups, and a span per check. The handles a check that is accepted
/// counts with are made once, per provider, when the API is made: counting one costs two increments.
struct CheckInstruments: Sendable {
    let instruments: Instruments
    let providers: [String]
    private let accepted: [Counter?]
    /// Per provider: verified-token hits and misses, then introspection hits and misses.
    private let lookups: [[Counter?]]

    init(_ instruments: Instruments, providers: [String]) {
        self.instruments = instruments
        self.providers = providers
        accepted = providers.map { instruments.counter(.apiDecisions, [$0, "accepted", Instruments.none]) }
        lookups = providers.map { provider in
            [("verified_token", "hit"), ("verified_token", "miss"), ("introspection", "hit"), ("introspection", "miss")].map {
                instruments.counter(.apiCacheLookups, [provider, $0.0, $0.1])
            }
        }
    }

    /// Counts a check's decision and its cache lookup.
    func count(_ result: Result<ProtectedResource.Principal, ProtectedResource.Denial>, _ trace: CheckTrace) {
        guard instruments.metricsEnabled else { return }
        if let index = trace.provider, let source = trace.source {
            lookups[index][(source == .jwt ? 0 : 2) + (trace.hit ? 0 : 1)]?.increment()
        }
        switch result {
        case .success:
            if let index = trace.provider { accepted[index]?.increment() }
        case let .failure(denial):
            instruments.count(.apiDecisions, trace.provider.map { providers[$0] } ?? Instruments.none, "refused", denial.code.description)
        }
    }

    /// A check's span, a child of the task's current one (the host's request span); nil without a tracer.
    func startSpan() -> (any Span)? {
        instruments.startCheckSpan()
    }

    /// Ends a check's span with what it decided: the provider, the outcome, the refusal's code, the cache's answer.
    /// A check that could not reach the provider (`temporarily_unavailable`) marks the span as an error; a refusal
    /// does not, being the check doing its work.
    func end(_ span: any Span, _ result: Result<ProtectedResource.Principal, ProtectedResource.Denial>, _ trace: CheckTrace) {
        var attributes = SpanAttributes()
        attributes["oauthflow.provider"] = trace.provider.map { providers[$0] } ?? Instruments.none
        if trace.source != nil { attributes["oauthflow.cache"] = trace.hit ? "hit" : "miss" }
        switch result {
        case .success:
            attributes["oauthflow.outcome"] = "accepted"
        case let .failure(denial):
            attributes["oauthflow.outcome"] = "refused"
            attributes["oauthflow.code"] = denial.code.description
            if denial.code == .unavailable {
                attributes["error.type"] = denial.code.description
                span.setStatus(SpanStatus(code: .error))
            }
        }
        span.attributes = attributes
        span.end()
    }
}
