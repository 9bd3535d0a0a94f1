#if MCP
import Foundation

extension ProtectedMCPServer {
    /// An HTTP request as a framework adapter hands it over: every header as received (two `Authorization` headers
    /// stay two, and are refused), the collected body, and the TLS client certificate when there was one.
    public struct Request: Sendable {
        public var method: String
        /// The path, without the query.
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: Data
        /// The DER of the connection's TLS client certificate, for certificate-bound tokens (RFC 8705 §3).
        public var clientCertificate: [UInt8]?

        public init(method: String, path: String, headers: [(name: String, value: String)], body: Data = Data(), clientCertificate: [UInt8]? = nil) {
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
            self.clientCertificate = clientCertificate
        }

        /// The values of the header `name`, compared without case.
        public func values(_ name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
    }

    /// The answer for a framework adapter to send: a status, headers (a name may repeat, as `WWW-Authenticate` does)
    /// and a body, either whole or a stream of Server-Sent Events to write as it comes.
    public struct Response: Sendable {
        /// A body: the bytes, or an SSE stream that ends when the SDK is done with the request.
        public enum Body: Sendable {
            case bytes(Data)
            case stream(AsyncThrowingStream<Data, any Error>)
        }

        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: Body

        public init(status: Int, headers: [(name: String, value: String)], body: Body = .bytes(Data())) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The first value of the header `name`, compared without case.
        public func value(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }
}
#endif
