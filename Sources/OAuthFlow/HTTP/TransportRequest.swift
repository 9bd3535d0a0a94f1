import Foundation

/// An HTTP request as the engine builds it.
public struct TransportRequest: Sendable {
    public var method: TransportRequest.Method
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// A client certificate to present (RFC 8705); transports that cannot present one refuse the request.
    public var clientIdentity: TLSClientIdentity?

    public init(
        method: TransportRequest.Method, url: URL, headers: [String: String] = [:], body: Data? = nil, clientIdentity: TLSClientIdentity? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.clientIdentity = clientIdentity
    }
}
