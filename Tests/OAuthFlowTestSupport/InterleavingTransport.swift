import OAuthFlow

/// Sends through `base`, running `before` first: another process (or a suspended one's rival) acting before this
/// request leaves, so that a test can stage a race at the moment it matters.
public struct InterleavingTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let before: @Sendable (TransportRequest) async throws -> Void

    public init(base: any HTTPTransport, before: @escaping @Sendable (TransportRequest) async throws -> Void) {
        self.base = base
        self.before = before
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await before(request)
        return try await base.send(request)
    }

    public func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        try await before(request)
        return try await base.send(request, arrival: arrival)
    }
}
