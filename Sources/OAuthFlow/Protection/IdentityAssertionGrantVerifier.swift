import Foundation
import Logging

/// What an authorization server checks before it redeems an Identity Assertion JWT Authorization Grant (ID-JAG) that a
/// client presents with the JWT bearer grant (RFC 7523 §2.1; draft-ietf-oauth-identity-assertion-authz-grant, MCP's
/// enterprise-managed authorization): the call a token endpoint, Hummingbird's or Vapor's, makes once it has
/// authenticated the client.
///
/// ```swift
/// let grants = try IdentityAssertionGrantVerifier(
///     identityProviders: [try oauth.provider("corp-idp")],
///     settings: .init(issuer: "https://as.example.com", resources: ["https://mcp.example.com/mcp"]))
/// let grant = try await grants.verify(Secret(form["assertion"] ?? ""), client: authenticatedClientID, resource: form["resource"])
/// // Issue an access token for grant.subject, grant.resource and grant.scopes.
/// ```
///
/// Share one ``ReplayRegistry`` between the server's instances.
public final class IdentityAssertionGrantVerifier: Sendable {
    /// What the authorization server states about itself.
    public struct Settings: Sendable {
        /// This authorization server's issuer: the one audience a grant may name.
        public var issuer: String
        /// The resources this server issues tokens for (RFC 8707): a grant for another is refused.
        public var resources: [String]
        /// The longest a grant may live, `exp` - `iat`; 300 seconds by default (the draft's grants are short-lived).
        public var maximumLifetime: TimeInterval
        /// The clock skew allowed on `exp`, `iat` and `nbf`.
        public var leeway: TimeInterval

        public init(issuer: String, resources: [String], maximumLifetime: TimeInterval = 300, leeway: TimeInterval = 30) {
            self.issuer = issuer
            self.resources = resources
            self.maximumLifetime = maximumLifetime
            self.leeway = leeway
        }
    }

    /// A grant that passed every check: what the access token is issued for.
    public struct Grant: Sendable, Hashable {
        /// The identity provider that issued it (`iss`).
        public let identityProvider: String
        /// The user (`sub`).
        public let subject: String
        /// The client it was issued to, which presented it (`client_id`).
        public let clientID: String
        /// The resource the access token is for (`resource`).
        public let resource: String
        /// The scopes the identity provider allowed (`scope`); empty when it named none.
        public let scopes: [String]
        public let expiresAt: Date
        /// `jti`.
        public let grantID: String
        /// The thumbprint of the key the grant is bound to (`cnf.jkt`), which the access token should be bound to too.
        public let boundKeyThumbprint: String?
        /// Every claim, as it came.
        public let claims: [String: JSONValue]
    }

    /// Why a grant is refused: an `invalid_grant` answer (RFC 6749 §5.2), its description the reason.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// `invalid_grant`.
        public let error: String
        /// Why, for the answer's `error_description` (no claim value of the grant is echoed but names and issuers).
        public let reason: String

        /// The token endpoint's JSON answer: `error` and `error_description`, sent with HTTP 400.
        public var answer: [String: String] { ["error": error, "error_description": reason] }

        public var description: String { "\(error): \(reason)" }
    }

    private let validators: [(provider: Provider, validator: IDTokenValidator)]
    private let settings: Settings
    private let replays: any ReplayRegistry
    private let clock: any DateClock
    private let logger: Logger

    /// Trusts the grants of `identityProviders` for the authorization server `settings` describe.
    ///
    /// - Parameters:
    ///   - identityProviders: The identity providers whose grants are redeemed, resolved (discovered when their keys
    ///     come from discovery).
    ///   - settings: This server's issuer and resources.
    ///   - replays: Where each grant's `jti` is kept until it expires.
    ///   - environment: Its transport fetches the identity providers' keys; its logger receives each refusal's reason.
    /// - Throws: ``ProviderError`` `unsupportedPolicy` for no identity provider, one without an issuer, or no resource.
    public init(
        identityProviders: [Provider], settings: Settings, replays: any ReplayRegistry = InMemoryReplayRegistry(),
        environment: OAuthEnvironment = OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 5))
    ) throws {
        guard !identityProviders.isEmpty else { throw ProviderError(.unsupportedPolicy, "a grant verifier needs at least one identity provider") }
        if let unnamed = identityProviders.first(where: { $0.issuer == nil }) {
            throw ProviderError(.unsupportedPolicy, "the identity provider has no issuer to match grants against", provider: unnamed.id)
        }
        guard !settings.resources.isEmpty, !settings.issuer.isEmpty else {
            throw ProviderError(.unsupportedPolicy, "a grant verifier needs this server's issuer and at least one resource")
        }
        validators = identityProviders.map { provider in
            (
                provider,
                IDTokenValidator(
                    provider: provider, clientID: settings.issuer, transport: environment.transport, leeway: settings.leeway,
                    clock: environment.clock)
            )
        }
        self.settings = settings
        self.replays = replays
        clock = environment.clock
        logger = environment.logger
    }

    /// Checks the grant `assertion` that the authenticated client `client` presents.
    ///
    /// - Parameters:
    ///   - assertion: The `assertion` parameter of the token request.
    ///   - client: The client the token endpoint authenticated.
    ///   - resource: The request's `resource` parameter, when it sent one.
    ///   - proofKeyThumbprint: The thumbprint of the key of the request's verified DPoP proof, when it came with one.
    /// - Returns: The grant, to issue an access token for.
    /// - Throws: ``Refusal``.
    public func verify(
        _ assertion: Secret, client: String, resource: String? = nil, proofKeyThumbprint: String? = nil
    ) async throws(Refusal) -> Grant {
        do {
            return try await check(assertion, client: client, resource: resource, proofKeyThumbprint: proofKeyThumbprint)
        } catch {
            logger.debug("identity assertion grant refused", metadata: ["client_id": "\(client)", "reason": "\(error.reason)"])
            throw error
        }
    }

    private func check(_ assertion: Secret, client: String, resource: String?, proofKeyThumbprint: String?) async throws(Refusal)
        -> Grant
    {
        func refuse(_ why: String) -> Refusal { Refusal(error: "invalid_grant", reason: why) }
        // As an API bounds the tokens it reads (``ProtectedResource/maximumTokenSize``), before anything is decoded.
        guard assertion.value.utf8.count <= ProtectedResource.maximumTokenSize else {
            throw refuse("the assertion is larger than \(ProtectedResource.maximumTokenSize / 1024) KiB")
        }
        guard let unverified = try? CompactJWS(assertion.value) else { throw refuse("the assertion is not a JWT") }
        let named = unverified.claims["iss"]?.stringValue ?? ""
        guard let trusted = validators.first(where: { $0.provider.isIDTokenIssuer(named, claims: unverified.claims) }) else {
            throw refuse("the grant's issuer `\(TerminalText.escaped(String(named.prefix(200))))` is not a trusted identity provider")
        }
        let claims: [String: JSONValue]
        do {
            claims = try await trusted.validator.verifyIdentityAssertionGrant(assertion)
        } catch {
            throw refuse("the grant does not verify: \(error)")
        }
        let grant = try checkClaims(claims, client: client, resource: resource, proofKeyThumbprint: proofKeyThumbprint, refuse: refuse)
        // Last, so that a grant refused for another reason leaves no trace: RFC 7523 §3 item 7.
        let fresh: Bool
        do {
            let until = grant.expiresAt.addingTimeInterval(settings.leeway)
            fresh = try await replays.firstUse(of: trusted.provider.id + " " + grant.grantID, until: until)
        } catch {
            throw refuse("the grant's `jti` cannot be checked against replays: \(error)")
        }
        guard fresh else { throw refuse("the grant was presented before (its `jti` is known)") }
        return grant
    }

    private func checkClaims(
        _ claims: [String: JSONValue], client: String, resource asked: String?, proofKeyThumbprint: String?, refuse: (String) -> Refusal
    ) throws(Refusal) -> Grant {
        let audiences = audienceClaim(claims) ?? []
        guard audiences == [settings.issuer] else { throw refuse("the grant's `aud` is not this server's issuer alone (\(settings.issuer))") }
        guard claims["client_id"]?.stringValue == client else { throw refuse("the grant's `client_id` is not the client that presents it") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw refuse("the grant names no `sub`") }
        let now = clock.now().timeIntervalSince1970
        guard let expiry = claims["exp"]?.numericDate, let issued = claims["iat"]?.numericDate else {
            throw refuse("the grant's `exp` and `iat` must be numbers of seconds (RFC 7519 NumericDate)")
        }
        guard expiry + settings.leeway > now else { throw refuse("the grant has expired") }
        guard issued - settings.leeway <= now else { throw refuse("the grant claims to be issued in the future") }
        guard expiry - issued <= settings.maximumLifetime else {
            throw refuse("the grant lives longer than \(Int(settings.maximumLifetime)) s (`exp` - `iat`)")
        }
        if let notBefore = claims["nbf"] {
            guard let seconds = notBefore.numericDate else { throw refuse("the grant's `nbf` is not a number of seconds") }
            guard seconds - settings.leeway <= now else { throw refuse("the grant is not valid yet (`nbf`)") }
        }
        guard case let .string(resource)? = claims["resource"], settings.resources.contains(resource) else {
            throw refuse("the grant's `resource` is not one this server issues tokens for")
        }
        if let asked, asked != resource { throw refuse("the `resource` asked for is not the grant's") }
        guard let grantID = claims["jti"]?.stringValue, !grantID.isEmpty else { throw refuse("the grant has no `jti`") }
        var bound: String?
        if let confirmation = claims["cnf"] {
            guard case let .object(members) = confirmation, members.count == 1, let thumbprint = members["jkt"]?.stringValue else {
                throw refuse("the grant's `cnf` is not a key thumbprint (`jkt`) alone, the only confirmation this server checks")
            }
            guard proofKeyThumbprint == thumbprint else { throw refuse("the grant is bound to a key (`cnf.jkt`) and no DPoP proof of that key came") }
            bound = thumbprint
        }
        let scopes = claims["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) } ?? []
        return Grant(
            identityProvider: claims["iss"]?.stringValue ?? "", subject: subject, clientID: client, resource: resource, scopes: scopes,
            expiresAt: Date(timeIntervalSince1970: expiry), grantID: grantID, boundKeyThumbprint: bound, claims: claims)
    }
}
