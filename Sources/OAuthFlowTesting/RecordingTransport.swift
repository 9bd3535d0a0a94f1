import Foundation
import OAuthFlow

/// Wraps a transport and records every request, so a test can prove what was (and was not) sent.
///
/// ```swift
/// let recording = RecordingTransport(provider.transport)
/// // … run the code under test with `recording` …
/// #expect(recording.requests.allSatisfy { $0.url.host == "simulated.example" })
/// ```
public final class RecordingTransport: HTTPTransport, Sendable {
    private let base: any HTTPTransport
    private let recorded = Locked<[TransportRequest]>([])

    /// - Parameter base: Sends the requests once recorded; a real transport by default.
    public init(_ base: any HTTPTransport = DefaultHTTPTransport(timeout: 15)) {
        self.base = base
    }

    /// Every request sent so far, in order.
    public var requests: [TransportRequest] { recorded.current }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        recorded.withLock { $0.append(request) }
        return try await base.send(request)
    }
}
