/// A provider as its descriptor file describes it, before variables are filled in.
///
/// Field names follow the YAML keys (see `Docs/descriptor-format.md`); URLs are
/// templates, strings that may still contain `{variable}` placeholders. Call
/// ``resolve(_:)`` to get a concrete ``Provider``.
public struct ProviderDescriptor: Sendable, Hashable, Codable {
    package var schemaVersion: Int
    public var id: String
    public var displayName: String
    public var `protocol`: ProviderProtocol
    public var docsURL: String?
    public var issuer: String?
    package var discovery: Discovery
    package var endpoints: Endpoints
    package var variables: [String: Variable]
    package var scopes: Scopes
    package var authorization: Authorization
    package var grantTypes: [String]
    package var tokenRequest: TokenRequest
    package var clientAuth: ClientAuth
    /// How the provider names the API a service token is for.
    package var serviceTokens: ServiceTokenSettings
    /// How an API checks the access tokens this provider issues (Docs/api-protection.md).
    package var accessTokens: AccessTokenSettings
    /// How the provider's own session ends, and how it tells relying parties (Docs/logout.md).
    package var logout: LogoutSettings
    /// How a token is revoked, when the provider does not take RFC 7009 as written.
    package var revocation: RevocationSettings
    package var tokenResponse: TokenResponse
    package var userinfo: Userinfo
    package var security: Security
    package var redirect: Redirect
    /// The device authorization grant (RFC 8628): how this provider answers.
    package var device: Device
    package var resources: [ResourceTemplate]?
    package var resourcesFile: String?
    /// Where the user's identity is in the ID token and userinfo: one profile shape for every provider.
    package var profile: Profile
    /// How the provider tells relying parties that an account changed (Docs/security-events.md); nil when it does not.
    package var securityEvents: SecurityEvents?
    /// The file the descriptor was read from, when it came from one.
    public var sourcePath: String?

    /// The security profile the provider is held to (`security.profile`, FAPI 2.0); nil for none. A host that sets the
    /// profile in code sets it before ``resolve(_:)``, which refuses what contradicts it.
    public var securityProfile: SecurityProfile? {
        get { security.profile }
        set { security.profile = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", id, displayName = "display_name", `protocol`
        case docsURL = "docs_url", issuer, discovery, endpoints, variables, scopes, authorization
        case grantTypes = "grant_types", tokenRequest = "token_request", clientAuth = "client_auth"
        case serviceTokens = "service_tokens", accessTokens = "access_tokens", logout, revocation, tokenResponse = "token_response", userinfo,
            security, redirect,
            device,
            resources
        case resourcesFile = "resources_file", profile, securityEvents = "security_events"
    }

    /// The grants a descriptor declares when it lists none.
    package static let defaultGrantTypes = [GrantType.authorizationCode, .refreshToken].map(\.rawValue)
}

extension ProviderDescriptor {
    /// Decodes a descriptor from any `Decoder` (JSON, say), with the same defaults as a descriptor file.
    public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

    /// Builds the descriptor from a mapping's plain values: the one place its defaults are stated.
    init(plain o: PlainObject, sourcePath: String? = nil) throws {
        // Every value is read first, then stored by the memberwise initializer (these initializers sit in an
        // extension so that it exists): a throw between stored properties, or after an optional `var` took its
        // implicit `nil`, makes the compiler build the descriptor aside and copy it out, a retain and a release for
        // each of its strings and lists.
        let schemaVersion = try o.required(CodingKeys.schemaVersion, o.int)
        let id = try o.required(CodingKeys.id, o.string)
        let displayName = try o.required(CodingKeys.displayName, o.string)
        let `protocol` = try o.required(CodingKeys.protocol) { try o.choice($0, as: ProviderProtocol.self) }
        let docsURL = try o.string(CodingKeys.docsURL)
        let issuer = try o.string(CodingKeys.issuer)
        let discovery = try o.object(CodingKeys.discovery, Discovery.init(plain:)) ?? Discovery()
        let endpoints = try o.object(CodingKeys.endpoints, Endpoints.init(plain:)) ?? Endpoints()
        let variables = try o.objectMap(CodingKeys.variables, Variable.init(plain:)) ?? [:]
        let scopes = try o.object(CodingKeys.scopes, Scopes.init(plain:)) ?? Scopes()
        let authorization = try o.object(CodingKeys.authorization, Authorization.init(plain:)) ?? Authorization()
        let grantTypes = try o.strings(CodingKeys.grantTypes) ?? Self.defaultGrantTypes
        let tokenRequest = try o.object(CodingKeys.tokenRequest, TokenRequest.init(plain:)) ?? TokenRequest()
        let clientAuth = try o.object(CodingKeys.clientAuth, ClientAuth.init(plain:)) ?? ClientAuth()
        let serviceTokens = try o.object(CodingKeys.serviceTokens, ServiceTokenSettings.init(plain:)) ?? ServiceTokenSettings()
        let accessTokens = try o.object(CodingKeys.accessTokens, AccessTokenSettings.init(plain:)) ?? .standard
        let logout = try o.object(CodingKeys.logout, LogoutSettings.init(plain:)) ?? LogoutSettings()
        let revocation = try o.object(CodingKeys.revocation, RevocationSettings.init(plain:)) ?? RevocationSettings()
        let tokenResponse = try o.object(CodingKeys.tokenResponse, TokenResponse.init(plain:)) ?? TokenResponse()
        let userinfo = try o.object(CodingKeys.userinfo, Userinfo.init(plain:)) ?? Userinfo()
        var security = try o.object(CodingKeys.security, Security.init(plain:)) ?? .standard
        if security.nonce == nil { security.nonce = `protocol` == .oidc }
        let redirect = try o.object(CodingKeys.redirect, Redirect.init(plain:)) ?? Redirect()
        let device = try o.object(CodingKeys.device, Device.init(plain:)) ?? Device()
        let resources = try o.objects(CodingKeys.resources, ResourceTemplate.init(plain:))
        let resourcesFile = try o.string(CodingKeys.resourcesFile)
        let profile = try o.object(CodingKeys.profile, Profile.init(plain:)) ?? .standard
        let securityEvents = try o.object(CodingKeys.securityEvents, SecurityEvents.init(plain:))
        self.init(
            schemaVersion: schemaVersion, id: id, displayName: displayName, protocol: `protocol`, docsURL: docsURL,
            issuer: issuer, discovery: discovery, endpoints: endpoints, variables: variables, scopes: scopes,
            authorization: authorization, grantTypes: grantTypes, tokenRequest: tokenRequest, clientAuth: clientAuth,
            serviceTokens: serviceTokens, accessTokens: accessTokens, logout: logout, revocation: revocation,
            tokenResponse: tokenResponse, userinfo: userinfo, security: security, redirect: redirect, device: device,
            resources: resources, resourcesFile: resourcesFile, profile: profile, securityEvents: securityEvents, sourcePath: sourcePath)
    }
}
