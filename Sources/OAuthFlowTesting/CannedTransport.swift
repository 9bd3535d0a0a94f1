import Foundation
import OAuthFlow

/// A transport that answers every request with one canned response, for failures no real server produces.
///
/// ```swift
/// let broken = CannedTransport(status: 200, body: #"{"token_type":"bearer"}"#)   // no access_token
/// ```
public struct CannedTransport: HTTPTransport {
    /// The answer to every request.
    public let response: TransportResponse

    /// - Parameters:
    ///   - status: The answer's HTTP status.
    ///   - contentType: Its `Content-Type`.
    ///   - body: Its body, as text.
    public init(status: Int = 200, contentType: String = "application/json", body: String) {
        response = TransportResponse(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse { response }
}
