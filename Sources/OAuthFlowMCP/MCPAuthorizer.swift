#if MCP
import Foundation
import MCP
import OAuthFlow
@_exported import OAuthFlowMCPAuth

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs the user in to any MCP server from its URL, for the MCP Swift SDK's `HTTPClientTransport`: an
/// `HTTPClientAuthorizer` that follows the MCP authorization spec with OAuthFlow's engine (`MCPAuthorization`).
///
/// ```swift
/// let authorizer = MCPAuthorizer(MCPAuthorizer.Configuration(store: store, browser: SystemBrowser(environment: environment)))
/// let transport = HTTPClientTransport(
///     endpoint: URL(string: "https://mcp.example.com/mcp")!, authorizer: authorizer, requestModifier: authorizer.requestModifier)
/// ```
///
/// Give the transport ``requestModifier`` too: it adds each request's DPoP proof, without which sessions are Bearer
/// sessions.
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

    /// Adds a request's DPoP proof (RFC 9449) when its token is DPoP-bound: give it to `HTTPClientTransport` as its
    /// `requestModifier`, beside the authorizer. The transport sets `Authorization` first; the proof, signed ahead for
    /// the request's method, URL and token (and the server's latest `DPoP-Nonce`), goes in the `DPoP` header.
    public var requestModifier: @Sendable (URLRequest) -> URLRequest {
        { [authorization] request in
            guard let url = request.url,
                let proof = authorization.dpopProof(
                    method: request.httpMethod ?? "GET", url: url, authorization: request.value(forHTTPHeaderField: "Authorization"))
            else { return request }
            var signed = request
            signed.setValue(proof, forHTTPHeaderField: "DPoP")
            return signed
        }
    }

    /// A 401 (sign in or refresh), a 403 `insufficient_scope` (step up), and one more try.
    public var maxAuthorizationAttempts: Int { 3 }

    /// Refuses an MCP server URL that is neither https nor http to a loopback host.
    public func validateEndpointSecurity(for endpoint: URL) throws {
        try authorization.validateEndpointSecurity(for: endpoint)
    }

    /// The `Authorization` header for `endpoint`, once a session is known: `Bearer` and its access token, or `DPoP` and the
    /// token for a DPoP-bound session (whose proof ``requestModifier`` adds).
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
#endif
