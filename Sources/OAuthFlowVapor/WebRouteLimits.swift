#if Vapor
import Foundation
import OAuthFlow
import OAuthFlowWeb
import Vapor

/// How much of a request body the web routes read.
enum WebRouteLimits {
    /// A `form_post` callback or a logout token: a small urlencoded body.
    static let formBody = max(WebSignIn.maximumFormPostSize, ProviderLogoutReceiver.maximumBodySize)
    /// What a route that reads no body lets Vapor collect (Vapor refuses a streamed body that reaches it).
    static let collectedBody = ByteCount(value: formBody + 1)
}
#endif
