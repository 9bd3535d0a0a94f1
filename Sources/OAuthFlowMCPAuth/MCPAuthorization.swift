import Foundation
import Logging
import OAuthFlow

/// Signs the user in to any MCP server from its URL, as the MCP authorization spec orders it, and keeps its session:
/// what the MCP Swift SDK's authorizer (`MCPAuthorizer`, in `OAuthFlowMCP`) and `oauthflow mcp` run, without the SDK.
///
/// ```swift
/// let authorization = MCPAuthorization(MCPAuthorization.Configuration(store: store, browser: SystemBrowser(environment: environment)))
/// let tokens = try await authorization.signIn(to: URL(string: "https://mcp.example.com/mcp")!)
/// ```
///
/// On the server's 401 (``handleChallenge(statusCode:headers:endpoint:operation:)``, or the probe ``signIn(to:scopes:)``
/// sends) it reads the protected-resource metadata (RFC 9728) the challenge names, or at the well-known locations;
/// checks that it is for this server; fetches the authorization server's metadata (RFC 8414 or OpenID Connect
/// Discovery, path-aware) and checks its issuer exactly; finds a client (one the host gives for the issuer, else one
/// registered before, else a client ID metadata document the server takes, else one registered with Dynamic Client
/// Registration, RFC 7591, and kept); and signs the user in through the browser and a loopback redirect with PKCE S256,
/// the `resource` indicator (RFC 8707) on the authorization, token and refresh requests, and pushed authorization
/// requests (RFC 9126) where the server has them. The session is stored in the configuration's `TokenStore` per
/// authorization server and MCP server, refreshed before it expires (one refresh however many requests ask) and reused
/// after a restart. A 403 `insufficient_scope` signs in again for the scopes held and those demanded, once per operation.
///
/// Every request goes through the environment's transport, with its deadline and size cap, and no redirect is followed.
/// Tokens are Bearer tokens: DPoP is not asked for (an MCP transport sends an `Authorization` header and no proof).
public final class MCPAuthorization: Sendable {
    /// What the authorization was made with.
    public let configuration: Configuration
    /// The `Authorization` header value of each MCP server, by canonical URI: what ``authorizationHeader(for:)`` answers
    /// without waiting.
    private let headers = Locked<[ResourceIdentifier: String]>([:])
    let state = AuthorizationState()

    /// - Parameter configuration: Where sessions and registered clients are kept, the browser, the clients the host
    ///   registered, and the environment.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    var environment: OAuthEnvironment { configuration.environment }
    var logger: Logger { configuration.environment.logger }

    /// Refuses an MCP server URL that is neither https nor http to a loopback host.
    ///
    /// - Throws: ``MCPAuthorizationError`` `insecure_url`.
    public func validateEndpointSecurity(for endpoint: URL) throws {
        guard TransportPolicy.isSecure(endpoint), ResourceIdentifier(endpoint) != nil else {
            throw MCPAuthorizationError(
                .insecureURL,
                "the MCP server URL \(ServerDiscovery.shown(endpoint.absoluteString)) is neither https nor http to a loopback host: no token is sent to it"
            )
        }
    }

    /// The `Authorization` header for `endpoint`: `Bearer` and the access token of its session, once one is known.
    public func authorizationHeader(for endpoint: URL) -> String? {
        guard let server = ResourceIdentifier(endpoint) else { return nil }
        return headers.withLock { $0[server] }
    }

    /// Refreshes the session of `endpoint` when its access token is about to expire (one refresh however many requests
    /// ask); nothing before the server's first challenge told where its authorization server is.
    ///
    /// - Throws: The refresh's errors (`AuthorizationServerError`, `FlowError`, `TransportError`).
    public func prepareAuthorization(for endpoint: URL) async throws {
        guard let server = ResourceIdentifier(endpoint), let context = await state.context(for: server) else { return }
        let tokens = try await context.manager.validTokens()
        await adopt(tokens, for: server, fresh: false)
    }

    /// Answers a 401 by signing in (or refreshing, or using the stored session), and a 403 `insufficient_scope` by
    /// signing in again for more scopes.
    ///
    /// - Parameters:
    ///   - statusCode: The answer's HTTP status.
    ///   - headers: The answer's headers; `WWW-Authenticate` is read whatever the case of its name.
    ///   - endpoint: The MCP server's URL.
    ///   - operation: What the request was for (an MCP method and tool), so that a step-up is done once per operation.
    /// - Returns: Whether the request should be sent again: false for a 403 that is not about scope, or another status.
    /// - Throws: ``MCPAuthorizationError`` for metadata, an issuer, a resource or a registration that cannot be used, or a
    ///   server that refuses what it was just given; the sign-in's own errors (`LoopbackError`, `AuthorizationServerError`,
    ///   `FlowError`, `TransportError`).
    public func handleChallenge(statusCode: Int, headers: [String: String], endpoint: URL, operation: String?) async throws -> Bool {
        try validateEndpointSecurity(for: endpoint)
        guard let server = ResourceIdentifier(endpoint) else { return false }
        let challenge = Self.bearerChallenge(in: headers)
        switch statusCode {
        case 401:
            try await authorize(server, challenge: challenge)
            return true
        case 403:
            guard challenge?.error == "insufficient_scope", let challenge else { return false }
            try await stepUp(server, challenge: challenge, operation: operation)
            return true
        default:
            return false
        }
    }

    // MARK: - Tokens

    /// The token `server` is sent from now on; `fresh` when it was just issued (by a sign-in or a refresh), so that a 401
    /// in answer to it is not answered with another sign-in.
    func adopt(_ tokens: TokenSet, for server: ResourceIdentifier, fresh: Bool) async {
        if fresh { await state.noteFresh(tokens.accessToken.value, at: environment.clock.now()) }
        headers.withLock { $0[server] = "Bearer " + tokens.accessToken.value }
    }

    /// The access token last sent to `server`, if any.
    func sentToken(to server: ResourceIdentifier) -> String? {
        headers.withLock { $0[server] }.map { String($0.dropFirst("Bearer ".count)) }
    }

    /// The first Bearer challenge of a `WWW-Authenticate` header, whatever the case of its name.
    static func bearerChallenge(in headers: [String: String]) -> AuthenticationChallenge? {
        let values = headers.filter { $0.key.lowercased() == "www-authenticate" }.map(\.value)
        return values.flatMap(AuthenticationChallenge.parse).first { $0.scheme.lowercased() == "bearer" }
    }
}
