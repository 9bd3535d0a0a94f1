#if MCP
import Crypto
import Foundation
import MCP
import OAuthFlow

extension ProtectedMCPServer {
    /// Who the request a handler is answering speaks for, read inside a `Server` method handler with ``current``.
    ///
    /// The SDK never sees the incoming access token: the `Authorization` and `DPoP` headers are taken off the request
    /// it is handed (`Server.currentHandlerContext?.httpContext`), so a tool cannot pass the token on by accident. A tool
    /// that calls an upstream API on the user's behalf asks for a token of that API with a token exchange (RFC 8693),
    /// ``tokenExchange(for:requestedTokenType:)``, never with the token it was called with (MCP authorization, "Token
    /// Passthrough").
    public struct Access: Sendable {
        /// The accepted token's principal: subject, client, scopes, every claim.
        public let principal: ProtectedResource.Principal
        /// The token itself: only ``tokenExchange(for:requestedTokenType:)`` hands it on, as the subject token.
        let token: Secret

        /// A token exchange request (RFC 8693 §2.1) whose subject is the incoming token, for `ServiceTokens.exchangedToken`
        /// or `OAuthClient.exchangeToken`: the token to call an upstream API with.
        ///
        /// - Parameters:
        ///   - target: The upstream API: its `resource` or `audience`, and the scopes wanted there.
        ///   - requestedTokenType: The token type wanted; nil leaves it to the authorization server.
        public func tokenExchange(for target: OAuthClient.ServiceTokenRequest, requestedTokenType: String? = nil)
            -> OAuthClient.TokenExchangeRequest
        {
            OAuthClient.TokenExchangeRequest(
                subjectToken: token, subjectTokenType: TokenTypeIdentifier.accessToken, requestedTokenType: requestedTokenType, target: target)
        }

        /// The access of the request the current method handler answers; nil outside a handler, or once the request's
        /// answer was sent. A `Task.detached` does not inherit it: read it first.
        public static var current: Access? {
            guard let handle = Server.currentHandlerContext?.httpContext?.header(AccessHandles.header) else { return nil }
            return AccessHandles.shared.access(handle)
        }
    }
}
#endif
