#if NIO
import Foundation

/// What to answer a request on the redirect path with.
public struct LoopbackResponse: Sendable {
    public var status: Int
    public var html: String
    /// Whether this request ends the wait (a valid callback, successful or not).
    public var finishes: Bool
    /// Where a redirect (303) sends the browser.
    public var location: URL?

    public init(status: Int, html: String, finishes: Bool, location: URL? = nil) {
        self.status = status
        self.html = html
        self.finishes = finishes
        self.location = location
    }
}
#endif
