import CoreMetrics
import Foundation
import Tracing

/// A transport that times and traces what it sends to one endpoint of one provider (``Instruments/transport(_:provider:endpoint:)``).
struct InstrumentedTransport: HTTPTransport {
    let base: any HTTPTransport
    let instruments: Instruments
    let provider: String
    let endpoint: Instruments.Endpoint

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await instruments.measure(request, provider: provider, endpoint: endpoint) { try await base.send($0) }
    }

    func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        try await instruments.measure(request, provider: provider, endpoint: endpoint) { try await base.send($0, arrival: arrival) }
    }
}
