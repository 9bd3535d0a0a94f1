#if NIO
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
    ///   - scopes: The scopes asked for; nil for the scopes of the session already stored (a re-authorization keeps
    ///     what was granted before, as the MCP authorization's scope selection says) with the challenge's `scope`, else
    ///     the metadata's `scopes_supported`.
    /// - Returns: The tokens issued.
    /// - Throws: ``MCPAuthorizationError``; the sign-in's own errors (`LoopbackError`, `AuthorizationServerError`,
    ///   `FlowError`, `TransportError`).
    @discardableResult
    public func signIn(to endpoint: URL, scopes: [String]? = nil) async throws -> TokenSet {
        let server = try identifier(of: endpoint)
        let probed = await probe(endpoint)
        let challenge = probed.challenge
        let context = try await context(for: server, challenge: challenge, legacy: allowsLegacyDiscovery(probed))
        if let scopes { return try await signIn(context, scopes: scopes) }
        // A re-authorization keeps what the stored session was granted unless the caller narrows it (MCP authorization,
        // "Scope Selection Strategy"), as the 401 path does.
        let asked = Self.scopes(challenge: challenge, protectedResource: context.protectedResource, pinned: context.pinned ? context.provider : nil)
        let held = (try? await context.manager.session())?.tokens.scopes ?? []
        return try await signIn(context, scopes: Self.union(held, asked))
    }

    /// The tokens of the session stored for the MCP server at `endpoint`, its access token refreshed first when it is
    /// about to expire (one refresh however many processes ask). Nothing is registered and nobody signs in.
    ///
    /// - Throws: ``MCPAuthorizationError`` `not_signed_in` when no session is stored, `dpop_proofs_missing` when it is
    ///   DPoP-bound and no proofs were asked for here (``dpopProof(method:url:authorization:)``); the discovery refusals; the
    ///   refresh's errors (`AuthorizationServerError` `invalid_grant` ends the session).
    public func validTokens(for endpoint: URL) async throws -> TokenSet {
        let server = try identifier(of: endpoint)
        let probed = await probe(endpoint)
        let context = try await context(for: server, challenge: probed.challenge, registering: false, legacy: allowsLegacyDiscovery(probed))
        await context.manager.reload()
        if context.grant.presentsAssertion {
            // No user signs in for a workload's assertion, and an enterprise identity provider's session is used as it is.
            let tokens = try await currentTokens(context, interactive: false)
            try requireProofs(for: tokens, server: server)
            try await adopt(tokens, in: context, fresh: false)
            return tokens
        }
        guard (try? await context.manager.session()) != nil else {
            throw MCPAuthorizationError(
                .notSignedIn,
                "no session is stored for the MCP server \(server) (at \(context.authorizationServer.issuer.absoluteString)): sign in first")
        }
        let tokens: TokenSet
        do {
            tokens = try await context.manager.validTokens()
        } catch let error where context.registered && Self.forgetsClient(error) {
            try await forget(context)
            throw MCPAuthorizationError(
                .notSignedIn,
                "\(context.authorizationServer.issuer.absoluteString) no longer knows the client \(context.settings.clientID) registered there for the MCP server \(server) (it answered \((error as? AuthorizationServerError)?.error ?? "invalid_client")); the registration and its session were dropped: sign in again, and a new client is registered"
            )
        }
        try requireProofs(for: tokens, server: server)
        try await adopt(tokens, in: context, fresh: false)
        return tokens
    }

    /// What discovery finds for the MCP server at `endpoint` and what a sign-in would do, without registering or signing
    /// in: the challenge, the protected-resource metadata, the authorization server, the client route, the scopes, and
    /// whether pushed authorization requests and DPoP are offered.
    ///
    /// - Throws: ``MCPAuthorizationError`` for metadata, an issuer or a resource that cannot be used.
    public func inspect(_ endpoint: URL) async throws -> MCPServerInspection {
        let server = try identifier(of: endpoint)
        let probed = await probe(endpoint)
        let challenge = probed.challenge
        let trusted = Set(configuration.trustedMetadataOrigins.compactMap(ResourceIdentifier.origin(of:)))
        let discovery = ServerDiscovery(transport: environment.transport, logger: logger, trustedOrigins: trusted)
        let resourceDocument = try await discovery.protectedResource(
            of: server, named: challenge?.resourceMetadata, allowingLegacy: allowsLegacyDiscovery(probed))
        let issuer = try chosenAuthorizationServer(of: resourceDocument, for: server)
        let serverDocument = try await discovery.authorizationServer(issuer, legacy: resourceDocument.isLegacy)
        if signsInUser(at: issuer) { try serverDocument.requireAuthorizationCodeFlow() }
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
        found.resourceSent = server.url.absoluteString
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

    /// What the first request to an MCP server drew.
    struct ProbeAnswer: Sendable {
        /// The Bearer challenge of its 401, if it answered one.
        var challenge: TransportResponse.Challenge?
        /// The newest MCP revision the server said it speaks, when an answer said (its refusal of 2026-07-28, or its
        /// `initialize` result); nil when none did.
        var serverRevision: String?
    }

    /// The MCP revision this client speaks first, and those before it that it falls back to, newest first.
    static let protocolRevision = "2026-07-28"
    static let earlierRevisions = ["2025-11-25", "2025-06-18", "2025-03-26"]

    /// What an unauthenticated first request to the MCP server draws, sent as the streamable HTTP transport sends it.
    ///
    /// First as MCP 2026-07-28 says every POST goes: the lifecycle's first request (`server/discover`), with
    /// `MCP-Protocol-Version` and `Mcp-Method` headers and the revision and client capabilities in its `_meta`. A server
    /// that refuses that revision with 400 gets the first request of the revisions before it, `initialize`, for the
    /// newest of them it lists (2025-11-25 when it lists none). A 401 gives its challenge; any other answer none, and
    /// the well-known metadata locations are read.
    func probe(_ endpoint: URL) async -> ProbeAnswer {
        let revision = Self.protocolRevision
        let discover = Self.probeMessage(
            method: "server/discover",
            params: [
                "_meta": .object([
                    "io.modelcontextprotocol/protocolVersion": .string(revision),
                    "io.modelcontextprotocol/clientCapabilities": .object([:]),
                ])
            ])
        guard let first = await probeSend(endpoint, body: discover, headers: ["MCP-Protocol-Version": revision, "Mcp-Method": "server/discover"])
        else { return ProbeAnswer() }
        if first.status == 401 { return ProbeAnswer(challenge: Self.challenge(of: first)) }
        if (200..<300).contains(first.status) { return ProbeAnswer(serverRevision: revision) }
        guard first.status == 400 else { return ProbeAnswer() }
        // The revisions before 2026-07-28 begin with `initialize`, which carries no MCP-Protocol-Version header.
        let older = Self.newestEarlierRevision(listedIn: first)
        let initialize = Self.probeMessage(
            method: "initialize",
            params: [
                "protocolVersion": .string(older), "capabilities": .object([:]),
                "clientInfo": .object(["name": .string(configuration.clientName), "version": .string("1")]),
            ])
        guard let second = await probeSend(endpoint, body: initialize, headers: [:]) else { return ProbeAnswer(serverRevision: older) }
        if second.status == 401 { return ProbeAnswer(challenge: Self.challenge(of: second), serverRevision: older) }
        return ProbeAnswer(serverRevision: older)
    }

    /// A JSON-RPC request of the probe.
    static func probeMessage(method: String, params: [String: JSONValue]) -> Data {
        let message: JSONValue = .object([
            "jsonrpc": .string("2.0"), "id": .string("oauthflow-probe"), "method": .string(method), "params": .object(params),
        ])
        return (try? JSONEncoder().encode(message)) ?? Data()
    }

    /// The newest revision before 2026-07-28 that a server's 400 lists as supported (the `supported` of an unsupported
    /// protocol version error, `-32022`); 2025-11-25 when it lists none of them.
    static func newestEarlierRevision(listedIn answer: TransportResponse) -> String {
        if case let .object(error)? = (try? ServerJSON.object(answer.body))?["error"],
            case let .object(data)? = error["data"], case let .array(listed)? = data["supported"]
        {
            let supported = Set(listed.compactMap(\.stringValue))
            if let newest = earlierRevisions.first(where: supported.contains) { return newest }
        }
        return earlierRevisions[0]
    }

    /// The Bearer challenge of a 401, if it carries one.
    static func challenge(of answer: TransportResponse) -> TransportResponse.Challenge? {
        answer.header("www-authenticate").flatMap { challenge(in: ["WWW-Authenticate": $0]) }
    }

    /// One POST of the probe; nil when it drew no answer.
    private func probeSend(_ endpoint: URL, body: Data, headers extra: [String: String]) async -> TransportResponse? {
        var headers = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        headers.merge(extra) { _, new in new }
        do {
            return try await environment.transport.send(TransportRequest(method: .post, url: endpoint, headers: headers, body: body))
        } catch {
            logger.debug("the MCP server did not answer the probe", metadata: ["server": "\(endpoint.absoluteString)", "error": "\(error)"])
            return nil
        }
    }

    /// Whether a server without protected-resource metadata may be taken as MCP 2025-03-26 did (its origin as its
    /// authorization server): when the host asks for it (``Configuration/legacyDiscovery``), or when the server said it
    /// speaks nothing newer than a revision from before that metadata became a MUST (2025-06-18). Under 2026-07-28 a
    /// client must use the metadata, so an unknown revision is not enough.
    func allowsLegacyDiscovery(_ probed: ProbeAnswer?) -> Bool {
        if configuration.legacyDiscovery { return true }
        guard let revision = probed?.serverRevision else { return false }
        return revision < "2025-06-18"
    }
}
#endif
