#if NIO
import Foundation

/// A request that reached the redirect path.
public struct LoopbackRequest: Sendable {
    /// `GET` (query response mode) or `POST` (`form_post`).
    public let method: String
    /// The full redirect URL as the browser requested it, query included.
    public let url: URL
    /// The body, for `form_post`.
    public let body: Data
}
#endif
