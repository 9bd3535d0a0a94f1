import Foundation

extension TransportRequest {
    /// The request methods OAuthFlow sends.
    public enum Method: String, Sendable, Hashable {
        case get = "GET"
        case post = "POST"
        /// Revocation at providers that revoke with `DELETE` (`revocation.method`).
        case delete = "DELETE"
    }
}

/// Sends HTTP requests for the engine.
///
/// Implementations must not follow redirects: a token endpoint that answers 3xx
/// must not make the client resend credentials somewhere else. Tests inject their
/// own transport to simulate broken servers.
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Sends a request and calls `arrival` with the response the moment its last byte is read,
    /// on the thread that read it, before handing it back.
    ///
    /// The token manager makes a refresh answer durable there: a rotating server has spent the
    /// old refresh token by then, and every hop between threads is time in which a killed
    /// process would lose the new one. Transports that cannot do better use the default, which
    /// calls `arrival` once ``send(_:)`` returns.
    func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse
}

extension HTTPTransport {
    public func send(_ request: TransportRequest, arrival: @escaping @Sendable (TransportResponse) -> Void) async throws -> TransportResponse {
        let response = try await send(request)
        arrival(response)
        return response
    }
}
