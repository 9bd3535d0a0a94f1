import Foundation
import Logging
import OAuthFlow

/// What a command line asks of an MCP server without an MCP client: a sign-in from its URL, a valid access token for
/// tools that take a bearer token, and what discovery finds (`oauthflow mcp login`, `token`, `inspect`).
extension MCPAuthorization {
    /// Signs the user in to the MCP server at `endpoint` from its URL alone: an unauthenticated request draws its 401 and
    /// the challenge (or, without one, the well-known metadata locations are read), then discovery, the client and the
    /// sign-in as for a 401 met by a transport. A session already stored is replaced.
    ///
    /// - Parameters:
    ///   - endpoint: The MCP server's URL.
    ///   - scopes: The scopes asked for; nil for the challenge's `scope`, else the metadata's `scopes_supported`.
    /// - Returns: The tokens issued.
    /// - Throws: ``MCPAuthorizationError``; the sign-in's own errors (`LoopbackError`, `AuthorizationServerError`,
    ///   `FlowError`, `TransportError`).
    @discardableResult
    public func signIn(to endpoint: URL, scopes: [String]? = nil) async throws -> TokenSet {
        let server = try identifier(of: endpoint)
        let challenge = await probe(endpoint)
        let context = try await context(for: server, challenge: challenge)
        let asked =
            scopes ?? Self.scopes(challenge: challenge, protectedResource: context.protectedResource, pinned: context.pinned ? context.provider : nil)
        return try await signIn(context, scopes: asked)
    }

    /// The tokens of the session stored for the MCP server at `endpoint`, its access token refreshed first when it is
    /// about to expire (one refresh however many processes ask). Nothing is registered and nobody signs in.
    ///
    /// - Throws: ``MCPAuthorizationError`` `not_signed_in` when no session is stored, `dpop_proofs_missing` when it is
    ///   DPoP-bound and no proofs were asked for here (``dpopProof(method:url:authorization:)``); the discovery refusals; the
    ///   refresh's errors (`AuthorizationServerError` `invalid_grant` ends the session).
    public func validTokens(for endpoint: URL) async throws -> TokenSet {
        let server = try identifier(of: endpoint)
        let challenge = await probe(endpoint)
        let context = try await context(for: server, challenge: challenge, registering: false)
        await context.manager.reload()
        if context.grant.presentsAssertion {
            // No user signs in for a workload's assertion, and an enterprise identity provider's session is used as it is.
            let tokens = try await currentTokens(context, interactive: false)
            try requireProofs(for: tokens, server: server)
            await adopt(tokens, for: server, fresh: false)
            return tokens
        }
        guard (try? await context.manager.session()) != nil else {
            throw MCPAuthorizationError(
                .notSignedIn,
                "no session is stored for the MCP server \(server) (at \(context.authorizationServer.issuer.absoluteString)): sign in first")
        }
        let tokens = try await context.manager.validTokens()
        try requireProofs(for: tokens, server: server)
        await adopt(tokens, for: server, fresh: false)
        return tokens
    }

    /// What discovery finds for the MCP server at `endpoint` and what a sign-in would do, without registering or signing
    /// in: the challenge, the protected-resource metadata, the authorization server, the client route, the scopes, and
    /// whether pushed authorization requests and DPoP are offered.
    ///
    /// - Throws: ``MCPAuthorizationError`` for metadata, an issuer or a resource that cannot be used.
    public func inspect(_ endpoint: URL) async throws -> MCPServerInspection {
        let server = try identifier(of: endpoint)
        let challenge = await probe(endpoint)
        let trusted = Set(configuration.trustedMetadataOrigins.compactMap(ResourceIdentifier.origin(of:)))
        let discovery = ServerDiscovery(transport: environment.transport, logger: logger, trustedOrigins: trusted)
        let resourceDocument = try await discovery.protectedResource(of: server, named: challenge?.resourceMetadata)
        let issuer = try chosenAuthorizationServer(of: resourceDocument, for: server)
        let serverDocument = try await discovery.authorizationServer(issuer, legacy: resourceDocument.isLegacy)
        let (provider, pinned) = try provider(for: serverDocument)
        let (grant, grantProblem) = inspectedGrant(at: serverDocument, provider: provider)
        let registration: MCPServerInspection.Registration
        do {
            switch try await route(at: serverDocument, provider: provider) {
            case let .given(settings): registration = .init(route: "host_client", clientID: settings.clientID, endpoint: nil, problem: nil)
            case let .registered(kept): registration = .init(route: "registered_before", clientID: kept.clientID, endpoint: nil, problem: nil)
            case let .metadataDocument(url):
                registration = .init(route: "client_id_metadata_document", clientID: url.absoluteString, endpoint: nil, problem: nil)
            case let .dynamicRegistration(url): registration = .init(route: "dynamic_registration", clientID: nil, endpoint: url, problem: nil)
            }
        } catch let error as MCPAuthorizationError {
            registration = .init(route: "none", clientID: nil, endpoint: nil, problem: error.message)
        }
        let scopes = Self.scopes(challenge: challenge, protectedResource: resourceDocument, pinned: pinned ? provider : nil)
        let key = SessionKey(providerID: provider.id, account: Self.account(for: server, grant: grant))
        let stored = (try? await configuration.store.load(key)) != nil
        let metadata = serverDocument.metadata
        var found = MCPServerInspection(
            server: server.url, challenge: challenge.map { .init(error: $0.error, scopes: $0.scopes, resourceMetadata: $0.resourceMetadata) },
            resourceMetadata: resourceDocument.url, resource: resourceDocument.resource, authorizationServers: resourceDocument.authorizationServers,
            scopesSupported: resourceDocument.scopesSupported, issuer: issuer, authorizationServerMetadata: serverDocument.url,
            pinnedProvider: pinned ? provider.id : nil,
            registration: registration, redirectURI: redirectURI(for: provider), scopes: scopes,
            pushedAuthorizationRequests: metadata.pushedAuthorizationRequestEndpoint != nil && provider.policy.pushedAuthorization != .never,
            requiresPushedAuthorizationRequests: metadata.requirePushedAuthorizationRequests == true,
            dpopAlgorithms: metadata.dpopSigningAlgValuesSupported ?? [], sessionKey: key, signedIn: stored)
        describe(grant, problem: grantProblem, registration: registration, in: &found)
        // MCP authorization 2026-07-28: what a sign-in would send and check.
        let written = URL(string: resourceDocument.resource)
        found.resourceSent = (written.flatMap(ResourceIdentifier.init) == server ? written : server.url)?.absoluteString ?? server.description
        found.offlineAccess = provider.policy.scopes.offlineScopes.contains("offline_access")
        found.issParameter = provider.issuerParameterRule == .required ? "required" : "compared_when_present"
        found.legacyDiscovery = resourceDocument.isLegacy
        found.defaultEndpoints = serverDocument.isDefaultEndpoints
        if configuration.clientCredentials, !grant.presentsAssertion { found.grant = "client_credentials" }
        return found
    }

    /// Where the session of the MCP server at `endpoint` is stored, once a challenge, a sign-in or ``validTokens(for:)``
    /// found its authorization server in this process; nil before.
    public func sessionKey(for endpoint: URL) async -> SessionKey? {
        guard let server = ResourceIdentifier(endpoint) else { return nil }
        return await state.context(for: server)?.key
    }

    // MARK: - Probing

    func identifier(of endpoint: URL) throws -> ResourceIdentifier {
        try validateEndpointSecurity(for: endpoint)
        guard let server = ResourceIdentifier(endpoint) else {
            throw MCPAuthorizationError(.insecureURL, "\(ServerDiscovery.shown(endpoint.absoluteString)) is not an MCP server URL")
        }
        return server
    }

    /// The Bearer challenge the MCP server answers an unauthenticated request with (a JSON-RPC `ping`, POSTed as the
    /// streamable HTTP transport posts), if it answers 401 with one; nil otherwise, and the well-known locations are read.
    func probe(_ endpoint: URL) async -> AuthenticationChallenge? {
        let body = Data(#"{"jsonrpc":"2.0","id":"oauthflow-probe","method":"ping"}"#.utf8)
        let request = TransportRequest(
            method: .post, url: endpoint, headers: ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"], body: body)
        do {
            let response = try await environment.transport.send(request)
            guard response.status == 401 else { return nil }
            return response.header("www-authenticate").flatMap { Self.challenge(in: ["WWW-Authenticate": $0]) }
        } catch {
            logger.debug("the MCP server did not answer the probe", metadata: ["server": "\(endpoint.absoluteString)", "error": "\(error)"])
            return nil
        }
    }
}
