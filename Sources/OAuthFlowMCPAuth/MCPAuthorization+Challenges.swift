#if NIO
import Foundation
import Logging
import OAuthFlow
import OAuthFlowLint
import OAuthFlowLoopback

/// What a challenge leads to: discovery and registration once per server, then the stored session, a refresh, or a sign-in.
extension MCPAuthorization {
    /// Answers a 401: the stored session when it holds another token than the one refused, else a refresh, else a sign-in.
    ///
    /// A 401 in answer to a token issued moments ago is not answered with another sign-in: the server refuses what its
    /// own authorization server issued for it, which a new token would not change.
    func authorize(_ server: ResourceIdentifier, challenge: TransportResponse.Challenge?) async throws {
        var context = try await context(for: server, challenge: challenge)
        let sent = sentToken(to: server)
        let now = environment.clock.now()
        // A token refused: the server may have moved to another authorization server (MCP authorization, "Client
        // Registration": never reuse one server's client or tokens at another, register again there).
        var moved = false
        if sent != nil, let migrated = try await migratedContext(context, challenge: challenge) {
            context = migrated
            moved = true
        }
        if !moved, let sent, await state.isFresh(sent, at: now) {
            throw MCPAuthorizationError(
                .refusedAgain,
                "the MCP server \(server) refused the access token \(context.authorizationServer.issuer.absoluteString) issued for it moments ago; another sign-in would not change that (does the server take tokens for the resource \(context.resource.absoluteString)?)"
            )
        }
        await context.manager.reload()
        // A session a security event marked for a new sign-in gives nothing: the sign-in below replaces it.
        if let stored = try? await context.manager.heldTokens() {
            try requireProofs(for: stored, server: server)
            if stored.accessToken.value != sent, !stored.isExpired(at: now, skew: 5) {
                try await adopt(stored, in: context, fresh: false)
                return
            }
            if stored.refreshToken != nil {
                do {
                    let refreshed = try await context.manager.refresh(replacing: sent.map { Secret($0) })
                    try await adopt(refreshed.tokens, in: context, fresh: true)
                    return
                } catch let error as TransportError {
                    throw error
                } catch let error as MCPAuthorizationError where error.code == .tokenMismatch {
                    throw error
                } catch {
                    logger.info("refresh failed; signing in again", metadata: ["server": "\(server)", "error": "\(error)"])
                    if context.registered, Self.forgetsClient(error) { context = try await registerAgain(context) }
                }
            }
        }
        // A re-authorization keeps what was asked for and granted before (MCP authorization, "Scope Selection Strategy":
        // a step-up's scopes are not lost to the next 401), with what this challenge or the metadata asks for.
        let asked = Self.scopes(challenge: challenge, protectedResource: context.protectedResource, pinned: context.pinned ? context.provider : nil)
        let held = (try? await context.manager.session())?.tokens.scopes ?? []
        try await signIn(context, scopes: Self.union(await state.requestedScopes(for: server), held, asked))
    }

    /// The scopes of `lists`, each once, in the order first met.
    static func union(_ lists: [String]...) -> [String] {
        var union: [String] = []
        for scope in lists.joined() where !union.contains(scope) { union.append(scope) }
        return union
    }

    /// The context of `context`'s server when its protected-resource metadata, read again, no longer lists the
    /// authorization server its tokens come from: discovery and the client start over at the one it lists now (a client
    /// is had there by the usual route, registered anew when needed; nothing of the other server's is sent there). Nil
    /// when it still lists it.
    func migratedContext(_ context: AuthorizationState.Context, challenge: TransportResponse.Challenge?) async throws -> AuthorizationState.Context? {
        let trusted = Set(configuration.trustedMetadataOrigins.compactMap(ResourceIdentifier.origin(of:)))
        let discovery = ServerDiscovery(transport: environment.transport, logger: logger, trustedOrigins: trusted)
        let named =
            challenge?.resourceMetadata
            ?? (context.protectedResource.url == context.server.rootMetadataLocation ? nil : context.protectedResource.url)
        // A server taken as MCP 2025-03-26 took it stays so taken.
        let legacy = context.protectedResource.isLegacy || allowsLegacyDiscovery(nil)
        let current = try await discovery.protectedResource(of: context.server, named: named, allowingLegacy: legacy)
        guard !current.authorizationServers.contains(context.authorizationServer.issuer) else { return nil }
        // A client the host registered beforehand is not swapped silently for one registered at the new server (MCP
        // authorization, "Client Registration": pre-registered credentials that no longer match are an error to show).
        let old = context.authorizationServer.issuer.absoluteString
        if configuration.clients[old] != nil, !current.authorizationServers.contains(where: { configuration.clients[$0.absoluteString] != nil }) {
            let named = current.authorizationServers.map(\.absoluteString).joined(separator: ", ")
            throw MCPAuthorizationError(
                .noClient,
                "the MCP server \(context.server) now names the authorization server \(ServerDiscovery.shown(named)), not \(old), which the client given is registered at; that client is not used there and none is registered in its place: register one there and give it for that issuer"
            )
        }
        logger.info(
            "the MCP server names another authorization server; discovering it",
            metadata: ["server": "\(context.server)", "was": "\(context.authorizationServer.issuer.absoluteString)"])
        return try await state.context(for: context.server, replacing: true) { [self] in
            try await discover(context.server, metadataURL: named, registering: true, legacy: legacy)
        }
    }

    /// Answers a 403 `insufficient_scope`: a sign-in for the scopes held and those demanded, once per operation and scopes.
    func stepUp(_ server: ResourceIdentifier, challenge: TransportResponse.Challenge, operation: String?) async throws {
        let context = try await context(for: server, challenge: challenge)
        let demanded = challenge.scopes
        guard !demanded.isEmpty else {
            throw MCPAuthorizationError(
                .refusedAgain, "the MCP server \(server) answered 403 insufficient_scope without saying which scope it wants (`scope`)")
        }
        let held = (try? await context.manager.session())?.tokens.scopes ?? []
        let union = Self.union(await state.requestedScopes(for: server), held, demanded)
        let operationKey = (operation ?? "") + "|" + server.description
        let bound = configuration.maximumStepUps
        guard await state.recordStepUp(operationKey, scopes: union.sorted().joined(separator: " "), bound: bound) else {
            throw MCPAuthorizationError(
                .refusedAgain,
                "the MCP server \(server) still answers 403 insufficient_scope\(operation.map { " to \($0)" } ?? "") (now for \(TerminalText.escaped(demanded.joined(separator: " ")))) after a sign-in for the same scopes or \(bound) step-up\(bound == 1 ? "" : "s") of this operation (`maximumStepUps`); it is not asked again"
            )
        }
        logger.info("stepping up", metadata: ["server": "\(server)", "scopes": "\(union.joined(separator: " "))"])
        try await signIn(context, scopes: union)
    }

    /// Signs in for `scopes` (none named asks for none), stores the session and sends its token from now on.
    @discardableResult
    func signIn(_ context: AuthorizationState.Context, scopes: [String]) async throws -> TokenSet {
        if context.grant.presentsAssertion { return try await presentAssertion(context, scopes: scopes) }
        await state.noteRequested(scopes, for: context.server)
        if configuration.clientCredentials { return try await clientCredentialsToken(context, scopes: scopes) }
        let configuration = self.configuration
        var context = context
        let session: StoredSession
        do {
            do {
                session = try await signInOnce(context, scopes: scopes, configuration: configuration)
            } catch let error where context.registered && Self.forgetsClient(error) {
                // The server forgot the client it registered: register again, once, and sign in with the new one.
                context = try await registerAgain(context)
                session = try await signInOnce(context, scopes: scopes, configuration: configuration)
            }
        } catch {
            throw Self.issuerRefusal(error, provider: context.provider) ?? error
        }
        await context.manager.reload()
        try await adopt(session.tokens, in: context, fresh: true)
        return session.tokens
    }

    /// The loopback sign-in, run once however many callers ask at the same time.
    private func signInOnce(
        _ context: AuthorizationState.Context, scopes: [String], configuration: Configuration
    ) async throws -> StoredSession {
        try await state.signIn(context.server) {
            var settings = context.settings
            settings.scopes = scopes
            let signIn = LoopbackSignIn(oauth: configuration.oauth, browser: configuration.browser)
            let result = try await signIn.signIn(
                to: context.provider, settings: settings, account: context.key.account, port: configuration.redirectPort,
                timeout: configuration.signInTimeout, events: configuration.signInEvents)
            return result.session
        }
    }

    // MARK: - Discovery and registration

    /// The server's context: discovered and registered at its first challenge, again when a challenge names other metadata.
    ///
    /// - Parameter registering: Whether a client may be registered (RFC 7591) when none is had otherwise; without, such
    ///   a server is refused with `not_signed_in`.
    ///   - legacy: Whether a server without protected-resource metadata may be taken as MCP 2025-03-26 did
    ///     (``allowsLegacyDiscovery(_:)``).
    func context(
        for server: ResourceIdentifier, challenge: TransportResponse.Challenge?, registering: Bool = true, legacy: Bool? = nil
    ) async throws -> AuthorizationState.Context {
        let named = challenge?.resourceMetadata
        let known = await state.context(for: server)
        let moved = named != nil && known != nil && named != known?.protectedResource.url
        return try await state.context(for: server, replacing: moved) { [self] in
            try await discover(server, metadataURL: named, registering: registering, legacy: legacy ?? allowsLegacyDiscovery(nil))
        }
    }

    /// Discovery, the provider, and the client.
    func discover(_ server: ResourceIdentifier, metadataURL: URL?, registering: Bool, legacy: Bool) async throws -> AuthorizationState.Context {
        let trusted = Set(configuration.trustedMetadataOrigins.compactMap(ResourceIdentifier.origin(of:)))
        let discovery = ServerDiscovery(transport: environment.transport, logger: logger, trustedOrigins: trusted)
        let resourceDocument = try await discovery.protectedResource(of: server, named: metadataURL, allowingLegacy: legacy)
        // A server the host registered a client at first (MCP authorization: the client chooses among them).
        let issuer = try chosenAuthorizationServer(of: resourceDocument, for: server)
        let serverDocument = try await discovery.authorizationServer(issuer, legacy: resourceDocument.isLegacy)
        // Only a context that may sign a user in needs the code flow's endpoint and PKCE (`validTokens(for:)` signs nobody in).
        if registering, signsInUser(at: issuer) { try serverDocument.requireAuthorizationCodeFlow() }
        let (provider, pinned) = try provider(for: serverDocument)
        guard URL(string: resourceDocument.resource) != nil else {
            throw MCPAuthorizationError(.invalidMetadata, "the protected-resource metadata's `resource` is not a URL")
        }
        // The token is asked for the MCP server's canonical URI (MCP authorization, RFC 8707), as the client computes it,
        // never the metadata's spelling of it (another letter case, a trailing slash, a fragment RFC 8707 §2 forbids), nor
        // more: metadata at the root of the origin, found by probing, may name the bare origin (RFC 9728 §3.3), and a
        // token for that would be good for every API there. The metadata must name this server (checked when read).
        let resource = server.url
        let grant = try grant(at: serverDocument, provider: provider)
        var settings: ClientSettings
        var registered = false
        if grant.presentsAssertion {
            settings = try await assertionClient(at: serverDocument, provider: provider)
        } else if configuration.clientCredentials {
            settings = try serviceClient(at: serverDocument, provider: provider)
        } else if registering {
            (settings, registered) = try await client(at: serverDocument, provider: provider, scopes: resourceDocument.scopesSupported ?? [])
        } else {
            switch try await route(at: serverDocument, provider: provider, signingIn: false) {
            case let .given(given): settings = given
            case let .registered(kept):
                settings = kept.settings
                registered = true
            case let .metadataDocument(document): settings = ClientSettings(clientID: document.absoluteString)
            case .dynamicRegistration:
                throw MCPAuthorizationError(
                    .notSignedIn, "no client is registered at \(issuer.absoluteString) for the MCP server \(server): nobody signed in to it here")
            }
        }
        settings.resources = [resource]
        let key = SessionKey(providerID: provider.id, account: Self.account(for: server, grant: grant))
        let client = client(of: provider, settings.configuration(redirectURI: nil))
        logger.info(
            "MCP server discovered",
            metadata: ["server": "\(server)", "issuer": "\(issuer.absoluteString)", "client_id": "\(settings.clientID)"])
        var context = AuthorizationState.Context(
            server: server, resource: resource, protectedResource: resourceDocument, authorizationServer: serverDocument, provider: provider,
            pinned: pinned, settings: settings, key: key, manager: TokenManager(client: client, store: configuration.store, key: key))
        context.grant = grant
        context.registered = registered
        return context
    }

    /// How a client is had at an authorization server, in the spec's order: the host's for the issuer, one registered
    /// before, the client ID metadata document when the server takes one, else a new registration (RFC 7591).
    enum ClientRoute: Sendable {
        case given(ClientSettings)
        case registered(RegisteredClient)
        case metadataDocument(URL)
        case dynamicRegistration(URL)
    }

    /// The route `client(at:provider:scopes:)` takes at `server`, without registering.
    ///
    /// - Parameter signingIn: Whether a client registered before must take this configuration's redirect URI: a refresh
    ///   sends none, so any client kept for the issuer serves it.
    /// - Throws: ``MCPAuthorizationError`` `no_client` when there is none.
    func route(
        at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider, signingIn: Bool = true
    ) async throws -> ClientRoute {
        let issuer = server.issuer
        if let given = try givenClient(for: issuer) { return .given(given) }
        if let kept = try await configuration.registrations.client(for: issuer), kept.isUsable(at: environment.clock.now()),
            !signingIn || kept.redirectURIs.contains(redirectURI(for: provider))
        {
            return .registered(kept)
        }
        if let document = configuration.clientMetadataDocument, server.acceptsClientMetadataDocuments {
            guard document.scheme?.lowercased() == "https", document.path.count > 1, document.fragment == nil else {
                throw MCPAuthorizationError(
                    .noClient,
                    "the client ID metadata document URL \(ServerDiscovery.shown(document.absoluteString)) must be https with a path; it is the client_id"
                )
            }
            return .metadataDocument(document)
        }
        guard let endpoint = server.registrationEndpoint else {
            throw MCPAuthorizationError(
                .noClient,
                "the authorization server \(issuer.absoluteString) has no registration_endpoint and takes no client ID metadata documents; register a client there and give it in `clients` under \(issuer.absoluteString)"
            )
        }
        return .dynamicRegistration(endpoint)
    }

    /// The client, in the spec's order: the host's for the issuer, one registered before, the client ID metadata document
    /// when the server takes one, else a new registration (RFC 7591), kept.
    func client(
        at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider, scopes: [String]
    ) async throws -> (ClientSettings, registered: Bool) {
        let issuer = server.issuer
        switch try await route(at: server, provider: provider) {
        case let .given(settings): return (settings, false)
        case let .registered(kept): return (kept.settings, true)
        case let .metadataDocument(document): return (ClientSettings(clientID: document.absoluteString), false)
        case let .dynamicRegistration(endpoint):
            let registration = DynamicClientRegistration(
                endpoint: endpoint, issuer: issuer, clientName: configuration.clientName, redirectURIs: [redirectURI(for: provider)],
                scopes: scopes, authMethods: server.metadata.tokenEndpointAuthMethodsSupported)
            let registered = try await registration.register(through: environment.transport, now: environment.clock.now())
            try await configuration.registrations.save(registered)
            logger.info("client registered", metadata: ["issuer": "\(issuer.absoluteString)", "client_id": "\(registered.clientID)"])
            return (registered.settings, true)
        }
    }

    /// The loopback redirect URI registered: the provider's host and path, with the configured port or none (RFC 8252 §7.3).
    func redirectURI(for provider: Provider) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = provider.loopback.host.contains(":") ? "[\(provider.loopback.host)]" : provider.loopback.host
        components.port = configuration.redirectPort
        components.path = provider.loopback.path
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// The provider of an authorization server: the pinned descriptor that names its issuer, else drafted from its metadata.
    ///
    /// - Throws: ``MCPAuthorizationError`` `unpinned_server` when a pin is required and none names it; `unsupported_server`
    ///   for a pin that asks for DPoP the server offers, or metadata that makes no usable provider.
    func provider(for server: ServerDiscovery.AuthorizationServerDocument) throws -> (Provider, pinned: Bool) {
        let issuer = server.issuer.absoluteString
        if let pin = configuration.pinnedProviders.first(where: { $0.issuer?.absoluteString == issuer }) {
            let dpop = pin.policy.dpop.use
            let offered = server.metadata.dpopSigningAlgValuesSupported?.isEmpty == false
            if !bindsTokens, dpop == .required || dpop == .ifSupported && offered {
                throw MCPAuthorizationError(
                    .unsupportedServer,
                    "the provider `\(pin.id)` pinned for \(issuer) asks for DPoP (`security.dpop: \(dpop.rawValue)`), and these requests carry no DPoP proofs: give the transport `requestModifier: authorizer.requestModifier`, or pin it with `dpop: never`"
                )
            }
            do {
                return (try pin.applying(server.metadata), true)
            } catch {
                throw MCPAuthorizationError(
                    .unsupportedServer, "the provider `\(pin.id)` pinned for \(issuer) cannot be used with its metadata: \(error)")
            }
        }
        if configuration.requiresPinnedProvider {
            throw MCPAuthorizationError(
                .unpinnedServer,
                "no pinned provider names the authorization server \(issuer), and only pinned ones are signed in to (`requiresPinnedProvider`)")
        }
        return (try Self.provider(for: server, now: environment.clock.now(), dpop: bindsTokens), false)
    }

    /// The scopes a sign-in asks for: the challenge's `scope`, else a pinned descriptor's default scopes, else the
    /// protected-resource metadata's `scopes_supported`, else none.
    static func scopes(challenge: TransportResponse.Challenge?, protectedResource: ServerDiscovery.ProtectedResourceDocument, pinned: Provider?)
        -> [String]
    {
        if let demanded = challenge?.scopes, !demanded.isEmpty { return demanded }
        if let defaults = pinned?.policy.scopes.defaults, !defaults.isEmpty { return defaults }
        return protectedResource.scopesSupported ?? []
    }

    /// The provider an authorization server's metadata describes, drafted as `oauthflow providers add` drafts one, held to
    /// the rules `oauthflow lint` applies (an error refuses it) and resolved by the same rules as any descriptor, its
    /// endpoints those the metadata names (fetched once, not again).
    ///
    /// DPoP is left out unless `dpop` (requests carry proofs): its session is DPoP-bound where the metadata offers it. A public client (`none`) is
    /// taken even when `token_endpoint_auth_methods_supported` lists only secret methods: the clients this registers are
    /// public, and servers that register them so often leave `none` out of that list (the Python MCP SDK's does).
    static func provider(for server: ServerDiscovery.AuthorizationServerDocument, now: Date, dpop: Bool = false) throws -> Provider {
        var metadata = server.metadata
        if !dpop { metadata.dpopSigningAlgValuesSupported = nil }
        if let methods = metadata.tokenEndpointAuthMethodsSupported, !methods.contains("none") {
            metadata.tokenEndpointAuthMethodsSupported = methods + ["none"]
        }
        // One id per exact issuer: the sessions of two servers whose issuers differ only in port, scheme or punctuation
        // never share a key, so one's refresh token is never loaded for the other (TokenManager refuses it besides).
        let id = DescriptorDraft.exactID(prefix: "mcp-", for: server.issuer)
        let draft: DescriptorDraft
        do {
            draft = try DescriptorDraft(id: id, issuer: server.issuer, metadata: metadata, metadataURL: server.url, mode: server.mode, readAt: now)
        } catch {
            throw MCPAuthorizationError(.unsupportedServer, "the authorization server \(server.issuer.absoluteString) cannot be used: \(error)")
        }
        // The drafted text, read once: the rules `oauthflow lint` holds a written descriptor to hold it too (what lint calls
        // an error is refused here, before anything is registered or sent), and what they read is what is resolved.
        let file = LintFile(document: DescriptorDocument.parse(Data(draft.text.utf8), path: "\(id).yaml"))
        let findings = Linter().lint([file]).filter { $0.severity == .error }
        if !findings.isEmpty {
            let reasons = findings.prefix(5).map { "\($0.ruleID): \(TerminalText.escaped($0.message))" }.joined(separator: "; ")
            throw MCPAuthorizationError(
                .unsupportedServer, "the provider drafted from the metadata of \(server.issuer.absoluteString) breaks lint rules: \(reasons)")
        }
        guard let descriptor = file.descriptor else {
            let problems = file.document.problems.map(\.message).joined(separator: "; ")
            throw MCPAuthorizationError(.unsupportedServer, "the metadata of \(server.issuer.absoluteString) makes no usable provider: \(problems)")
        }
        return try descriptor.resolve([:]).applying(metadata)
    }

    // MARK: - A forgotten registration

    /// Whether `error` is the authorization server saying it does not know the client (`invalid_client` or
    /// `unauthorized_client`, RFC 6749 §5.2): what a server that forgot a dynamically registered client answers. An
    /// `invalid_grant` is the grant's, not the client's, and ends the tokens only.
    static func forgetsClient(_ error: any Error) -> Bool {
        (error as? AuthorizationServerError)?.refusesClient == true
    }

    /// Drops the registration the authorization server of `context` forgot, with the session of its tokens, and
    /// discovers the server again, registering a new client (RFC 7591), as the TypeScript SDK does.
    func registerAgain(_ context: AuthorizationState.Context) async throws -> AuthorizationState.Context {
        try await forget(context)
        let legacy = context.protectedResource.isLegacy || allowsLegacyDiscovery(nil)
        return try await state.context(for: context.server, replacing: true) { [self] in
            let probed = context.protectedResource.url == context.server.rootMetadataLocation
            return try await discover(
                context.server, metadataURL: probed ? nil : context.protectedResource.url, registering: true, legacy: legacy)
        }
    }

    /// Drops the forgotten registration of `context` and its session, saying so.
    func forget(_ context: AuthorizationState.Context) async throws {
        let issuer = context.authorizationServer.issuer
        logger.notice(
            "the authorization server no longer knows the client registered there; the registration and its session are dropped",
            metadata: ["server": "\(context.server)", "issuer": "\(issuer.absoluteString)", "client_id": "\(context.settings.clientID)"])
        try await configuration.registrations.remove(for: issuer)
        try await configuration.store.remove(context.key)
        await context.manager.reload()
    }
}
#endif
