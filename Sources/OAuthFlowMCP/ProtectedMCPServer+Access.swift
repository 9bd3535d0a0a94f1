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

/// The accesses of the requests in flight, by a random handle the SDK's copy of the request carries in its place of the
/// token; an entry lives until the request's answer is sent.
final class AccessHandles: Sendable {
    /// The header that carries the handle to the SDK; a client's own header of this name is dropped.
    static let header = "OAuthFlow-MCP-Access"
    static let shared = AccessHandles()

    private let table = Locked([String: ProtectedMCPServer.Access]())

    /// Keeps `access` and returns its handle.
    func add(_ access: ProtectedMCPServer.Access) -> String {
        let handle = Base64URL.random(bytes: 24)
        table.withLock { $0[handle] = access }
        return handle
    }

    func access(_ handle: String) -> ProtectedMCPServer.Access? {
        table.withLock { $0[handle] }
    }

    func remove(_ handle: String) {
        _ = table.withLock { $0.removeValue(forKey: handle) }
    }
}
