#if MCP
import Foundation
import Logging
import MCP
import OAuthFlow

extension ProtectedMCPServer {
    /// What a protected MCP server requires of tokens, and how it keeps sessions.
    public struct Configuration: Sendable {
        /// The scopes every request must have been granted, whatever it asks; none for any accepted token.
        public var scopes: [String]
        /// The scopes a `tools/call` of each tool requires, by tool name, on top of ``scopes``. A token without them
        /// is answered 403 `insufficient_scope` naming the scopes needed, before the SDK sees the call.
        public var toolScopes: [String: [String]]
        /// Sessions with `Mcp-Session-Id` and SSE streams (``SessionMode/stateful``), or one JSON answer per request.
        public var sessions: SessionMode
        /// How long a session may go unused before it is closed.
        public var sessionIdleTimeout: TimeInterval
        /// The most sessions kept open at once; when full, the one unused the longest is closed for a new one.
        public var maximumSessions: Int
        /// The most sessions one user (issuer and subject) keeps open; their new session closes their own session unused
        /// the longest, so that one user opening sessions cannot close everyone else's.
        public var maximumSessionsPerUser: Int
        /// The largest request body read, in bytes; a larger one is answered 413.
        public var maximumBodySize: Int
        /// Whether the metadata is also served at the root (`/.well-known/oauth-protected-resource`) when the server
        /// is at a path, for clients that look only there. Turn it off when another resource of the host owns the root.
        public var servesRootMetadata: Bool
        /// The `Host` values requests may carry (DNS rebinding protection); nil for the resource URL's own host, with
        /// and without its port. A server behind a proxy that rewrites `Host` lists what the proxy sends.
        public var allowedHosts: [String]?
        /// The browser origins a request may come from (`Origin`), besides the resource URL's own.
        public var allowedOrigins: [String]
        /// Receives why a request was refused or a session closed, at debug level; never a token.
        public var logger: Logger

        /// - Parameters:
        ///   - scopes: The scopes every request requires.
        ///   - toolScopes: The scopes each tool's `tools/call` requires too, by tool name.
        ///   - sessions: Stateful (sessions, SSE) or stateless (JSON answers) MCP over HTTP.
        public init(scopes: [String] = [], toolScopes: [String: [String]] = [:], sessions: SessionMode = .stateful) {
            self.scopes = scopes
            self.toolScopes = toolScopes
            self.sessions = sessions
            sessionIdleTimeout = 3600
            maximumSessions = 1000
            maximumSessionsPerUser = 16
            maximumBodySize = 4 * 1024 * 1024
            servesRootMetadata = true
            allowedHosts = nil
            allowedOrigins = []
            logger = Logger(label: "oauthflow.mcp.server", factory: { _ in SwiftLogNoOpLogHandler() })
        }
    }

    /// How the SDK's HTTP server transport is run.
    public enum SessionMode: Sendable, Hashable {
        /// `StatefulHTTPServerTransport`: an `initialize` opens a session (`Mcp-Session-Id`) with a `Server` of its own,
        /// answers stream as SSE, GET opens the server's stream and DELETE ends the session. A session belongs to the
        /// user whose token opened it: another user's token naming it is answered 404.
        case stateful
        /// `StatelessHTTPServerTransport`: every POST gets a `Server` of its own and one JSON answer; GET and DELETE
        /// are answered 405.
        case stateless
    }
}
#endif
