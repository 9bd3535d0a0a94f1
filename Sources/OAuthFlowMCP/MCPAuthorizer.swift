import Foundation
import MCP
import OAuthFlow
@_exported import OAuthFlowMCPAuth

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs the user in to any MCP server from its URL, for the MCP Swift SDK's `HTTPClientTransport`: an
/// `HTTPClientAuthorizer` that follows the MCP authorization spec with OAuthFlow's engine.
///
/// ```swift
/// let authorizer = MCPAuthorizer(MCPAuthorizer.Configuration(store: store, browser: SystemBrowser(environment: environment)))
/// let transport = HTTPClientTransport(endpoint: URL(string: "https://mcp.example.com/mcp")!, authorizer: authorizer)
/// ```
///
/// The work is `MCPAuthorization`'s (in `OAuthFlowMCPAuth`, which this module re-exports and the `oauthflow mcp`
/// commands use without the SDK): on the server's first 401 it reads the protected-resource metadata (RFC 9728),
/// checks that it is for this server, fetches the authorization server's metadata (RFC 8414 or OpenID Connect
/// Discovery, path-aware) and checks its issuer exactly, finds a client (the host's, one registered before, a client ID
/// metadata document, or Dynamic Client Registration, RFC 7591), and signs the user in through the browser and a
/// loopback redirect with PKCE S256 and the `resource` indicator (RFC 8707). The session is stored in the
/// configuration's `TokenStore` per authorization server and MCP server, refreshed before it expires and reused after a
/// restart. A 403 `insufficient_scope` signs in again for the scopes held and those demanded, once per operation.
///
/// Tokens are Bearer tokens: the transport sends only an `Authorization` header, with no DPoP proof, so DPoP is not
/// asked for.
public final class MCPAuthorizer: HTTPClientAuthorizer, Sendable {
    /// Where sessions and registered clients are kept, the browser, the clients the host registered, and the environment.
    public typealias Configuration = MCPAuthorization.Configuration

    /// What the authorizer was made with.
    public var configuration: Configuration { authorization.configuration }
    /// The discovery, registration, sign-in and sessions behind it.
    public let authorization: MCPAuthorization

    /// - Parameter configuration: Where sessions and registered clients are kept, the browser, the clients the host
    ///   registered, and the environment.
    public init(_ configuration: Configuration) {
        self.authorization = MCPAuthorization(configuration)
    }

    /// A 401 (sign in or refresh), a 403 `insufficient_scope` (step up), and one more try.
    public var maxAuthorizationAttempts: Int { 3 }

    /// Refuses an MCP server URL that is neither https nor http to a loopback host.
    public func validateEndpointSecurity(for endpoint: URL) throws {
        try authorization.validateEndpointSecurity(for: endpoint)
    }

    /// The `Authorization` header for `endpoint`: `Bearer` and the access token of its session, once one is known.
    public func authorizationHeader(for endpoint: URL) -> String? {
        authorization.authorizationHeader(for: endpoint)
    }

    /// Refreshes the session of `endpoint` when its access token is about to expire (one refresh however many requests
    /// ask); nothing before the server's first challenge told where its authorization server is.
    public func prepareAuthorization(for endpoint: URL, session: URLSession) async throws {
        try await authorization.prepareAuthorization(for: endpoint)
    }

    /// Answers a 401 by signing in (or refreshing, or using the stored session), and a 403 `insufficient_scope` by
    /// signing in again for more scopes.
    ///
    /// - Returns: Whether the request should be sent again: false for a 403 that is not about scope.
    /// - Throws: `MCPAuthorizationError` for metadata, an issuer, a resource or a registration that cannot be used, or a
    ///   server that refuses what it was just given; the sign-in's own errors (`LoopbackError`, `AuthorizationServerError`,
    ///   `FlowError`, `TransportError`).
    public func handleChallenge(
        statusCode: Int, headers: [String: String], endpoint: URL, operationKey: String?, session: URLSession
    ) async throws -> Bool {
        try await authorization.handleChallenge(statusCode: statusCode, headers: headers, endpoint: endpoint, operation: operationKey)
    }
}
