#if NIO
import Foundation
import Logging
import OAuthFlow

/// Tokens had by presenting a JWT to the MCP server's authorization server (the JWT bearer grant, RFC 7523 §2.1) instead
/// of signing a user in there: a workload's platform-issued JWT (MCP extension `io.modelcontextprotocol/auth/wif`), read
/// from the ``AssertionSource`` of the client given for that authorization server, or an enterprise identity provider's
/// ID-JAG (``MCPAuthorization/EnterpriseIdentityProvider``).
extension AuthorizationState {
    /// How an MCP server's tokens are had at its authorization server.
    enum Grant: Sendable {
        /// A user signs in through the browser (the authorization code grant).
        case authorizationCode
        /// An ID-JAG from the enterprise identity provider, presented as a JWT bearer grant.
        case enterprise(MCPAuthorization.EnterpriseIdentityProvider)
        /// The workload's JWT, presented as a JWT bearer grant with no user.
        case workload(AssertionSource)

        var presentsAssertion: Bool {
            if case .authorizationCode = self { return false }
            return true
        }

        /// `authorization_code`, `enterprise_identity_provider` or `workload_assertion`, as `inspect` names it.
        var name: String {
            switch self {
            case .authorizationCode: return "authorization_code"
            case .enterprise: return "enterprise_identity_provider"
            case .workload: return "workload_assertion"
            }
        }
    }
}

extension MCPAuthorization {
    /// How the tokens of the authorization server `server` are had: the workload assertion of the client given for its
    /// issuer, else the enterprise identity provider, else a sign-in there.
    ///
    /// - Throws: ``MCPAuthorizationError`` `unsupported_server` when an assertion would be presented and the server does
    ///   not list the JWT bearer grant.
    func grant(at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider) throws -> AuthorizationState.Grant {
        let grant: AuthorizationState.Grant
        if let source = try givenClient(for: server.issuer)?.assertion {
            grant = .workload(source)
        } else if let idp = configuration.enterpriseIdentityProvider {
            guard idp.provider.policy.grantTypes.contains(.tokenExchange) else {
                throw MCPAuthorizationError(
                    .unsupportedServer,
                    "the enterprise identity provider `\(idp.provider.id)` does not declare the token exchange grant (`grant_types` lacks \(GrantType.tokenExchange.rawValue)), which its identity assertion grants are had with; nothing is sent to it"
                )
            }
            grant = .enterprise(idp)
        } else {
            return .authorizationCode
        }
        guard provider.policy.grantTypes.contains(.jwtBearer) else {
            throw MCPAuthorizationError(
                .unsupportedServer,
                "the authorization server \(server.issuer.absoluteString) does not list the JWT bearer grant (`grant_types_supported` lacks \(GrantType.jwtBearer.rawValue)), which \(grant.presentsWorkload ? "a workload assertion" : "an identity assertion grant from the enterprise identity provider") is presented with"
            )
        }
        return grant
    }

    /// Whether a user signs in at the authorization server `issuer` through the browser (the authorization code grant):
    /// not when its client presents a workload's assertion, an enterprise identity provider's ID-JAG is presented there,
    /// or the client acts on its own behalf (``Configuration/clientCredentials``). Only then are the authorization
    /// endpoint and PKCE required of it.
    func signsInUser(at issuer: URL) -> Bool {
        !configuration.clientCredentials && configuration.enterpriseIdentityProvider == nil
            && configuration.clients[issuer.absoluteString]?.assertion == nil
    }

    /// The client that presents an assertion at `server`: the host's for its issuer, one registered before, or this
    /// client's metadata document; never a new registration, which neither an identity provider's grants nor a
    /// workload's identity would name.
    func assertionClient(at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider) async throws -> ClientSettings {
        switch try await route(at: server, provider: provider, signingIn: false) {
        case let .given(settings): return settings
        case let .registered(kept): return kept.settings
        case let .metadataDocument(document): return ClientSettings(clientID: document.absoluteString)
        case .dynamicRegistration:
            throw MCPAuthorizationError(
                .noClient,
                "an identity assertion grant names the client that presents it, which the identity provider knows at \(server.issuer.absoluteString); register it there and give it in `clients` under \(server.issuer.absoluteString) (no client is registered dynamically for it)"
            )
        }
    }

    /// The account `server`'s session is stored under: one per identity provider, authorization server and resource.
    static func account(for server: ResourceIdentifier, grant: AuthorizationState.Grant) -> String {
        if case let .enterprise(idp) = grant { return "\(server) via \(idp.provider.id)" }
        return server.description
    }

    /// Presents an assertion as a JWT bearer grant for `scopes` (with the `resource`), checks that the token is for this
    /// MCP server, stores the session and sends its token from now on; once however many callers ask.
    ///
    /// - Parameter interactive: Whether a sign-in at the enterprise identity provider may open the browser.
    @discardableResult
    func presentAssertion(_ context: AuthorizationState.Context, scopes: [String], interactive: Bool = true) async throws -> TokenSet {
        let session = try await state.signIn(context.server) { [self] in
            let assertion: Secret
            // The key a DPoP-bound ID-JAG is bound to (`cnf.jkt`): it is presented with a proof of that key.
            var grantKey: DPoPKey?
            switch context.grant {
            case let .enterprise(idp):
                (assertion, grantKey) = try await identityAssertion(from: idp, for: context, scopes: scopes, interactive: interactive)
            case let .workload(source): assertion = try await source.assertion()
            case .authorizationCode:
                throw MCPAuthorizationError(.noClient, "the MCP server \(context.server) has no assertion to present")
            }
            let configuration = context.settings.configuration(redirectURI: nil)
            let client = client(of: context.provider, configuration)
            let tokens = try await client.jwtBearerToken(
                assertion: assertion, scopes: scopes, resources: [context.resource.absoluteString], boundTo: grantKey)
            try Self.checkResource(of: tokens, for: context)
            let stored = StoredSession(
                key: context.key, issuedBy: context.provider, clientID: context.settings.clientID, redirectURI: nil, tokens: tokens,
                updatedAt: environment.clock.now(), clientAuthentication: try? configuration.authenticationMethod(for: context.provider))
            try await self.configuration.store.save(stored)
            logger.info(
                "token issued for an assertion",
                metadata: ["server": "\(context.server)", "grant": "\(context.grant.name)", "scopes": "\(tokens.scopes.joined(separator: " "))"])
            return stored
        }
        await context.manager.reload()
        try await adopt(session.tokens, in: context, fresh: true)
        return session.tokens
    }

    /// The tokens of `context` that stay valid a while: the manager's (refreshed as any session) for a user's sign-in;
    /// for an assertion, the stored ones, else those a refresh token brings, else those a new assertion brings (a new
    /// exchange at the identity provider, the workload's file read again).
    func currentTokens(_ context: AuthorizationState.Context, interactive: Bool) async throws -> TokenSet {
        guard context.grant.presentsAssertion else { return try await context.manager.validTokens() }
        // A session a security event marked for a new sign-in gives nothing: a new assertion replaces it.
        let stored = try? await context.manager.heldTokens()
        if let stored, !stored.isExpired(at: environment.clock.now(), skew: 60) { return stored }
        if let stored, stored.refreshToken != nil, let refreshed = try? await context.manager.refresh(replacing: stored.accessToken) {
            return refreshed.tokens
        }
        let scopes =
            stored?.scopes
            ?? Self.scopes(challenge: nil, protectedResource: context.protectedResource, pinned: context.pinned ? context.provider : nil)
        return try await presentAssertion(context, scopes: scopes, interactive: interactive)
    }

    /// Refuses a token the authorization server says is for another resource (a `resource` member of its answer) or
    /// whose JWT `aud` names anything but this MCP server (`[this server, another]` too). An opaque token without such
    /// a member is the server's word.
    ///
    /// Without `everyAudience` (a user's or the client's own token), only an audience that is the URL of another server
    /// than this MCP server and the authorization server is refused: an audience that is no URL (Entra ID's application
    /// ids, Keycloak's `account`) is the authorization server's to give and the MCP server's to check, and one on the
    /// authorization server's origin (Auth0's userinfo) is that server's own.
    static func checkResource(of tokens: TokenSet, for context: AuthorizationState.Context, everyAudience: Bool = true) throws {
        var named: [String] = []
        if let answered = tokens.additionalFields["resource"] { named.append(contentsOf: strings(answered)) }
        let resource = context.resource.absoluteString
        func isThisServer(_ value: String) -> Bool {
            value == resource || URL(string: value).flatMap(ResourceIdentifier.init) == context.server
        }
        var refused = named.filter { !isThisServer($0) }
        if let jws = try? CompactJWS(tokens.accessToken.value), let audience = jws.claims["aud"] {
            // Every audience, as every `resource` value: a token for this server and another is one the other may replay here.
            let audiences = strings(audience)
            if everyAudience {
                refused += audiences.isEmpty ? ["no audience"] : audiences.filter { !isThisServer($0) }
            } else {
                refused += audiences.filter { value in
                    guard let url = URL(string: value), ["https", "http"].contains(url.scheme?.lowercased()), Origin(url) != nil else { return false }
                    return !isThisServer(value) && !Origin.same(url, context.authorizationServer.issuer)
                }
            }
        }
        guard refused.isEmpty else {
            throw MCPAuthorizationError(
                .tokenMismatch,
                "the authorization server \(context.authorizationServer.issuer.absoluteString) issued a token for \(ServerDiscovery.shown(refused.joined(separator: " "))), not for the MCP server \(resource); it is neither stored nor sent"
            )
        }
    }
}

extension AuthorizationState.Grant {
    fileprivate var presentsWorkload: Bool {
        if case .workload = self { return true }
        return false
    }
}

extension MCPAuthorization {
    /// The grant ``inspect(_:)`` reports, and why it would fail when it would.
    func inspectedGrant(
        at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider
    ) -> (AuthorizationState.Grant, problem: String?) {
        do {
            return (try grant(at: server, provider: provider), nil)
        } catch let error as MCPAuthorizationError {
            if let source = configuration.clients[server.issuer.absoluteString]?.assertion { return (.workload(source), error.message) }
            if let idp = configuration.enterpriseIdentityProvider { return (.enterprise(idp), error.message) }
            return (.authorizationCode, error.message)
        } catch {
            return (.authorizationCode, "\(error)")
        }
    }

    /// Writes the grant into `found`: its name, the identity provider or the assertion's source, and why it would fail.
    func describe(
        _ grant: AuthorizationState.Grant, problem: String?, registration: MCPServerInspection.Registration, in found: inout MCPServerInspection
    ) {
        found.grant = grant.name
        found.grantProblem = problem
        switch grant {
        case let .enterprise(idp): found.identityProvider = idp.provider.id
        case let .workload(source): found.assertionSource = source.description
        case .authorizationCode: break
        }
        if grant.presentsAssertion, problem == nil, registration.route == "dynamic_registration" || registration.route == "none" {
            found.grantProblem =
                "no client for \(found.issuer.absoluteString): an assertion is presented by a client given in `clients` (or its metadata document), never one registered for it"
        }
    }
}
#endif
