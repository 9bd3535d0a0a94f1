import Foundation

extension ProtectedResource {
    /// A request as an API received it: what the checks of its access token read.
    public struct Request: Sendable {
        /// Every `Authorization` header of the request (a request with two is refused).
        public var authorization: [String]
        /// Every `DPoP` header of the request (RFC 9449 §4.3: exactly one with a DPoP-bound token).
        public var dpop: [String]
        /// The request's method, as sent (`GET`, `POST`, ...).
        public var method: String
        /// The URL the client addressed, as it sees it (behind a proxy, the public one); DPoP proofs name it in `htu`.
        public var url: URL?
        /// The client certificate of the TLS connection (DER), for certificate-bound tokens (RFC 8705).
        public var clientCertificate: [UInt8]?

        public init(authorization: [String], dpop: [String] = [], method: String = "GET", url: URL? = nil, clientCertificate: [UInt8]? = nil) {
            self.authorization = authorization
            self.dpop = dpop
            self.method = method
            self.url = url
            self.clientCertificate = clientCertificate
        }

        /// A request with one `Authorization` header (or none), and one `DPoP` header (or none).
        public init(authorization: String?, dpop: String? = nil, method: String = "GET", url: URL? = nil, clientCertificate: [UInt8]? = nil) {
            self.init(
                authorization: authorization.map { [$0] } ?? [], dpop: dpop.map { [$0] } ?? [], method: method, url: url,
                clientCertificate: clientCertificate)
        }
    }
}
