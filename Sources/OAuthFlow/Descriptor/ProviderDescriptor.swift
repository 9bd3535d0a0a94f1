/// A provider as its descriptor file describes it, before variables are filled in.
///
/// Field names follow the YAML keys (see `Docs/descriptor-format.md`); URLs are
/// templates, strings that may still contain `{variable}` placeholders. Call
/// ``resolve(_:)`` to get a concrete ``Provider``.
public struct ProviderDescriptor: Sendable, Hashable, Codable {
    public var schemaVersion: Int
    public var id: String
    public var displayName: String
    public var `protocol`: ProviderProtocol
    public var docsURL: String?
    public var issuer: String?
    public var discovery: Discovery
    public var endpoints: Endpoints
    public var variables: [String: Variable]
    public var scopes: Scopes
    public var authorization: Authorization
    public var grantTypes: [String]
    public var tokenRequest: TokenRequest
    public var clientAuth: ClientAuth
    /// How the provider names the API a service token is for.
    public var serviceTokens: ServiceTokenSettings
    /// How an API checks the access tokens this provider issues (Docs/api-protection.md).
    public var accessTokens: AccessTokenSettings
    /// How the provider's own session ends, and how it tells relying parties (Docs/logout.md).
    public var logout: LogoutSettings
    /// How a token is revoked, when the provider does not take RFC 7009 as written.
    public var revocation = RevocationSettings()
    public var tokenResponse: TokenResponse
    public var userinfo: Userinfo
    public var security: Security
    public var redirect: Redirect
    /// The device authorization grant (RFC 8628): how this provider answers.
    public var device: Device
    public var resources: [ResourceTemplate]?
    public var resourcesFile: String?
    /// Where the user's identity is in the ID token and userinfo: one profile shape for every provider.
    public var profile: Profile
    /// The file the descriptor was read from, when it came from one.
    public var sourcePath: String?

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", id, displayName = "display_name", `protocol`
        case docsURL = "docs_url", issuer, discovery, endpoints, variables, scopes, authorization
        case grantTypes = "grant_types", tokenRequest = "token_request", clientAuth = "client_auth"
        case serviceTokens = "service_tokens", accessTokens = "access_tokens", logout, revocation, tokenResponse = "token_response", userinfo,
            security, redirect,
            device,
            resources
        case resourcesFile = "resources_file", profile
    }

    /// The grants a descriptor declares when it lists none.
    public static let defaultGrantTypes = [GrantType.authorizationCode, .refreshToken].map(\.rawValue)

    /// Decodes a descriptor from any `Decoder` (JSON, say), with the same defaults as a descriptor file.
    public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

    /// Builds the descriptor from a mapping's plain values: the one place its defaults are stated.
    init(plain o: PlainObject) throws {
        schemaVersion = try o.required(CodingKeys.schemaVersion, o.int)
        id = try o.required(CodingKeys.id, o.string)
        displayName = try o.required(CodingKeys.displayName, o.string)
        `protocol` = try o.required(CodingKeys.protocol) { try o.choice($0, as: ProviderProtocol.self) }
        docsURL = try o.string(CodingKeys.docsURL)
        issuer = try o.string(CodingKeys.issuer)
        discovery = try o.object(CodingKeys.discovery, Discovery.init(plain:)) ?? Discovery()
        endpoints = try o.object(CodingKeys.endpoints, Endpoints.init(plain:)) ?? Endpoints()
        variables = try o.objectMap(CodingKeys.variables, Variable.init(plain:)) ?? [:]
        scopes = try o.object(CodingKeys.scopes, Scopes.init(plain:)) ?? Scopes()
        authorization = try o.object(CodingKeys.authorization, Authorization.init(plain:)) ?? Authorization()
        grantTypes = try o.strings(CodingKeys.grantTypes) ?? Self.defaultGrantTypes
        tokenRequest = try o.object(CodingKeys.tokenRequest, TokenRequest.init(plain:)) ?? TokenRequest()
        clientAuth = try o.object(CodingKeys.clientAuth, ClientAuth.init(plain:)) ?? ClientAuth()
        serviceTokens = try o.object(CodingKeys.serviceTokens, ServiceTokenSettings.init(plain:)) ?? ServiceTokenSettings()
        accessTokens = try o.object(CodingKeys.accessTokens, AccessTokenSettings.init(plain:)) ?? .standard
        logout = try o.object(CodingKeys.logout, LogoutSettings.init(plain:)) ?? LogoutSettings()
        revocation = try o.object(CodingKeys.revocation, RevocationSettings.init(plain:)) ?? RevocationSettings()
        tokenResponse = try o.object(CodingKeys.tokenResponse, TokenResponse.init(plain:)) ?? TokenResponse()
        userinfo = try o.object(CodingKeys.userinfo, Userinfo.init(plain:)) ?? Userinfo()
        security = try o.object(CodingKeys.security, Security.init(plain:)) ?? .standard
        if security.nonce == nil { security.nonce = `protocol` == .oidc }
        redirect = try o.object(CodingKeys.redirect, Redirect.init(plain:)) ?? Redirect()
        device = try o.object(CodingKeys.device, Device.init(plain:)) ?? Device()
        resources = try o.objects(CodingKeys.resources, ResourceTemplate.init(plain:))
        resourcesFile = try o.string(CodingKeys.resourcesFile)
        profile = try o.object(CodingKeys.profile, Profile.init(plain:)) ?? .standard
    }
}

extension ProviderDescriptor {
    /// Where each field of a ``UserProfile`` comes from, as ordered lists of sources: the
    /// first source present wins. A source is `id_token.CLAIM`, `userinfo.FIELD` or
    /// `extra.FIELD` (the answer of ``extraCall``), with `.` descending into objects.
    public struct Profile: Sendable, Hashable, Codable {
        public var subject: [String] = ["id_token.sub", "userinfo.sub"]
        public var name: [String] = ["id_token.name", "userinfo.name"]
        public var email: [String] = ["id_token.email", "userinfo.email"]
        public var emailVerified: [String] = ["id_token.email_verified", "userinfo.email_verified"]
        public var picture: [String] = ["id_token.picture", "userinfo.picture"]
        /// One more authorized GET, for what neither the ID token nor userinfo holds (GitHub's verified email).
        public var extraCall: ExtraCall?

        /// The declared extra call.
        public struct ExtraCall: Sendable, Hashable, Codable {
            /// A URL template, called with the access token as a Bearer token.
            public var url: String
            /// When the answer is a JSON list: use its first element whose field of this name is `true`.
            public var pickWhere: String?
            /// The member of the answer that holds the list `pickWhere` picks from, for an answer that is an object
            /// (Bitbucket's paginated `values`); nil when the answer is the list itself.
            public var list: String?

            enum CodingKeys: String, CodingKey {
                case url, pickWhere = "pick_where", list
            }
        }

        enum CodingKeys: String, CodingKey {
            case subject, name, email, emailVerified = "email_verified", picture, extraCall = "extra_call"
        }

        public init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        package static let standard = Self()

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self.standard
            subject = try o.strings(CodingKeys.subject) ?? defaults.subject
            name = try o.strings(CodingKeys.name) ?? defaults.name
            email = try o.strings(CodingKeys.email) ?? defaults.email
            emailVerified = try o.strings(CodingKeys.emailVerified) ?? defaults.emailVerified
            picture = try o.strings(CodingKeys.picture) ?? defaults.picture
            extraCall = try o.object(CodingKeys.extraCall) { extra in
                ExtraCall(
                    url: try extra.required(ExtraCall.CodingKeys.url, extra.string),
                    pickWhere: try extra.string(ExtraCall.CodingKeys.pickWhere), list: try extra.string(ExtraCall.CodingKeys.list))
            }
        }

        /// Every source, with the profile field it fills.
        public var sources: [(field: String, source: String)] {
            [("subject", subject), ("name", name), ("email", email), ("email_verified", emailVerified), ("picture", picture)]
                .flatMap { field, sources in sources.map { (field, $0) } }
        }
    }
}

extension ProviderDescriptor {
    /// The grant type of RFC 8628.
    public static let deviceCodeGrant = GrantType.deviceCode.rawValue

    /// Whether the descriptor declares the device authorization grant.
    public var supportsDeviceFlow: Bool { grantTypes.contains(Self.deviceCodeGrant) }

    /// Whether the descriptor asks for its endpoints from a metadata document (a discovery mode, or its URL).
    public var asksForDiscovery: Bool { discovery.mode != .none || discovery.url != nil }

    /// Whether the descriptor is for an API only: no authorization or token endpoint, and the provider's
    /// keys or introspection endpoint, which is all an API checking its tokens needs.
    public var isForAPIsOnly: Bool {
        endpoints.authorization == nil && endpoints.token == nil && (endpoints.jwks != nil || endpoints.introspection != nil)
    }
}

extension ProviderDescriptor {

    /// Static endpoint URL templates.
    public struct Endpoints: Sendable, Hashable, Codable {
        public var authorization: String?
        public var token: String?
        public var userinfo: String?
        public var revocation: String?
        public var introspection: String?
        public var endSession: String?
        public var deviceAuthorization: String?
        public var jwks: String?
        /// Pushed authorization request endpoint (RFC 9126).
        public var pushedAuthorization: String?
        /// Where refresh requests go, for a provider that takes them apart from the token endpoint (Figma, DigitalOcean).
        public var refresh: String?

        enum CodingKeys: String, CodingKey {
            case authorization, token, userinfo, revocation, introspection
            case endSession = "end_session", deviceAuthorization = "device_authorization", jwks
            case pushedAuthorization = "pushed_authorization", refresh
        }

        public init() {}

        init(plain o: PlainObject) throws {
            authorization = try o.string(CodingKeys.authorization)
            token = try o.string(CodingKeys.token)
            userinfo = try o.string(CodingKeys.userinfo)
            revocation = try o.string(CodingKeys.revocation)
            introspection = try o.string(CodingKeys.introspection)
            endSession = try o.string(CodingKeys.endSession)
            deviceAuthorization = try o.string(CodingKeys.deviceAuthorization)
            jwks = try o.string(CodingKeys.jwks)
            pushedAuthorization = try o.string(CodingKeys.pushedAuthorization)
            refresh = try o.string(CodingKeys.refresh)
        }

        /// Every endpoint that is set, by its YAML key.
        public var all: [(key: String, template: String)] {
            let pairs: [(String, String?)] = [
                ("authorization", authorization), ("token", token), ("userinfo", userinfo),
                ("revocation", revocation), ("introspection", introspection), ("end_session", endSession),
                ("device_authorization", deviceAuthorization), ("jwks", jwks), ("pushed_authorization", pushedAuthorization),
                ("refresh", refresh),
            ]
            return pairs.compactMap { key, value in value.map { (key, $0) } }
        }
    }

    /// A value the user supplies, such as an Auth0 domain or a Keycloak realm.
    public struct Variable: Sendable, Hashable, Codable {
        public var description: String
        public var required: Bool
        public var `default`: String?
        public var pattern: String?
        public var `enum`: [String]?
        public var example: String?

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            description = try o.required(CodingKeys.description, o.string)
            required = try o.bool(CodingKeys.required) ?? true
            `default` = try o.string(CodingKeys.default)
            pattern = try o.string(CodingKeys.pattern)
            `enum` = try o.strings(CodingKeys.enum)
            example = try o.string(CodingKeys.example)
        }
    }

    /// Scopes and how they are joined.
    public struct Scopes: Sendable, Hashable, Codable {
        public var `default`: [String] = []
        public var separator: String = " "
        public var offline: Offline = Offline()
        /// When requests carry the `scope` parameter (Bungie and Pipedrive take none; Notion wants it even empty).
        public var parameter: Parameter = .whenListed

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            `default` = try o.strings(CodingKeys.default) ?? defaults.default
            separator = try o.string(CodingKeys.separator) ?? defaults.separator
            offline = try o.object(CodingKeys.offline, Offline.init(plain:)) ?? defaults.offline
            parameter = try o.choice(CodingKeys.parameter) ?? defaults.parameter
        }
    }

    /// What to add to an authorization request to be issued a refresh token.
    public struct Offline: Sendable, Hashable, Codable {
        public var scopes: [String] = []
        public var params: [String: String] = [:]
        /// The provider grants `offline_access` without `prompt=consent`: OpenID Connect Core §11's "other
        /// conditions", as its documentation states them.
        public var withoutConsentPrompt = false
        /// When the provider issues refresh tokens only in some cases (an application setting, an approval),
        /// that case in a sentence: the catalog says so in a footnote.
        public var condition: String?

        enum CodingKeys: String, CodingKey {
            case scopes, params, withoutConsentPrompt = "without_consent_prompt", condition
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            scopes = try o.strings(CodingKeys.scopes) ?? defaults.scopes
            params = try o.stringMap(CodingKeys.params) ?? defaults.params
            withoutConsentPrompt = try o.bool(CodingKeys.withoutConsentPrompt) ?? defaults.withoutConsentPrompt
            condition = try o.string(CodingKeys.condition)
        }
    }

    /// The authorization request.
    public struct Authorization: Sendable, Hashable, Codable {
        public enum ResponseMode: String, Sendable, Hashable, Codable, CaseIterable {
            case query
            case formPost = "form_post"
            case fragment
            /// JARM: the response as a JWT signed by the server, in the query for the code flow (`query.jwt`).
            case jwt
            /// JARM: the signed response JWT in the redirect's query.
            case queryJWT = "query.jwt"
            /// JARM: the signed response JWT in a cross-site POST body.
            case formPostJWT = "form_post.jwt"
        }

        /// When the authorization request is pushed (RFC 9126).
        public enum Pushed: String, Sendable, Hashable, Codable, CaseIterable {
            /// Always: a provider without a pushed authorization request endpoint cannot sign in.
            case always
            /// When the provider has the endpoint (in the descriptor or its discovery document).
            case ifSupported = "if_supported"
            /// Never, unless discovery says `require_pushed_authorization_requests: true`.
            case never
        }

        public var responseType: String = "code"
        public var responseMode: ResponseMode = .query
        public var extraParams: [String: String] = [:]
        public var pushed: Pushed = .ifSupported
        /// A signature the callback carries, checked with the client secret before the code is exchanged.
        public var callbackSignature: CallbackSignature?
        /// The `type`s of rich authorization request details the provider documents (RFC 9396 §2); nil declares none.
        public var detailsTypes: [String]?
        /// When the parameters go in a signed request object (RFC 9101).
        public var requestObject: RequestObject = .never
        /// The algorithms a request object may be signed with; nil takes every one the client's key can sign.
        public var requestObjectAlgs: [String]?
        /// The algorithms a JWT-secured response (JARM) may be signed with.
        public var responseAlgs: [String] = ["RS256", "PS256", "ES256"]

        enum CodingKeys: String, CodingKey {
            case responseType = "response_type", responseMode = "response_mode", extraParams = "extra_params", pushed
            case callbackSignature = "callback_signature"
            case detailsTypes = "details_types"
            case requestObject = "request_object", requestObjectAlgs = "request_object_algs", responseAlgs = "response_algs"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            responseType = try o.string(CodingKeys.responseType) ?? defaults.responseType
            responseMode = try o.choice(CodingKeys.responseMode) ?? defaults.responseMode
            extraParams = try o.stringMap(CodingKeys.extraParams) ?? defaults.extraParams
            pushed = try o.choice(CodingKeys.pushed) ?? defaults.pushed
            callbackSignature = try o.object(CodingKeys.callbackSignature, CallbackSignature.init(plain:))
            detailsTypes = try o.strings(CodingKeys.detailsTypes)
            requestObject = try o.choice(CodingKeys.requestObject) ?? defaults.requestObject
            requestObjectAlgs = try o.strings(CodingKeys.requestObjectAlgs)
            responseAlgs = try o.strings(CodingKeys.responseAlgs) ?? defaults.responseAlgs
        }
    }

    /// How token requests are sent.
    public struct TokenRequest: Sendable, Hashable, Codable {
        public enum BodyEncoding: String, Sendable, Hashable, Codable, CaseIterable {
            /// `application/x-www-form-urlencoded` (RFC 6749 §4.1.3).
            case form
            /// `application/json`, which Auth0 and Slack also accept.
            case json
        }

        public var bodyEncoding: BodyEncoding = .form
        public var headers: [String: String] = [:]
        /// Fixed parameters added to every token request (Shopify's `expiring: "1"` for expiring offline tokens).
        public var extraParams: [String: String] = [:]
        /// Parameters of the authorization callback copied into the code exchange (VK's `device_id`, Naver's `state`).
        public var callbackParams: [String] = []
        /// Parameters of the authorization callback kept with the session and sent on every refresh (VK's `device_id`).
        public var callbackParamsOnRefresh: [String] = []

        enum CodingKeys: String, CodingKey {
            case bodyEncoding = "body_encoding", headers, extraParams = "extra_params", callbackParams = "callback_params"
            case callbackParamsOnRefresh = "callback_params_on_refresh"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            bodyEncoding = try o.choice(CodingKeys.bodyEncoding) ?? defaults.bodyEncoding
            headers = try o.stringMap(CodingKeys.headers) ?? defaults.headers
            extraParams = try o.stringMap(CodingKeys.extraParams) ?? defaults.extraParams
            callbackParams = try o.strings(CodingKeys.callbackParams) ?? defaults.callbackParams
            callbackParamsOnRefresh = try o.strings(CodingKeys.callbackParamsOnRefresh) ?? defaults.callbackParamsOnRefresh
        }
    }

    /// Client authentication at the token endpoint.
    public struct ClientAuth: Sendable, Hashable, Codable {
        public enum Method: String, Sendable, Hashable, Codable, CaseIterable {
            case none
            case clientSecretBasic = "client_secret_basic"
            case clientSecretPost = "client_secret_post"
            /// A JWT signed with the client secret (HS256), RFC 7523 §2.2 and OpenID Connect Core §9.
            case clientSecretJWT = "client_secret_jwt"
            /// A JWT signed with the client's private key (RS256, PS256, ES256).
            case privateKeyJWT = "private_key_jwt"
            /// A client certificate issued by a CA the server trusts (RFC 8705 §2.1).
            case tlsClientAuth = "tls_client_auth"
            /// A self-signed client certificate registered with the server (RFC 8705 §2.2).
            case selfSignedTLSClientAuth = "self_signed_tls_client_auth"

            /// Whether the client proves itself with the client secret.
            public var usesSecret: Bool { [.clientSecretBasic, .clientSecretPost, .clientSecretJWT].contains(self) }
            /// Whether the client proves itself with a signed assertion (`client_assertion`).
            public var usesAssertion: Bool { self == .clientSecretJWT || self == .privateKeyJWT }
            /// Whether the client proves itself with a TLS client certificate.
            public var usesCertificate: Bool { self == .tlsClientAuth || self == .selfSignedTLSClientAuth }
        }

        /// The `aud` of the client's assertions (`client_secret_jwt`, `private_key_jwt`).
        public enum AssertionAudience: String, Sendable, Hashable, Codable, CaseIterable {
            /// The authorization server's issuer identifier: the value that cannot be redirected to another
            /// server's endpoint (CVE-2025-27370, CVE-2025-27371), and the default.
            case issuer
            /// The token endpoint URL, for providers that document it (Entra ID, Okta).
            case tokenEndpoint = "token_endpoint"
        }

        /// The one method, for descriptors written before ``methods`` (and the first choice otherwise).
        public var method: Method = .none
        /// Every method the provider accepts, in its order of preference.
        public var methods: [Method]?
        /// The `aud` the client's assertions carry.
        public var assertionAudience: AssertionAudience = .issuer
        /// The algorithms the provider takes for client assertions; nil takes every one OAuthFlow signs with.
        public var assertionAlgs: [String]?
        /// When the provider's "client secret" is a JWT the client signs itself (Sign in with Apple): its claims.
        public var generatedSecret: GeneratedSecret?
        /// The parameter naming the client in the authorization request and in form or JSON bodies (TikTok:
        /// `client_key`); nil for `client_id`.
        public var clientIDParameter: String?

        /// A client secret the engine makes: a JWT signed with the client's private key (its `kid` in the header),
        /// `iss` as given, `sub` the client id, `aud` as given, `iat` now and `exp` `lifetime` later.
        public struct GeneratedSecret: Sendable, Hashable, Codable {
            /// The `iss` claim, a template that may name `{variables}` (Apple: the Team ID).
            public var issuer: String
            /// The `aud` claim.
            public var audience: String
            /// Seconds the secret is valid; it is made again when a sixth of that is left.
            public var lifetime: Int = Self.standardLifetime

            /// The lifetime when the descriptor states none: a day.
            static let standardLifetime = 86_400

            enum CodingKeys: String, CodingKey { case issuer, audience, lifetime }
        }

        /// What the provider accepts: ``methods``, or just ``method``.
        public var supported: [Method] { methods ?? [method] }

        enum CodingKeys: String, CodingKey {
            case method, methods, assertionAudience = "assertion_audience", assertionAlgs = "assertion_algs"
            case generatedSecret = "generated_secret", clientIDParameter = "client_id_parameter"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            methods = try o.choices(CodingKeys.methods)
            method = try o.choice(CodingKeys.method) ?? methods?.first ?? Self().method
            assertionAudience = try o.choice(CodingKeys.assertionAudience) ?? Self().assertionAudience
            assertionAlgs = try o.strings(CodingKeys.assertionAlgs)
            clientIDParameter = try o.string(CodingKeys.clientIDParameter)
            generatedSecret = try o.object(CodingKeys.generatedSecret) { secret in
                GeneratedSecret(
                    issuer: try secret.required(GeneratedSecret.CodingKeys.issuer, secret.string),
                    audience: try secret.required(GeneratedSecret.CodingKeys.audience, secret.string),
                    lifetime: try secret.int(GeneratedSecret.CodingKeys.lifetime) ?? GeneratedSecret.standardLifetime)
            }
        }
    }

    /// How a provider names the API a service token is for (client credentials).
    public struct ServiceTokenSettings: Sendable, Hashable, Codable {
        /// The request parameter that carries the target API.
        public enum Target: String, Sendable, Hashable, Codable, CaseIterable {
            /// RFC 8707 `resource`, repeatable: an absolute URI each.
            case resource
            /// An `audience` parameter (Auth0).
            case audience
            /// A scope per API, the API followed by ``scopeSuffix`` (Entra ID's `API/.default`).
            case scope
        }

        public var target: Target = .resource
        /// For ``Target/scope``: what follows the API in its scope.
        public var scopeSuffix: String = "/.default"

        enum CodingKeys: String, CodingKey {
            case target, scopeSuffix = "scope_suffix"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            target = try o.choice(CodingKeys.target) ?? Self().target
            scopeSuffix = try o.string(CodingKeys.scopeSuffix) ?? Self().scopeSuffix
        }
    }

    /// How an API that receives this provider's access tokens checks them.
    public struct AccessTokenSettings: Sendable, Hashable, Codable {
        /// What the provider's access tokens are, and so how an API checks them.
        public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
            /// Signed JWTs, verified with the provider's JWKS.
            case jwt
            /// Opaque strings, checked by RFC 7662 introspection.
            case opaque
            /// JWTs verified with the JWKS, anything else introspected.
            case both
        }

        /// Which claims and header a JWT access token must carry.
        public enum Profile: String, Sendable, Hashable, Codable, CaseIterable {
            /// RFC 9068: `typ: at+jwt`, and `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti`.
            case rfc9068
            /// `iss`, `exp` and `aud`; the rest when present.
            case plain
        }

        /// Whether an introspection answer must name the API in `aud`.
        public enum IntrospectedAudience: String, Sendable, Hashable, Codable, CaseIterable {
            /// An answer without `aud` is refused: nothing said the token was meant for this API.
            case required
            /// An answer without `aud` is accepted, and the principal says the audience went unchecked (a server
            /// whose introspection never names one: LemonLDAP::NG). An answer with `aud` must still name the API.
            case mayBeAbsent = "may_be_absent"
        }

        public var format: Format = .jwt
        public var profile: Profile = .plain
        /// Whether an introspection answer must name the API in `aud` (default `required`).
        public var introspectedAudience: IntrospectedAudience = .required
        /// The JWS algorithms accepted, by name (never `none`, never HMAC).
        public var signingAlgs: [String] = ["RS256", "PS256", "ES256"]
        /// The API's audience when the descriptor states it (a template that may name variables).
        public var audience: String?
        /// Seconds of clock skew allowed on `exp`, `nbf` and `iat`.
        public var leeway: Int = 60
        /// The longest time, in seconds, an active introspection answer is reused (never past the token's `exp`).
        public var introspectionCache: Int = 300
        /// How long, in seconds, an inactive answer is reused.
        public var inactiveCache: Int = 10

        enum CodingKeys: String, CodingKey {
            case format, profile, signingAlgs = "signing_algs", audience, leeway
            case introspectionCache = "introspection_cache", inactiveCache = "inactive_cache"
            case introspectedAudience = "introspected_audience"
        }

        public init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        static let standard = Self()

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self.standard
            format = try o.choice(CodingKeys.format) ?? defaults.format
            profile = try o.choice(CodingKeys.profile) ?? defaults.profile
            signingAlgs = try o.strings(CodingKeys.signingAlgs) ?? defaults.signingAlgs
            audience = try o.string(CodingKeys.audience)
            leeway = try o.int(CodingKeys.leeway) ?? defaults.leeway
            introspectionCache = try o.int(CodingKeys.introspectionCache) ?? defaults.introspectionCache
            inactiveCache = try o.int(CodingKeys.inactiveCache) ?? defaults.inactiveCache
            introspectedAudience = try o.choice(CodingKeys.introspectedAudience) ?? defaults.introspectedAudience
        }
    }

    /// How token responses are read.
    public struct TokenResponse: Sendable, Hashable, Codable {
        public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
            case json, form, auto
        }

        /// What `expires_in: 0` means.
        public enum ZeroExpiresIn: String, Sendable, Hashable, Codable, CaseIterable {
            /// RFC 6749 §5.1: a lifetime of 0 seconds; the token is used for the request at hand and never kept for another.
            case spent
            /// The provider's own meaning (Mailchimp): the token does not expire.
            case noExpiry = "no_expiry"
        }

        public var format: Format = .json
        /// The `token_type` to assume when the answer has none (RFC 6749 §5.1 requires it; Shopify, Atlassian and
        /// WorkOS leave it out). Only `Bearer`.
        public var defaultTokenType: String?
        /// What `expires_in: 0` means (default `spent`).
        public var zeroExpiresIn: ZeroExpiresIn = .spent
        /// What stands between the granted scopes in an answer's `scope`, when it is not the request's
        /// `scopes.separator` (GitHub and LinkedIn answer `email,openid,profile`); nil for the request's.
        public var scopeSeparator: String?

        enum CodingKeys: String, CodingKey {
            case format, defaultTokenType = "default_token_type", zeroExpiresIn = "zero_expires_in"
            case scopeSeparator = "scope_separator"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            format = try o.choice(CodingKeys.format) ?? Self().format
            defaultTokenType = try o.string(CodingKeys.defaultTokenType)
            zeroExpiresIn = try o.choice(CodingKeys.zeroExpiresIn) ?? Self().zeroExpiresIn
            scopeSeparator = try o.string(CodingKeys.scopeSeparator)
        }
    }

    /// The checks the engine performs.
    public struct Security: Sendable, Hashable, Codable {
        public enum PKCEUse: String, Sendable, Hashable, Codable, CaseIterable {
            case required, supported, unsupported
        }

        public enum CodeChallengeMethod: String, Sendable, Hashable, Codable, CaseIterable {
            case s256 = "S256"
            case plain
        }

        /// RFC 9207 handling of the `iss` authorization response parameter.
        public enum IssuerParameter: String, Sendable, Hashable, Codable, CaseIterable {
            case required
            case ifPresent = "if_present"
            case absent
        }

        /// When access tokens are bound to a key with DPoP (RFC 9449).
        public enum DPoPMode: String, Sendable, Hashable, Codable, CaseIterable {
            /// Always: a sign-in fails unless the server issues DPoP-bound tokens.
            case required
            /// When discovery lists `dpop_signing_alg_values_supported`.
            case ifSupported = "if_supported"
            /// Never: Bearer tokens, which git and kubectl can use.
            case never
        }

        /// What to do when DPoP was used but the token endpoint answered `token_type: Bearer`.
        public enum BearerAnswer: String, Sendable, Hashable, Codable, CaseIterable {
            /// Refuse the answer: the session would hold an unbound token the descriptor did not expect.
            case refuse
            /// Keep the tokens as Bearer tokens (the key is dropped).
            case accept
        }

        public var pkce: PKCEUse = .required
        public var pkceMethod: CodeChallengeMethod = .s256
        public var state: Bool = true
        /// Whether to send and check `nonce`; defaults to true for `oidc` providers.
        public var nonce: Bool?
        /// Whether the provider's ID tokens carry the `nonce` sent (OpenID Connect Core §3.1.3.7). `false` (LinkedIn)
        /// accepts an ID token without one; the nonce is still sent, and checked in a token that carries it.
        public var nonceEchoed = true
        public var issParameter: IssuerParameter = .ifPresent
        /// ID token algorithms accepted (`none` never is).
        public var idTokenAlgs: [String] = ["RS256", "ES256"]
        /// Other exact spellings of the issuer.
        public var issuerAliases: [String] = []
        /// The ID token issuer as a template filled from the token's own claims (multi-tenant providers).
        public var idTokenIssuer: String?
        public var dpop: DPoPMode = .never
        /// The algorithms DPoP proofs may be signed with, in the client's order of preference.
        public var dpopSigningAlgs: [String] = ["ES256"]
        public var dpopBearerAnswer: BearerAnswer = .refuse
        /// Whether the provider binds access tokens to the client certificate the token request presents (RFC 8705 §3,
        /// `tls_client_certificate_bound_access_tokens`), whichever way the client authenticates: token requests then
        /// present the client's certificate (at the token endpoint's `mtls_endpoint_aliases` entry) even with
        /// `private_key_jwt`. Clients that authenticate with their certificate present it anyway.
        public var tlsClientCertificateBoundAccessTokens = false
        /// The security profile the provider is held to (FAPI 2.0); nil for none. A host that builds its descriptor in
        /// code sets it before ``ProviderDescriptor/resolve(_:)``, which refuses what contradicts it.
        public var profile: SecurityProfile?

        enum CodingKeys: String, CodingKey {
            case pkce, pkceMethod = "pkce_method", state, nonce, nonceEchoed = "nonce_echoed", issParameter = "iss_parameter"
            case idTokenAlgs = "id_token_algs"
            case issuerAliases = "issuer_aliases", idTokenIssuer = "id_token_issuer", dpop
            case dpopSigningAlgs = "dpop_signing_alg_values_supported", dpopBearerAnswer = "dpop_bearer_answer", profile
            case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        }

        public init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        static let standard = Self()

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self.standard
            pkce = try o.choice(CodingKeys.pkce) ?? defaults.pkce
            pkceMethod = try o.choice(CodingKeys.pkceMethod) ?? defaults.pkceMethod
            state = try o.bool(CodingKeys.state) ?? defaults.state
            nonce = try o.bool(CodingKeys.nonce)
            nonceEchoed = try o.bool(CodingKeys.nonceEchoed) ?? defaults.nonceEchoed
            issParameter = try o.choice(CodingKeys.issParameter) ?? defaults.issParameter
            idTokenAlgs = try o.strings(CodingKeys.idTokenAlgs) ?? defaults.idTokenAlgs
            issuerAliases = try o.strings(CodingKeys.issuerAliases) ?? defaults.issuerAliases
            idTokenIssuer = try o.string(CodingKeys.idTokenIssuer)
            dpop = try o.choice(CodingKeys.dpop) ?? defaults.dpop
            dpopSigningAlgs = try o.strings(CodingKeys.dpopSigningAlgs) ?? defaults.dpopSigningAlgs
            dpopBearerAnswer = try o.choice(CodingKeys.dpopBearerAnswer) ?? defaults.dpopBearerAnswer
            tlsClientCertificateBoundAccessTokens = try o.bool(CodingKeys.tlsClientCertificateBoundAccessTokens) ?? false
            profile = try o.choice(CodingKeys.profile)
        }
    }

    /// Redirect URIs for native clients.
    public struct Redirect: Sendable, Hashable, Codable {
        public var loopback: Loopback = Loopback()
        /// The private-use URI scheme an app's redirect URI has (RFC 8252 §7.1), such as Google's iOS clients'
        /// `{reversed_client_id}`; it may name the descriptor's `{variables}` and what the app's sign-in fills in:
        /// `{client_id}`, `{reversed_client_id}` and `{bundle_id}` (Docs/apple.md).
        public var privateUseScheme: String?
        /// An app's whole private-use redirect URI, when the provider documents one other than `SCHEME:/oauth2redirect`
        /// (Auth0's `{bundle_id}://{domain}/ios/{bundle_id}/callback`); it begins with ``privateUseScheme`` and `:`.
        public var privateUseURI: String?
        /// An app's claimed https redirect URI (RFC 8252 §7.2, a universal link), such as Auth0's
        /// `https://{domain}/ios/{bundle_id}/callback`; the same placeholders as ``privateUseScheme``.
        public var claimedHTTPS: String?
        /// The provider takes only https redirect URIs on a registered web domain (Sign in with Apple): no loopback.
        public var webOnly = false

        enum CodingKeys: String, CodingKey {
            case loopback, privateUseScheme = "private_use_scheme", privateUseURI = "private_use_uri", claimedHTTPS = "claimed_https"
            case webOnly = "web_only"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            loopback = try o.object(CodingKeys.loopback, Loopback.init(plain:)) ?? Self().loopback
            privateUseScheme = try o.string(CodingKeys.privateUseScheme)
            privateUseURI = try o.string(CodingKeys.privateUseURI)
            claimedHTTPS = try o.string(CodingKeys.claimedHTTPS)
            webOnly = try o.bool(CodingKeys.webOnly) ?? false
        }
    }

    /// The loopback redirect the CLI listens on (RFC 8252 §7.3).
    public struct Loopback: Sendable, Hashable, Codable {
        public enum Port: Sendable, Hashable, Codable {
            /// A free port chosen when the login starts.
            case ephemeral
            case fixed(Int)

            public init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int.self) {
                    self = .fixed(number)
                } else {
                    let word = try container.decode(String.self)
                    guard word == "ephemeral" else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a port or `ephemeral`")
                    }
                    self = .ephemeral
                }
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .ephemeral: try container.encode("ephemeral")
                case let .fixed(port): try container.encode(port)
                }
            }
        }

        public var host: String = "127.0.0.1"
        public var port: Port = .ephemeral
        public var path: String = "/callback"
        /// With `host: localhost`: the redirect URI keeps the name (`http://localhost:PORT/PATH`) instead of
        /// `127.0.0.1`, for providers that take no other (Amazon Cognito); the listener binds 127.0.0.1 and ::1.
        public var writeLocalhost = false

        enum CodingKeys: String, CodingKey {
            case host, port, path, writeLocalhost = "write_localhost"
        }

        public init() {}

        public init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            let defaults = Self()
            host = try o.string(CodingKeys.host) ?? defaults.host
            switch o.raw(CodingKeys.port) {
            case nil, .string("ephemeral")?: port = .ephemeral
            case let .number(number)? where Int(exactly: number) != nil: port = .fixed(Int(number))
            default: throw PlainObject.mismatch("a port or `ephemeral`", at: o.path + ["port"])
            }
            path = try o.string(CodingKeys.path) ?? defaults.path
            writeLocalhost = try o.bool(CodingKeys.writeLocalhost) ?? defaults.writeLocalhost
        }
    }

    /// One entry of the scope-to-resource map, with its URL still a template.
    public struct ResourceTemplate: Sendable, Hashable, Codable {
        public var scope: String
        public var title: String
        public var url: String

        public init(scope: String, title: String, url: String) {
            self.scope = scope
            self.title = title
            self.url = url
        }

        init(plain o: PlainObject) throws {
            self.init(
                scope: try o.required(CodingKeys.scope, o.string), title: try o.required(CodingKeys.title, o.string),
                url: try o.required(CodingKeys.url, o.string))
        }
    }
}
