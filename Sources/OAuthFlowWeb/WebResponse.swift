import Foundation
import Logging
import OAuthFlow

/// An HTTP response for an adapter to send as it is.
public struct WebResponse: Sendable {
    public var status: Int
    /// Header fields in order; `Set-Cookie` may repeat.
    public var headers: [(name: String, value: String)]
    /// An HTML page (empty for redirects).
    public var body: String

    public init(status: Int, headers: [(name: String, value: String)], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
