#if NIO
import Foundation
import Logging
import OAuthFlow
import OAuthFlowLoopback

/// Enterprise-managed authorization (MCP extension `io.modelcontextprotocol/enterprise-managed-authorization`): the user
/// signs in once at the company's identity provider; its ID token is exchanged there (RFC 8693) for an Identity Assertion
/// JWT Authorization Grant (ID-JAG) for the MCP server's authorization server and resource, which is presented to that
/// server as a JWT bearer grant (RFC 7523). No browser visits the MCP server's authorization server.
extension MCPAuthorization {
    /// The company's identity provider sign-ins go through (``Configuration/enterpriseIdentityProvider``).
    public struct EnterpriseIdentityProvider: Sendable {
        /// The identity provider, resolved from its descriptor (`try oauth.provider("okta-org")`). It must declare the
        /// token exchange grant and take `openid`: its ID token is what it exchanges.
        public var provider: Provider
        /// This client at the identity provider: the one users sign in with, which also authenticates the exchanges.
        public var client: ClientSettings
        /// The account the identity provider's session is stored under: `default`, as `oauthflow login` stores it, so a
        /// session signed in there is used.
        public var account: String

        /// - Parameters:
        ///   - provider: The identity provider.
        ///   - client: This client at the identity provider.
        ///   - account: The account its session is stored under.
        public init(provider: Provider, client: ClientSettings, account: String = "default") {
            self.provider = provider
            self.client = client
            self.account = account
        }

        /// Where the identity provider's session is stored.
        public var sessionKey: SessionKey { SessionKey(providerID: provider.id, account: account) }
    }

    /// The MCP server's tokens through the identity provider: its ID token (from the stored session, refreshed, or a
    /// sign-in there), exchanged for an ID-JAG for `context`'s authorization server and resource, checked.
    ///
    /// - Parameter interactive: Whether a sign-in at the identity provider may open the browser.
    func identityAssertion(
        from idp: EnterpriseIdentityProvider, for context: AuthorizationState.Context, scopes: [String], interactive: Bool
    ) async throws -> (Secret, DPoPKey?) {
        let issuer = context.authorizationServer.issuer.absoluteString
        let exchanger = client(of: idp.provider, idp.client.serviceConfiguration())
        func exchange(_ idToken: Secret) async throws -> OAuthClient.ExchangedToken {
            let request = OAuthClient.TokenExchangeRequest(
                subjectToken: idToken, subjectTokenType: TokenTypeIdentifier.idToken, requestedTokenType: TokenTypeIdentifier.idJAG,
                target: OAuthClient.ServiceTokenRequest(scopes: scopes, resources: [context.resource.absoluteString], audiences: [issuer]))
            do {
                return try await exchanger.exchangeToken(request)
            } catch let error as FlowError where error.code == .unexpectedTokenType {
                throw MCPAuthorizationError(
                    .assertionMismatch,
                    "the identity provider `\(idp.provider.id)` did not answer with an identity assertion grant (\(error.message)); nothing is sent to \(issuer)"
                )
            }
        }
        let exchanged: OAuthClient.ExchangedToken
        do {
            exchanged = try await exchange(try await identityToken(from: idp, interactive: interactive))
        } catch let error as AuthorizationServerError where error.error == "insufficient_user_authentication" {
            // Step-up at the identity provider (RFC 9470): the user signs in there again, once, as it asks, and the new ID
            // token is exchanged; a second refusal is the identity provider's to explain.
            guard interactive else {
                throw MCPAuthorizationError(
                    .notSignedIn,
                    "the identity provider `\(idp.provider.id)` asks for a more recent or stronger sign-in there (insufficient_user_authentication) before it issues a grant for \(issuer): sign in again"
                )
            }
            logger.info(
                "the identity provider asks for a step-up; signing in there again",
                metadata: ["identity_provider": "\(idp.provider.id)", "max_age": "\(error.maximumAuthenticationAge.map(String.init) ?? "-")"])
            exchanged = try await exchange(try await steppedUpIdentityToken(from: idp, asked: error))
        }
        // The ID-JAG draft (§4.3.2): `token_type` is `N_A`, the grant being no access token.
        guard exchanged.tokens.tokenType.caseInsensitiveCompare("N_A") == .orderedSame else {
            throw MCPAuthorizationError(
                .assertionMismatch,
                "the identity provider `\(idp.provider.id)` answered the exchange with `token_type` \(ServerDiscovery.shown(exchanged.tokens.tokenType)), not N_A as an identity assertion grant's answer says; nothing is sent to \(issuer)"
            )
        }
        try Self.checkIdentityAssertion(exchanged.tokens.accessToken, from: idp.provider.id, for: context, now: environment.clock.now())
        logger.info(
            "identity assertion grant issued",
            metadata: ["identity_provider": "\(idp.provider.id)", "issuer": "\(issuer)", "bound": "\(exchanged.tokens.proofKey != nil)"])
        // A grant bound to the exchange's key (its `cnf.jkt`, checked by the engine) is presented with a proof of that key.
        return (exchanged.tokens.accessToken, exchanged.tokens.proofKey)
    }

    /// An ID token of the identity provider's session that stays valid a while: the stored one, one a refresh brought,
    /// or one from a sign-in there.
    ///
    /// - Throws: ``MCPAuthorizationError`` `not_signed_in` when none is had and `interactive` is false.
    func identityToken(from idp: EnterpriseIdentityProvider, interactive: Bool) async throws -> Secret {
        let client = client(of: idp.provider, idp.client.configuration(redirectURI: nil))
        let manager = TokenManager(client: client, store: configuration.store, key: idp.sessionKey)
        let now = environment.clock.now()
        // A session a security event marked for a new sign-in gives nothing: the user signs in there again.
        if let held = try? await manager.heldTokens() {
            if let token = held.idToken, Self.isUsable(idToken: token, at: now) { return token }
            if held.refreshToken != nil {
                do {
                    let refreshed = try await manager.refresh(replacing: held.accessToken)
                    if let token = refreshed.tokens.idToken, Self.isUsable(idToken: token, at: now) { return token }
                    logger.info("the identity provider's refresh brought no valid ID token", metadata: ["identity_provider": "\(idp.provider.id)"])
                } catch let error as TransportError {
                    throw error
                } catch {
                    logger.info("the identity provider's session could not be refreshed", metadata: ["error": "\(error)"])
                }
            }
        }
        guard interactive else {
            throw MCPAuthorizationError(
                .notSignedIn,
                "no session at the identity provider `\(idp.provider.id)` holds a valid ID token (\(idp.sessionKey)): sign in there first")
        }
        return try await signInAtIdentityProvider(idp)
    }

    /// A sign-in at the identity provider through the browser, with `openid`: its ID token.
    private func signInAtIdentityProvider(_ idp: EnterpriseIdentityProvider) async throws -> Secret {
        var settings = idp.client
        var scopes = settings.scopes ?? idp.provider.policy.scopes.defaults
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        settings.scopes = scopes
        let signIn = LoopbackSignIn(oauth: configuration.oauth, browser: configuration.browser)
        let result = try await signIn.signIn(
            to: idp.provider, settings: settings, account: idp.account, timeout: configuration.signInTimeout, events: configuration.signInEvents)
        guard let token = result.session.tokens.idToken else {
            throw MCPAuthorizationError(
                .unsupportedServer, "the identity provider `\(idp.provider.id)` issued no ID token at sign-in, and its ID token is what it exchanges")
        }
        return token
    }

    /// An ID token from a sign-in at the identity provider that meets its step-up: the `max_age` and `acr_values` it
    /// named, or, when it named neither, an authentication made now (`max_age` 0).
    func steppedUpIdentityToken(from idp: EnterpriseIdentityProvider, asked: AuthorizationServerError) async throws -> Secret {
        var stepped = idp
        let classes = asked.acrValues ?? []
        stepped.client.maximumAuthenticationAge = asked.maximumAuthenticationAge ?? (classes.isEmpty ? 0 : nil)
        stepped.client.acrValues = classes
        return try await signInAtIdentityProvider(stepped)
    }

    /// Whether an ID token's `exp` is more than 30 seconds away (it was verified when its session was stored).
    static func isUsable(idToken: Secret, at now: Date) -> Bool {
        guard let jws = try? CompactJWS(idToken.value), let expiry = jws.claims["exp"]?.numberValue else { return false }
        return expiry > now.timeIntervalSince1970 + 30
    }

    /// Refuses an ID-JAG that is not one, or not for this authorization server, resource and client, or expired, before it
    /// is sent anywhere. Its signature is the authorization server's to verify, with the identity provider's keys.
    static func checkIdentityAssertion(_ assertion: Secret, from idp: String, for context: AuthorizationState.Context, now: Date) throws {
        let issuer = context.authorizationServer.issuer.absoluteString
        func refuse(_ why: String) -> MCPAuthorizationError {
            MCPAuthorizationError(
                .assertionMismatch, "the identity provider `\(idp)` issued an identity assertion grant \(why); it is not sent to \(issuer)")
        }
        guard let jws = try? CompactJWS(assertion.value) else { throw refuse("that is not a JWT") }
        guard case let .string(type)? = jws.header["typ"], type.lowercased() == "oauth-id-jag+jwt" else {
            throw refuse("whose header `typ` is not oauth-id-jag+jwt")
        }
        let audiences = strings(jws.claims["aud"])
        guard audiences == [issuer] else {
            let named = audiences.isEmpty ? "no audience" : "the audience \(ServerDiscovery.shown(audiences.joined(separator: " ")))"
            throw refuse("for \(named), not for the authorization server \(issuer)")
        }
        if let claimed = jws.claims["resource"] {
            let resources = strings(claimed)
            guard !resources.isEmpty, resources.allSatisfy({ $0 == context.resource.absoluteString }) else {
                throw refuse(
                    "for the resource \(ServerDiscovery.shown(resources.joined(separator: " "))), not for the MCP server \(context.resource.absoluteString)"
                )
            }
        }
        // The draft makes `iss`, `sub`, `jti` and `client_id` REQUIRED strings, and `iat` and `exp` NumericDates.
        for claim in ["iss", "sub", "jti", "client_id"] {
            guard case let .string(value)? = jws.claims[claim], !value.isEmpty else { throw refuse("without `\(claim)`, which it requires") }
        }
        guard jws.claims["client_id"]?.stringValue == context.settings.clientID else {
            throw refuse("for another client than \(context.settings.clientID), the one that would present it")
        }
        try checkTimes(of: jws.claims, now: now, refuse: refuse)
    }

    /// The ID-JAG's times, each a NumericDate, a JSON number (RFC 7519 §2), never a string that reads as one: `iat`
    /// required, `exp` required and in the future, `nbf` optional and passed (a minute's leeway for the clocks).
    static func checkTimes(of claims: [String: JSONValue], now: Date, refuse: (String) -> MCPAuthorizationError) throws {
        for claim in ["iat", "exp", "nbf"] where claims[claim] != nil && claims[claim]?.numericDate == nil {
            throw refuse("whose `\(claim)` is not a number of seconds (RFC 7519 NumericDate)")
        }
        guard claims["iat"] != nil else { throw refuse("without `iat`, which it requires") }
        guard let expiry = claims["exp"]?.numericDate, expiry > now.timeIntervalSince1970 else {
            throw refuse("that has expired or says no expiry (`exp`)")
        }
        if let notBefore = claims["nbf"]?.numericDate, notBefore > now.timeIntervalSince1970 + 60 {
            throw refuse("that is not valid yet (`nbf`)")
        }
    }

    /// A claim that is a string or a list of strings, as a list.
    static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case let .string(text)?: return [text]
        case let .array(values)?: return values.compactMap(\.stringValue)
        default: return []
        }
    }
}

extension ErrorCode where Domain == MCPAuthorizationError {
    /// The identity provider did not issue an identity assertion grant (another `issued_token_type`), or issued one for
    /// another authorization server, resource or client, or one that has expired: it is not sent on.
    public static let assertionMismatch = Self("assertion_mismatch")
    /// The authorization server answered a JWT bearer grant with a token for another resource: it is neither stored nor sent.
    public static let tokenMismatch = Self("token_mismatch")
}
#endif
