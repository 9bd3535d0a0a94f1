#if NIO
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
/// A request on a DPoP-bound session must carry the proof ``dpopProof(method:url:authorization:)`` makes.
public final class MCPAuthorization: Sendable {
    /// What the authorization was made with.
    public let configuration: Configuration
    /// The token each MCP server is sent, by canonical URI: what ``authorizationHeader(for:)`` answers without waiting.
    private let presented = Locked<[ResourceIdentifier: Presented]>([:])
    let state = AuthorizationState()
    /// DPoP proofs signed ahead of their requests.
    let proofs = PreparedProofs()

    /// The access token sent to a server, and the DPoP key it is bound to, if any.
    struct Presented: Sendable {
        let token: String
        let key: DPoPKey?
        /// `DPoP` and the token for a DPoP-bound token (RFC 9449 §7.1), `Bearer` and the token otherwise.
        var header: String { (key == nil ? "Bearer " : "DPoP ") + token }
    }

    /// - Parameter configuration: Where sessions and registered clients are kept, the browser, the clients the host
    ///   registered, and the environment.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    var environment: OAuthEnvironment { configuration.environment }
    var logger: Logger { configuration.environment.logger }

    /// A client of `provider`, made by the configuration's front door: every client of a provider shares its discovery cache.
    func client(of provider: Provider, _ client: ClientConfiguration) -> OAuthClient {
        configuration.oauth.client(of: provider, configuration: client)
    }

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

    /// The `Authorization` header for `endpoint`, once a session is known: `Bearer` and its access token, or `DPoP` and
    /// the token when the session is DPoP-bound (the `DPoP` header is ``dpopProof(method:url:authorization:)``'s).
    public func authorizationHeader(for endpoint: URL) -> String? {
        guard let server = ResourceIdentifier(endpoint) else { return nil }
        return presented.withLock { $0[server] }?.header
    }

    /// Refreshes the session of `endpoint` when its access token is about to expire (one refresh however many requests
    /// ask); nothing before the server's first challenge told where its authorization server is.
    ///
    /// - Throws: The refresh's errors (`AuthorizationServerError`, `FlowError`, `TransportError`).
    public func prepareAuthorization(for endpoint: URL) async throws {
        guard let server = ResourceIdentifier(endpoint), let context = await state.context(for: server) else { return }
        let tokens = try await currentTokens(context, interactive: true)
        try requireProofs(for: tokens, server: server)
        try await adopt(tokens, in: context, fresh: false)
        await prepareProofs(for: endpoint)
    }

    /// Answers a 401 by signing in (or refreshing, or using the stored session), and a 403 `insufficient_scope` by
    /// signing in again for more scopes. A 401 `use_dpop_nonce` (RFC 9449 §9) keeps the server's `DPoP-Nonce` for the
    /// next proof, and a 401 to a DPoP request that left without its proof is answered with a proof; neither signs in.
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
        let challenge = Self.challenge(in: headers)
        switch statusCode {
        case 401:
            if try await !answerProofChallenge(challenge, headers: headers, endpoint: endpoint) {
                try await authorize(server, challenge: challenge)
            }
        case 403:
            guard challenge?.error == "insufficient_scope", let challenge else { return false }
            try await stepUp(server, challenge: challenge, operation: operation)
        default:
            return false
        }
        await prepareProofs(for: endpoint)
        return true
    }

    // MARK: - Tokens

    /// The one gate a token passes before `context`'s MCP server is sent it, on every grant: one the authorization server
    /// says is for another resource (``checkResource(of:for:)``) is taken out of the store and refused, `token_mismatch`.
    /// `fresh` when it was just issued (by a sign-in or a refresh), so that a 401 in answer to it is not answered with
    /// another sign-in.
    func adopt(_ tokens: TokenSet, in context: AuthorizationState.Context, fresh: Bool) async throws {
        do {
            try Self.checkResource(of: tokens, for: context, everyAudience: context.grant.presentsAssertion)
        } catch {
            presented.withLock { $0[context.server] = nil }
            await context.manager.reload()
            if (try? await context.manager.session())?.tokens.accessToken == tokens.accessToken {
                try? await configuration.store.remove(context.key)
                await context.manager.reload()
            }
            throw error
        }
        if fresh { await state.noteFresh(tokens.accessToken.value, at: environment.clock.now()) }
        presented.withLock { $0[context.server] = Presented(token: tokens.accessToken.value, key: tokens.proofKey) }
    }

    /// The access token last sent to `server`, if any.
    func sentToken(to server: ResourceIdentifier) -> String? {
        presented.withLock { $0[server] }?.token
    }

    /// The token `server` is sent and its DPoP key, if any.
    func presentedToken(to server: ResourceIdentifier) -> Presented? {
        presented.withLock { $0[server] }
    }

    /// The challenge of a `WWW-Authenticate` header (whatever the case of its name) that an answer is read from: of the
    /// `Bearer` and `DPoP` ones (RFC 6750, RFC 9449 §7.1), the first with an `error`, else the first `Bearer`, else the
    /// first `DPoP`; `resource_metadata` is taken from any of them that names it.
    static func challenge(in headers: [String: String]) -> TransportResponse.Challenge? {
        let values = headers.filter { $0.key.lowercased() == "www-authenticate" }.map(\.value)
        let challenges = values.flatMap(TransportResponse.Challenge.parse).filter { ["bearer", "dpop"].contains($0.scheme.lowercased()) }
        guard
            var chosen = challenges.first(where: { $0.error != nil }) ?? challenges.first(where: { $0.scheme.lowercased() == "bearer" })
                ?? challenges.first
        else { return nil }
        if chosen.resourceMetadata == nil, let named = challenges.lazy.compactMap({ $0.parameters["resource_metadata"] }).first {
            var parameters = chosen.parameters
            parameters["resource_metadata"] = named
            chosen = TransportResponse.Challenge(scheme: chosen.scheme, parameters: parameters)
        }
        return chosen
    }
}
#endif
