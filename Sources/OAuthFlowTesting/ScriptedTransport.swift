import Foundation
import OAuthFlow

/// A transport whose answers a test scripts, counting the requests per path.
///
/// ```swift
/// let transport = ScriptedTransport { request, count in
///     count == 1 ? TransportResponse(status: 503) : try await provider.transport.send(request)
/// }
/// ```
public final class ScriptedTransport: HTTPTransport, Sendable {
    private let counts = Locked<[String: Int]>([:])
    private let handler: @Sendable (TransportRequest, Int) async throws -> TransportResponse

    /// - Parameter handler: Answers a request, given how many requests (this one included) its path has had.
    public init(_ handler: @escaping @Sendable (TransportRequest, Int) async throws -> TransportResponse) {
        self.handler = handler
    }

    /// How many requests `path` has had.
    public func count(_ path: String) -> Int { counts.withLock { $0[path, default: 0] } }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let path = request.url.path
        let n = counts.withLock { counts -> Int in
            counts[path, default: 0] += 1
            return counts[path, default: 0]
        }
        return try await handler(request, n)
    }
}
