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

#if os(Linux) || os(Android)  // as Package.swift links async-http-client (AsyncHTTPClientTransport.swift)
/// The transport OAuthFlow uses unless given another: ``AsyncHTTPClientTransport`` on Linux,
/// `URLSessionTransport` on Apple platforms. Both take `timeout:` (the total deadline of a
/// request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = AsyncHTTPClientTransport
#else
/// The transport OAuthFlow uses unless given another: ``AsyncHTTPClientTransport`` on Linux,
/// `URLSessionTransport` on Apple platforms. Both take `timeout:` (the total deadline of a
/// request) and `maximumResponseSize:`.
public typealias DefaultHTTPTransport = URLSessionTransport
#endif

extension ErrorCode where Domain == TransportError {
    /// No complete answer within the request's total deadline, or no connection within it.
    public static let timedOut = Self("timed_out")
    /// The server could not be reached: a refused connection, an unknown host.
    public static let unreachable = Self("unreachable")
    /// The TLS handshake failed, or the server's certificate is not trusted.
    public static let tls = Self("tls")
    /// The answer's body is larger than the transport accepts.
    public static let tooLarge = Self("too_large")
    /// The server answered with something that is no usable HTTP answer: no head, a compressed body,
    /// a connection closed or a body stalled midway.
    public static let badAnswer = Self("bad_answer")
    /// The URL is plain http to a host that is not loopback, which no token travels over.
    public static let insecure = Self("insecure")
    /// The client certificate or its key cannot be used (or this transport cannot present one).
    public static let clientCertificate = Self("client_certificate")
    /// Any other failure.
    public static let failed = Self("failed")
}

extension TransportError: CodedError {}
