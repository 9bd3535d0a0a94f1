import Foundation

/// The shape of a provider descriptor, written once and used three ways.
///
/// The loader checks documents against it (unknown keys, types, required keys,
/// allowed values), `providers/schema.json` is generated from it for editors, and
/// the field reference in `Docs/descriptor-format.md` is generated from it too, so
/// the three cannot drift apart.
package enum DescriptorSchema {
    /// The descriptor format versions this build reads.
    public static let supportedVersions: Set<Int> = [1]

    /// The kind of value a key holds.
    public indirect enum Shape: Sendable {
        /// Any string; `pattern` is a regular expression the whole string must match.
        case string(pattern: String? = nil)
        /// An absolute URL, which may contain `{variable}` placeholders in host and path.
        case urlTemplate
        case boolean
        /// An integer from `range`.
        case integer(ClosedRange<Int>)
        /// One of a fixed set of strings.
        case choice([String])
        /// A sequence of values of one shape.
        case list(Shape)
        /// A mapping from free-form string keys to values of one shape.
        case map(Shape)
        /// A mapping with the keys that `fields` declares, and no others.
        case object([Field])
        /// Any one of the shapes.
        case either([Shape])

        /// One of an enumeration's raw values, in the order it declares them: the vocabulary is the type's.
        static func choice<Value: CaseIterable & RawRepresentable>(of _: Value.Type) -> Shape where Value.RawValue == String {
            .choice(Value.allCases.map(\.rawValue))
        }

        /// One of `values`' raw values, in their order.
        static func choice<Value: RawRepresentable>(among values: [Value]) -> Shape where Value.RawValue == String {
            .choice(values.map(\.rawValue))
        }
    }

    /// One key of an object.
    public struct Field: Sendable {
        public var name: String {
            didSet { key = NameKey(name) }
        }
        /// The name's length and first bytes, for ``ShapeTable`` to rule fields out without reading the name.
        private(set) var key: NameKey
        public var shape: Shape
        public var required: Bool
        /// What the field means, in one or two sentences.
        public var summary: String
        /// The value used when the key is absent, as YAML text.
        public var defaultValue: String?

        public init(_ name: String, _ shape: Shape, required: Bool = false, default defaultValue: String? = nil, _ summary: String) {
            self.name = name
            self.key = NameKey(name)
            self.shape = shape
            self.required = required
            self.summary = summary
            self.defaultValue = defaultValue
        }

        /// A field holding one of an enumeration's values, `value` when the key is absent: the setting's
        /// vocabulary and default are the model's, stated there once.
        init<Value: CaseIterable & RawRepresentable>(_ name: String, default value: Value, _ summary: String) where Value.RawValue == String {
            self.init(name, .choice(of: Value.self), default: value.rawValue, summary)
        }
    }

    /// The most entries a mapping (such as `variables`) or a list may hold.
    public static let maximumEntries = 256
    /// The most `{placeholders}` one URL may hold.
    public static let maximumPlaceholders = 16
    /// The longest URL accepted, in bytes.
    public static let maximumURLLength = 2_048

    /// Parameters the engine sets itself; descriptors may not set them.
    public static let reservedParameters: [String] = [
        "client_id", "client_secret", "redirect_uri", "state", "nonce",
        "code_challenge", "code_challenge_method", "code_verifier", "response_type",
    ]

    static let identifierPattern = "^[a-z0-9][a-z0-9_-]*$"
    static let variableNamePattern = "^[a-z][a-z0-9_]*$"

    /// The top-level fields of format version 1.
    public static let fields: [Field] = [
        Field(
            "schema_version", .integer(1...1), required: true,
            "Descriptor format version. This release reads version 1."),
        Field(
            "id", .string(pattern: identifierPattern), required: true,
            "Name host code and the CLI select the provider by. Must equal the file name without `.yaml`."),
        Field("display_name", .string(), required: true, "Human-readable provider name."),
        Field(
            "protocol", .choice(of: ProviderProtocol.self), required: true,
            "`oidc` turns on ID tokens, the `openid` scope and nonce checks; `oauth2` is plain OAuth 2.0."),
        Field("docs_url", .urlTemplate, "Where the provider documents client registration."),
        Field(
            "issuer", .urlTemplate,
            "The authorization server's issuer identifier: expected `iss` in ID tokens and in RFC 9207 callbacks. Declare it for plain OAuth 2.0 providers too; one that publishes no issuer and sends no `iss` needs none with `security.iss_parameter: absent`."
        ),
        Field("discovery", .object(discoveryFields), "Where the server publishes its metadata, if anywhere."),
        Field("endpoints", .object(endpointFields), "Static endpoint URLs. They take precedence over discovered ones."),
        Field(
            "variables", .map(.object(variableFields)),
            "Inputs a user supplies when selecting the provider, used as `{name}` in URL hosts and paths."),
        Field("scopes", .object(scopeFields), "Scopes to request and how to join them."),
        Field("authorization", .object(authorizationFields), "The authorization request."),
        Field(
            "grant_types", .list(.string()), default: shown(ProviderDescriptor.defaultGrantTypes),
            "Grant types the client uses: `authorization_code`, `refresh_token`, the device grant (`urn:ietf:params:oauth:grant-type:device_code`), `client_credentials`, the JWT bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`) and token exchange (`urn:ietf:params:oauth:grant-type:token-exchange`); resolving a provider that lists another fails (`unsupported_policy`)."
        ),
        Field("token_request", .object(tokenRequestFields), "How the token endpoint wants its requests."),
        Field("client_auth", .object(clientAuthFields), "How the client authenticates at the token endpoint."),
        Field(
            "service_tokens", .object(serviceTokenFields),
            "How the provider names the API a service's token is for (`client_credentials`; see Docs/services.md)."),
        Field(
            "access_tokens", .object(accessTokenFields),
            "How an API that receives this provider's access tokens checks them: JWTs with the JWKS, or introspection (see Docs/api-protection.md)."
        ),
        Field(
            "logout", .object(logoutFields),
            "How the provider's own session is ended (RP-Initiated Logout, or its own logout URL) and how it tells the app a session ended (back-channel and front-channel logout); see Docs/logout.md."
        ),
        Field(
            "revocation", .object(revocationFields),
            "How a token is revoked (`endpoints.revocation`), for providers that do not take RFC 7009 as written: another method, the token under another name or as the request's Bearer token, fixed parameters, or one kind of token only."
        ),
        Field("token_response", .object(tokenResponseFields), "How to read token endpoint responses."),
        Field("userinfo", .object(userinfoFields), "How to call the userinfo endpoint."),
        Field("security", .object(securityFields), "The checks the engine performs for this provider."),
        Field("redirect", .object(redirectFields), "Redirect URIs a native client registers with this provider."),
        Field(
            "device", .object(deviceFields),
            "How the provider answers the device authorization grant (RFC 8628); declare the grant in `grant_types` and the endpoint in `endpoints.device_authorization` (or discovery)."
        ),
        Field(
            "resources", .list(.object(resourceFields)),
            "Protected resources and the scope each needs: the scope-to-resource map."),
        Field(
            "resources_file", .string(),
            "A JSON or YAML file, relative to the descriptor, holding the resource list (the Cloudentity sample's `scopeData.json` format)."),
        Field(
            "profile", .object(profileFields),
            "Where the user's subject, name, email, email-verified flag and picture are in the ID token and userinfo, so every provider yields one profile shape. A field left out keeps its default sources; write `[]` for one the provider does not have. In a flow list (`[...]`), quote a source that holds `[`, `]`, `{` or `,` (`subject: ['userinfo.data[0].id']`)."
        ),
    ]

    /// A list default as the reference shows it: `[a, b]`.
    static func shown(_ values: [String]) -> String { "[" + values.joined(separator: ", ") + "]" }

    /// A map default as the reference shows it: `{}`, or `{a: b}`.
    static func shown(_ values: [String: String]) -> String {
        "{" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    // The defaults are stated once, in the model's property initialisers; the reference shows them.
    static let profileDefaults = ProviderDescriptor.Profile()
    static let securityDefaults = ProviderDescriptor.Security()
    static let loopbackDefaults = ProviderDescriptor.Loopback()

    /// A profile source: its grammar is ``ProfileSource``'s, checked when the descriptor is resolved (and by lint,
    /// through the resolver's refusals), where a positioned sentence can say what is wrong.
    static let profileSource = Shape.string()

    static let profileFields: [Field] = [
        Field(
            "subject", .list(profileSource), default: shown(profileDefaults.subject),
            "Sources of the user's stable id at the provider, first present wins (GitHub: `userinfo.id`; Entra: `id_token.oid`). A source is a path: a root (`id_token`, `userinfo`, `extra`, `callback`, or `token`: the token endpoint's answer) and steps into it, `.name` into an object, `[0]` into a list, `[\"name\"]` for a member whose name holds `.` or `/` (`id_token[\"https://slack.com/team_id\"]`); or a template with `{path}` placeholders, present when every one is (`https://cdn.discordapp.com/avatars/{userinfo.id}/{userinfo.avatar}.png`); or `=true`/`=false`, a constant."
        ),
        Field(
            "name", .list(profileSource), default: shown(profileDefaults.name),
            "Sources of the display name. A source may join several with ` + ` (their text, space-separated): Apple's `callback.user.name.firstName + callback.user.name.lastName`, where `callback.` reads a parameter the provider added to the callback (a JSON value is read as one)."
        ),
        Field(
            "email", .list(profileSource), default: shown(profileDefaults.email),
            "Sources of the email address."),
        Field(
            "email_verified", .list(profileSource), default: shown(profileDefaults.emailVerified),
            "Sources of whether the provider verified that address; without one the flag is unknown, never assumed."),
        Field(
            "picture", .list(profileSource), default: shown(profileDefaults.picture),
            "Sources of the picture URL (GitHub: `userinfo.avatar_url`)."),
        Field(
            "extra_call", .object(profileCallFields),
            "One more authorized GET for what the ID token and userinfo lack (GitHub's verified primary email: `https://api.github.com/user/emails`); its answer is the `extra.` source."
        ),
    ]

    static let profileCallFields: [Field] = [
        Field("url", .urlTemplate, required: true, "The URL, called with the access token; may use `{variables}`."),
        Field(
            "pick_where", .string(pattern: "^[A-Za-z0-9_]+$"),
            "When the answer is a list: use its first element whose field of this name is `true` (GitHub: `primary`)."),
        Field(
            "list", .string(pattern: "^[A-Za-z0-9_]+$"),
            "When the answer is an object holding the list: the member that holds it, which `pick_where` (required with it) picks from (Bitbucket's paginated `values`)."
        ),
    ]

    static let endpointFields: [Field] = [
        Field("authorization", .urlTemplate, "Authorization endpoint (RFC 6749 §3.1)."),
        Field("token", .urlTemplate, "Token endpoint (RFC 6749 §3.2)."),
        Field("userinfo", .urlTemplate, "OpenID Connect userinfo endpoint, or the provider's profile API."),
        Field("revocation", .urlTemplate, "Token revocation endpoint (RFC 7009)."),
        Field("introspection", .urlTemplate, "Token introspection endpoint (RFC 7662)."),
        Field("end_session", .urlTemplate, "OpenID Connect RP-initiated logout endpoint."),
        Field("device_authorization", .urlTemplate, "Device authorization endpoint (RFC 8628)."),
        Field("jwks", .urlTemplate, "JSON Web Key Set used to verify ID tokens."),
        Field(
            "pushed_authorization", .urlTemplate,
            "Pushed authorization request endpoint (RFC 9126); discovery's `pushed_authorization_request_endpoint` otherwise."),
        Field(
            "refresh", .urlTemplate,
            "Where refresh requests (RFC 6749 §6) go, for a provider that takes them apart from the token endpoint (Figma, DigitalOcean); the token endpoint otherwise."
        ),
    ]

    static let variableFields: [Field] = [
        Field("description", .string(), required: true, "What the user should enter."),
        Field("required", .boolean, default: "true", "Whether a value must be given when there is no default."),
        Field("default", .string(), "Value used when none is given."),
        Field("pattern", .string(), "Regular expression the whole value must match."),
        Field("enum", .list(.string()), "The only values allowed."),
        Field("example", .string(), "An example value, shown in help and errors."),
    ]

    static let offlineFields: [Field] = [
        Field(
            "scopes", .list(.string()), default: shown(ProviderDescriptor.Offline().scopes),
            "Scopes added to obtain a refresh token (`offline_access`)."),
        Field(
            "params", .map(.string()), default: shown(ProviderDescriptor.Offline().params),
            "Authorization parameters added to obtain a refresh token (Google `access_type: offline`)."),
        Field(
            "without_consent_prompt", .boolean, default: "false",
            "The provider's documentation grants refresh tokens for `offline_access` without `prompt=consent` (the \"other conditions\" of OpenID Connect Core §11). Lint rule `offline_access_consent` asks for one or the other."
        ),
        Field(
            "condition", .string(),
            "When the provider issues refresh tokens only in some cases (an application setting, an approval, a kind of app), that case in a sentence; the catalog's Refresh column says `conditional` (or keeps its scope or parameter) with the sentence as a footnote."
        ),
    ]

    static let scopeFields: [Field] = [
        Field("default", .list(.string()), default: shown(ProviderDescriptor.Scopes().default), "Scopes requested when the caller names none."),
        Field(
            "separator", .string(), default: "\"\(ProviderDescriptor.Scopes().separator)\"", "String placed between scopes in the `scope` parameter."),
        Field("offline", .object(offlineFields), "What to add to the request to get a refresh token."),
        Field(
            "parameter", default: ProviderDescriptor.Scopes().parameter,
            "When requests carry `scope`: the authorization request, the device authorization request, and token requests that name scopes (a refresh for fewer scopes, the service grants). `when_listed` sends it when some scope is asked for; `always` also sends it empty (Notion); `never` sends none, for providers that fix the scopes when the app is registered and refuse the parameter (Bungie, Pipedrive), and is refused with scopes listed."
        ),
    ]

    static let authorizationFields: [Field] = [
        Field(
            "response_type", .string(), default: ProviderDescriptor.Authorization().responseType,
            "The OAuth response type. Only `code` is acceptable (RFC 9700); resolving a provider with another fails (`unsupported_policy`)."),
        Field(
            "response_mode", default: ProviderDescriptor.Authorization().responseMode,
            "How the server returns the authorization response. `jwt`, `query.jwt` and `form_post.jwt` (JARM) have it sign the response as a JWT, which the engine verifies with the provider's JWKS (`response_algs`, `iss`, `aud`, `exp`) before it reads `code` and `state` from it; an encrypted response (JWE) is refused."
        ),
        Field(
            "extra_params", .map(.string()), default: shown(ProviderDescriptor.Authorization().extraParams),
            "Fixed parameters added to every authorization request (Auth0 `audience`). Reserved parameters are not allowed."),
        Field(
            "pushed", default: ProviderDescriptor.Authorization().pushed,
            "Pushed authorization requests (RFC 9126): every parameter goes to the provider in an authenticated POST and the browser gets only `client_id` and `request_uri`. `if_supported` pushes when the provider has the endpoint (`endpoints.pushed_authorization` or discovery); `always` fails without one; `never` does not push unless discovery says `require_pushed_authorization_requests: true`."
        ),
        Field(
            "request_object", default: ProviderDescriptor.Authorization().requestObject,
            "Signed request objects (RFC 9101): every authorization parameter goes in a JWT the client signs with its private key (`typ: oauth-authz-req+jwt`, `aud` the issuer), sent as `request` in the pushed request or the URL. `if_supported` signs when discovery lists the key's algorithm in `request_object_signing_alg_values_supported`; `always` fails without a private key; `never` does not sign unless discovery says `require_signed_request_object: true`."
        ),
        Field(
            "request_object_algs", .list(.choice(among: JWSAlgorithm.requestObject)),
            "The algorithms the provider takes for request objects; absent takes all four, and the client's key decides (an Ed25519 key signs `EdDSA`)."
        ),
        Field(
            "response_algs", .list(.choice(among: JWSAlgorithm.publicKey)), default: shown(ProviderDescriptor.Authorization().responseAlgs),
            "The algorithms a JWT-secured response (`response_mode: jwt`, JARM) may be signed with, verified with the provider's JWKS; `none` and HMAC are never accepted."
        ),
        Field(
            "callback_signature", .object(callbackSignatureFields),
            "A signature the provider adds to the callback with the client secret (Shopify's `hmac`); a callback without it, or with a wrong one, is refused before the code is exchanged."
        ),
        Field(
            "details_types", .list(.string()),
            "The `type`s of rich authorization request details (RFC 9396) the provider documents (`payment_initiation`, `account_information`): a sign-in or service token request asking for another type is refused before anything is sent. Left out, discovery's `authorization_details_types_supported` decides when the provider publishes it, and otherwise any type is sent."
        ),
    ]

    static let callbackSignatureFields: [Field] = [
        Field(
            "parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: ProviderDescriptor.Authorization.CallbackSignature().parameter,
            "The callback parameter carrying the signature."),
        Field(
            "algorithm", default: ProviderDescriptor.Authorization.CallbackSignature().algorithm,
            "`hmac_sha256_hex`: HMAC-SHA256 keyed with the client secret over the callback's other parameters, sorted by name and joined as `name=value` with `&`, in lowercase hex."
        ),
    ]

    static let tokenRequestFields: [Field] = [
        Field(
            "body_encoding", default: ProviderDescriptor.TokenRequest().bodyEncoding,
            "`form` sends `application/x-www-form-urlencoded`; `json` sends `application/json`."),
        Field(
            "headers", .map(.string()), default: shown(ProviderDescriptor.TokenRequest().headers),
            "Extra HTTP headers (GitHub needs `Accept: application/json`)."),
        Field(
            "extra_params", .map(.string()), default: shown(ProviderDescriptor.TokenRequest().extraParams),
            "Fixed parameters added to every token request: the code exchange, refreshes and the other grants (Shopify's `expiring: \"1\"` for expiring offline tokens). Parameters the engine sets are refused."
        ),
        Field(
            "callback_params", .list(.string(pattern: "^[A-Za-z0-9_.-]+$")), default: shown(ProviderDescriptor.TokenRequest().callbackParams),
            "Parameters of the authorization callback sent back in the code exchange (VK's `device_id`, Naver's `state`), when the callback carries them."
        ),
        Field(
            "callback_params_on_refresh", .list(.string(pattern: "^[A-Za-z0-9_.-]+$")),
            default: shown(ProviderDescriptor.TokenRequest().callbackParamsOnRefresh),
            "Parameters of the authorization callback kept with the session (in the token store, beside the tokens; they are not secrets) and sent on every refresh (VK ID's `device_id`). Parameters the engine sets are refused."
        ),
    ]

    static let clientAuthFields: [Field] = [
        Field(
            "methods", .list(.choice(of: ProviderDescriptor.ClientAuth.Method.self)),
            "Every method the provider accepts, in its order of preference. The client chooses the first method listed whose credential it holds (a secret, a private key, a certificate), or `none` when it holds none; a client's `client_auth` setting names one instead. `none` is for public clients; `client_secret_basic` sends an HTTP Basic header (RFC 6749 §2.3.1); `client_secret_post` sends the secret in the body; `client_secret_jwt` and `private_key_jwt` send a short-lived signed assertion (RFC 7523 §2.2); `tls_client_auth` and `self_signed_tls_client_auth` present a client certificate (RFC 8705)."
        ),
        Field(
            "method", default: ProviderDescriptor.ClientAuth().method,
            "The single method of a provider that accepts only one (the same as a one-item `methods`)."),
        Field(
            "assertion_audience", default: ProviderDescriptor.ClientAuth().assertionAudience,
            "The `aud` of `client_secret_jwt` and `private_key_jwt` assertions. `issuer` is the safe value (an assertion for one server cannot be replayed at another's endpoint, CVE-2025-27370/27371); `token_endpoint` is for providers that document it (Entra ID, Okta)."
        ),
        Field(
            "assertion_algs", .list(.choice(among: JWSAlgorithm.clientAssertion)),
            "The algorithms the provider takes for client assertions; absent takes all five, and the client's key decides (an Ed25519 key signs `EdDSA`). `HS256` is `client_secret_jwt`'s; the others are the private key's."
        ),
        Field(
            "client_id_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: "client_id",
            "The name the client id goes by in the authorization request (pushed or not) and in the bodies of token, device and revocation requests (TikTok: `client_key`); `client_secret_basic` is unaffected. A name the engine sets itself is refused."
        ),
        Field(
            "generated_secret", .object(generatedSecretFields),
            "For providers whose client secret is a JWT the client signs (Sign in with Apple): the engine signs it with the client's private key (`private_key_file` or `private_key_env`, and `key_id`, in the clients file) and sends it as the client secret (`client_secret_post` or `client_secret_basic`), made again before it expires."
        ),
    ]

    static let generatedSecretFields: [Field] = [
        Field(
            "issuer", .string(), required: true,
            "The `iss` claim; may name `{variables}` (Apple: `{team_id}`) and `{client_id}`, the client's id. The `sub` claim is always the client id; the key's algorithm (ES256 for Apple's .p8) signs it, with the key's `key_id` as `kid`."
        ),
        Field(
            "audience", .string(), required: true,
            "The `aud` claim (Apple: `https://appleid.apple.com`); may name `{variables}` and `{client_id}`."),
        Field(
            "lifetime", .integer(60...15_777_000), default: "\(ProviderDescriptor.ClientAuth.GeneratedSecret.standardLifetime)",
            "Seconds each secret is valid (`exp` - `iat`); a new one is signed when a sixth of that is left. Apple allows at most 15,777,000 (six months)."
        ),
    ]

    static let serviceTokenFields: [Field] = [
        Field(
            "target", default: ProviderDescriptor.ServiceTokenSettings().target,
            "How a client-credentials request names the API the token is for: `resource` sends RFC 8707 `resource` parameters (one per API); `audience` sends an `audience` parameter (Auth0); `scope` asks for the scope API + `scope_suffix` (Entra ID's `https://graph.microsoft.com/.default`)."
        ),
        Field(
            "scope_suffix", .string(), default: ProviderDescriptor.ServiceTokenSettings().scopeSuffix,
            "With `target: scope`, what follows the API in its scope."),
    ]

    static let accessTokenFields: [Field] = [
        Field(
            "format", default: ProviderDescriptor.AccessTokenSettings().format,
            "What the provider's access tokens are: `jwt` (verified with the JWKS), `opaque` (RFC 7662 introspection, also for JWTs), or `both` (JWTs verified, anything else introspected)."
        ),
        Field(
            "profile", default: ProviderDescriptor.AccessTokenSettings().profile,
            "`rfc9068` requires the JWT profile of RFC 9068: header `typ: at+jwt` and the claims `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti`; `plain` requires `iss`, `exp` and `aud`."
        ),
        Field(
            "signing_algs", .list(.choice(among: JWSAlgorithm.publicKey)),
            default: shown(ProviderDescriptor.AccessTokenSettings().signingAlgs),
            "The algorithms a JWT access token may be signed with. `none` and HMAC are never accepted: the keys are public."),
        Field(
            "audience", .string(),
            "The `aud` an access token must contain to be accepted, when the descriptor states it (may name `{variables}`); otherwise the API states its own."
        ),
        Field(
            "leeway", .integer(0...300), default: "\(ProviderDescriptor.AccessTokenSettings().leeway)",
            "Seconds of clock difference allowed when checking `exp`, `nbf` and `iat`."),
        Field(
            "introspection_cache", .integer(0...86_400), default: "\(ProviderDescriptor.AccessTokenSettings().introspectionCache)",
            "The longest time, in seconds, an active introspection answer is reused; never past the token's `exp`. 0 asks every time."),
        Field(
            "inactive_cache", .integer(0...300), default: "\(ProviderDescriptor.AccessTokenSettings().inactiveCache)",
            "How long, in seconds, an inactive (`active: false`) answer is reused."),
        Field(
            "introspected_audience", default: ProviderDescriptor.AccessTokenSettings().introspectedAudience,
            "Whether an introspection answer must name the API in `aud`: `required` refuses one that names no audience, since nothing then says the token is meant for this API; `may_be_absent` accepts it for a server whose introspection never names one, and the accepted principal says the audience went unchecked. An `aud` that is present must name the API either way."
        ),
    ]

    static let revocationDefaults = ProviderDescriptor.RevocationSettings()

    static let revocationFields: [Field] = [
        Field(
            "method", default: revocationDefaults.method,
            "The HTTP method (osu! revokes with `DELETE`; a `GET`, Oura's, carries the token in the query or as the Bearer token)."),
        Field(
            "placement", default: revocationDefaults.placement,
            "Where the token goes: `body`, form-encoded (RFC 7009 §2.1); `query`, the query string; `bearer`, the request's own `Authorization: Bearer` header, the token revoking itself."
        ),
        Field(
            "token_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: revocationDefaults.tokenParameter,
            "The parameter carrying the token with `body` or `query` (Yandex, LINE, Strava: `access_token`)."),
        Field("type_hint", .boolean, default: "\(revocationDefaults.typeHint)", "Whether `token_type_hint` is sent (RFC 7009 §2.1)."),
        Field(
            "type_hint_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: revocationDefaults.typeHintParameter,
            "The parameter carrying the hint (Kick: `token_hint_type`)."),
        Field(
            "client_authentication", .boolean, default: "\(revocationDefaults.clientAuthentication)",
            "Whether the client authenticates as at the token endpoint (RFC 7009 §2.1 requires it of a confidential client). A `bearer` request is authorized by its token."
        ),
        Field(
            "tokens", .list(.choice(of: ProviderDescriptor.RevocationSettings.Kind.self)),
            default: shown(revocationDefaults.tokens.map(\.rawValue)),
            "The kinds of token the provider revokes, in the order sign-out revokes them; a kind not listed is only forgotten (Roblox and NetSuite revoke refresh tokens only, which ends their access tokens)."
        ),
        Field(
            "extra_params", .map(.string()), default: shown(revocationDefaults.extraParams),
            "Fixed parameters added to the request (Naver: `grant_type: delete`, `service_provider: NAVER`)."),
        Field(
            "condition", .string(),
            "When the provider has a revocation endpoint only in some cases (a deployment's configuration) that the descriptor leaves to discovery, that case in a sentence; the catalog's Revocation column says `conditional` with the sentence as a footnote."
        ),
    ]

    static let logoutFields: [Field] = [
        Field(
            "style", default: ProviderDescriptor.LogoutSettings().style,
            "`rp_initiated`: OpenID Connect RP-Initiated Logout 1.0 at `endpoints.end_session` (or discovery's `end_session_endpoint`). `custom`: the provider's own logout URL in `endpoints.end_session`, with the parameter names below (Auth0 `/v2/logout`, Cognito `/logout`)."
        ),
        Field(
            "redirect_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: "post_logout_redirect_uri",
            "The parameter naming where the browser returns after the provider's logout (Auth0 `returnTo`, Cognito `logout_uri`)."),
        Field(
            "client_id_parameter", .string(pattern: "^[A-Za-z0-9_.-]*$"), default: "client_id",
            "The parameter carrying the client id; an empty string sends none."),
        Field(
            "id_token_hint", .boolean, default: "true for rp_initiated, false for custom",
            "Send the session's ID token as `id_token_hint`, so the provider knows whose session to end without asking."),
        Field(
            "returns_state", .boolean, default: "true for rp_initiated, false for custom",
            "Whether the provider sends `state` back to the post-logout redirect URI; when it does, a return without the state sent is refused."
        ),
        Field("extra_params", .map(.string()), default: "{}", "Fixed parameters added to the end-session request (Auth0 `federated`)."),
        Field(
            "backchannel_logout_supported", .boolean, default: "false",
            "Back-Channel Logout 1.0: the provider POSTs a signed logout token to the app when a user's session ends there."),
        Field(
            "backchannel_logout_session_supported", .boolean, default: "false",
            "The provider's ID tokens and logout tokens carry `sid`, so one session ends rather than all of the user's."),
        Field(
            "frontchannel_logout_supported", .boolean, default: "false",
            "Front-Channel Logout 1.0: the provider loads the app's front-channel logout URI in the user's browser."),
        Field(
            "frontchannel_logout_session_supported", .boolean, default: "false",
            "The front-channel request carries `iss` and `sid`; the app's route ends only the session they name, and requires them."),
        Field(
            "logout_token_max_age", .integer(10...3600), default: "\(ProviderDescriptor.LogoutSettings().logoutTokenMaxAge)",
            "How old, in seconds, a logout token (its `iat`) may be; older ones are refused, and replays are remembered that long."),
        Field(
            "condition", .string(),
            "When the provider has an end-session endpoint only in some cases (a host, a setting) that the descriptor leaves to discovery, that case in a sentence; the catalog's Logout column says `conditional` with the sentence as a footnote."
        ),
    ]

    static let tokenResponseFields: [Field] = [
        Field(
            "format", default: ProviderDescriptor.TokenResponse().format,
            "Body format of token responses; `auto` looks at the body itself, not only at Content-Type."),
        Field(
            "default_token_type", .choice(["Bearer"]),
            "The `token_type` to assume when a token answer has none (RFC 6749 §5.1 requires one; Shopify, Atlassian and WorkOS leave it out). Without it such an answer is refused."
        ),
        Field(
            "scope_separator", .choice([",", " "]), default: "as scopes.separator",
            "What stands between the granted scopes in an answer's `scope`, when the provider answers otherwise than it is asked (GitHub and LinkedIn answer `email,openid,profile`). The answer is split on it and on spaces (RFC 6749 §3.3), so the granted scopes, and the resources they open, are read one by one."
        ),
        Field(
            "zero_expires_in", default: ProviderDescriptor.TokenResponse().zeroExpiresIn,
            "What `expires_in: 0` means: `spent` (RFC 6749 §5.1, a lifetime of 0 seconds: the token serves the request at hand and is never cached or reused), or `no_expiry` for a provider that documents 0 as a token that does not expire (Mailchimp)."
        ),
    ]

    static let userinfoDefaults = ProviderDescriptor.Userinfo()

    static let userinfoFields: [Field] = [
        Field("method", default: userinfoDefaults.method, "HTTP method for the userinfo call (Dropbox and Linear: `POST`)."),
        Field(
            "headers", .map(.string()), default: shown(userinfoDefaults.headers),
            "Extra HTTP headers, on the extra call too (GitHub needs a `User-Agent`). A value may name `{client_id}` (Trakt's `trakt-api-key`), the descriptor's `{variables}` and `{token.…}`, a field of the token endpoint's answer written as a profile path."
        ),
        Field(
            "placement", default: userinfoDefaults.placement,
            "Where the access token goes: `header`, the `Authorization` header after `scheme` (RFC 6750 §2.1); `query`, the query string (RFC 6750 §2.3 advises against it: URLs end up in logs; lint warns); `body`, a form-encoded `POST` body (RFC 6750 §2.2). A DPoP-bound token always goes in the header."
        ),
        Field(
            "scheme", .string(pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]*$"), default: userinfoDefaults.scheme,
            "The word before the token in the `Authorization` header (Zoho: `Zoho-oauthtoken`); empty sends the token alone (ClickUp)."),
        Field(
            "token_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: userinfoDefaults.tokenParameter,
            "The parameter carrying the token with `query` or `body`."),
        Field(
            "query", .map(.string()), default: shown(userinfoDefaults.query),
            "Extra query parameters, with the placeholders `headers` takes (WeChat: `openid: '{token.openid}'`)."),
        Field(
            "form", .map(.string()), default: shown(userinfoDefaults.form),
            "Fields of a form-encoded `POST` body, with the placeholders `headers` takes (VK ID: `client_id: '{client_id}'`); with `placement: body` the token joins them."
        ),
        Field(
            "body", .string(),
            "A fixed request body for a `POST`, sent as written, braces included (Linear's GraphQL query); not with `placement: body`."),
        Field("content_type", .string(pattern: "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$"), "The body's media type (`application/json`)."),
    ]

    static let securityFields: [Field] = [
        Field(
            "pkce", default: securityDefaults.pkce,
            "Whether the server requires, accepts or ignores PKCE (RFC 7636). The engine always sends it unless `unsupported`. When the provider's pages do not mention PKCE, `supported` is the safe reading: a server that does not know the parameters ignores them (RFC 6749 §3.1)."
        ),
        Field(
            "pkce_method", default: securityDefaults.pkceMethod,
            "Code challenge method. Only `S256` is acceptable (RFC 9700 §2.1.1); resolving a provider with `plain` fails (`unsupported_policy`)."),
        Field(
            "state", .boolean, default: "\(securityDefaults.state)",
            "Read by lint only: `false` is allowed only when PKCE is required (rule `state_without_pkce`); the engine always sends and checks `state`."
        ),
        Field(
            "nonce", .boolean, default: "true for oidc, false for oauth2",
            "Send `nonce` and check it in the ID token. An `oidc` provider keeps it on: resolving one with `false` fails, as its ID tokens would go unchecked for replay (see `nonce_echoed`)."
        ),
        Field(
            "nonce_echoed", .boolean, default: "true",
            "Whether the provider's ID tokens carry the `nonce` sent (OpenID Connect Core §3.1.3.7). `false` is for a provider whose ID tokens never do (LinkedIn): the nonce is still sent and checked in a token that carries one, and a token without it is accepted after every other check (signature, `iss`, `aud`, `exp`); nothing but `state`, and PKCE where sent, then ties it to this sign-in. Only with `protocol: oidc` and `nonce: true` (lint rule `oidc_nonce`)."
        ),
        Field(
            "iss_parameter", default: securityDefaults.issParameter,
            "RFC 9207: whether the callback must carry `iss`, may carry it, or never does. A present `iss` must equal the issuer; `if_present` becomes `required` once the server's metadata says `authorization_response_iss_parameter_supported` (RFC 9207 §2.4)."
        ),
        Field(
            "id_token_algs",
            .list(.choice(of: JWSAlgorithm.self)),
            default: shown(securityDefaults.idTokenAlgs),
            "ID token signature algorithms accepted. `none` is never accepted; HMAC (HS256) only when listed, verified with the client secret; `EdDSA` (RFC 8037) only when listed, verified with the JWKS's Ed25519 keys (`kty: OKP`; an Ed448 key is refused)."
        ),
        Field(
            "issuer_aliases", .list(.string()),
            "Other exact spellings of the issuer the provider uses in ID tokens, callbacks and its discovery document (Google: `accounts.google.com`)."
        ),
        Field(
            "id_token_issuer", .string(pattern: "^https://[^{}\\s]*(\\{[a-z_]+\\}[^{}\\s]*)+$"),
            "For multi-tenant providers: the ID token's `iss` as a template whose `{claim}` placeholders are filled from the token's own claims (Entra: `https://login.microsoftonline.com/{tid}/v2.0`). The token's `iss` must equal it exactly."
        ),
        Field(
            "dpop", default: securityDefaults.dpop,
            "DPoP (RFC 9449): bind access and refresh tokens to a key pair made for each session, with a signed proof on every request. `if_supported` uses it when discovery lists `dpop_signing_alg_values_supported`; `required` always does. git and kubectl cannot send proofs, so the credential helpers refuse DPoP-bound sessions."
        ),
        Field(
            "dpop_signing_alg_values_supported", .list(.choice(among: JWSAlgorithm.dpopKey)), default: shown(securityDefaults.dpopSigningAlgs),
            "The algorithms of the session's DPoP key, in order of preference; the first the server lists in discovery is used."),
        Field(
            "dpop_bearer_answer", default: securityDefaults.dpopBearerAnswer,
            "When DPoP was used but the token endpoint answers `token_type: Bearer` (it did not bind the tokens): `refuse` fails the sign-in or refresh; `accept` keeps them as Bearer tokens."
        ),
        Field(
            "tls_client_certificate_bound_access_tokens", .boolean, default: "false",
            "The provider binds access tokens to the client certificate the token request presents (RFC 8705 §3), whichever way the client authenticates: every token request presents the client's certificate (at the token endpoint's `mtls_endpoint_aliases` entry), even with `private_key_jwt`, and the tokens then go only with it. The client configuration must hold the certificate (`certificate_file`, `tlsIdentity`). Under `security.profile: fapi2` it stands for DPoP as the sender constraint."
        ),
        Field(
            "profile", .choice(of: ProviderDescriptor.SecurityProfile.self),
            "A security profile the provider is held to (Docs/pushed-and-dpop.md#fapi-20): `fapi2`, the FAPI 2.0 Security Profile: pushed requests, PKCE S256, `iss` required, `private_key_jwt` or mutual-TLS client authentication, DPoP- or certificate-bound tokens, PS256, ES256 or EdDSA, endpoints only from the issuer's metadata. Resolving refuses a descriptor that contradicts it (lint rule `fapi2_profile`); the engine refuses a server whose metadata or answers do."
        ),
    ]

    static let deviceFields: [Field] = [
        Field(
            "interval", .integer(1...60), default: "\(ProviderDescriptor.Device().interval)",
            "Seconds between polls when the server states no `interval` (RFC 8628 §3.2)."),
        Field(
            "verification_uri_aliases", .list(.string(pattern: "^[a-z_]+$")),
            "Other names the provider gives `verification_uri` in its answer (Google: `verification_url`)."),
        Field(
            "scope_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"), default: ProviderDescriptor.Device().scopeParameter,
            "The parameter carrying the scopes in the device authorization request (Twitch: `scopes`); `scopes.parameter` says when it is sent."
        ),
        Field(
            "extra_params", .map(.string()), default: shown(ProviderDescriptor.Device().extraParams),
            "Fixed parameters added to the device authorization request (Amazon and Salesforce: `response_type: device_code`). Client authentication and the scope parameter are refused."
        ),
        Field(
            "grant_type", .string(), default: ProviderDescriptor.Device().grantType,
            "The `grant_type` of each poll of the token endpoint (Amazon: `device_code`, Salesforce: `device`)."),
        Field(
            "poll_params", .map(.choice(of: ProviderDescriptor.Device.PollSource.self)),
            default: shown(ProviderDescriptor.Device().pollParams.mapValues(\.rawValue)),
            "What each poll sends besides `grant_type` and client authentication: parameter name to value, `device_code` and `user_code` from the device authorization answer, or `scope`, the scopes asked for (Trakt and Salesforce: `{code: device_code}`; Amazon adds `user_code: user_code`; Twitch adds `scopes: scope`). One must send the device code."
        ),
    ]

    static let loopbackFields: [Field] = [
        Field(
            "host", .string(), default: loopbackDefaults.host,
            "Loopback host of the redirect URI: `127.0.0.1`, `[::1]` or (not recommended) `localhost`, which is bound and written as `127.0.0.1` (RFC 8252 §8.3) unless `write_localhost` says otherwise: register `http://127.0.0.1:PORT/PATH` at the provider."
        ),
        Field(
            "write_localhost", .boolean, default: "false",
            "With `host: localhost`, the redirect URI keeps the name: `http://localhost:PORT/PATH`, for providers that accept no loopback IP literal (Amazon Cognito). The listener then binds 127.0.0.1 and ::1 on the same port (127.0.0.1 alone where the machine has no IPv6 loopback), so the callback arrives whichever address the browser resolves `localhost` to. RFC 8252 §8.3 advises against the name: a resolver or hosts file can send it elsewhere, so lint notes it."
        ),
        Field(
            "port", .either([.integer(1...65535), .choice(["ephemeral"])]), default: "ephemeral",
            "A fixed port, or `ephemeral` for a free port chosen at login time (RFC 8252 §7.3); `authorize-url`, which has no listener, writes an ephemeral port as 8765 unless given `--port`."
        ),
        Field("path", .string(pattern: "^/[^?#\\s]*$"), default: loopbackDefaults.path, "Path of the redirect URI."),
    ]

    static let redirectFields: [Field] = [
        Field("loopback", .object(loopbackFields), "The loopback redirect used by the CLI (RFC 8252 §7.3)."),
        Field(
            "private_use_scheme", .string(),
            "The private-use URI scheme of an app's redirect URI (RFC 8252 §7.1): a reverse domain name with a period, such as `com.example.app`. It may name the descriptor's `{variables}` and what the app's sign-in fills in: `{client_id}`, `{reversed_client_id}` (the client id's labels in reverse order, Google's iOS clients) and `{bundle_id}` (the app's bundle identifier). An app sign-in builds `SCHEME:/oauth2redirect` from it (one slash), and refuses a redirect URI the host gives with another scheme than this one or the bundle identifier (Docs/apple.md)."
        ),
        Field(
            "private_use_uri", .string(),
            "The whole private-use redirect URI, when the provider documents another form than `SCHEME:/oauth2redirect` (Auth0: `{bundle_id}://{domain}/ios/{bundle_id}/callback`). It begins with `private_use_scheme` and `:`, names the same placeholders, and has no query or fragment."
        ),
        Field(
            "claimed_https", .string(),
            "An app's claimed https redirect URI (RFC 8252 §7.2: a universal link the app's associated domains claim), such as Auth0's `https://{domain}/ios/{bundle_id}/callback`: https, a host and a path, no query or fragment; the same placeholders as `private_use_scheme`. An app sign-in uses it when asked (iOS 17.4 and macOS 14.4 or later), and refuses another https redirect URI the host gives."
        ),
        Field(
            "web_only", .boolean, default: "false",
            "The provider takes only https redirect URIs on a domain registered with it (Sign in with Apple refuses loopback and localhost): sign in through the web routes (Docs/web.md); the CLI and `LoopbackSignIn` refuse such a provider before opening a browser."
        ),
    ]

    static let resourceFields: [Field] = [
        Field("scope", .string(), required: true, "Scope that grants access to the resource."),
        Field("title", .string(), required: true, "Human-readable name of the resource."),
        Field("url", .urlTemplate, required: true, "Resource URL; may use `{variables}`."),
    ]
}

extension DescriptorSchema.Shape {
    /// The shape's name as it reads in an error message.
    var phrase: String {
        switch self {
        case .string: "a string"
        case .urlTemplate: "a URL"
        case .boolean: "true or false"
        case let .integer(range): range.count == 1 ? "the integer \(range.lowerBound)" : "an integer from \(range.lowerBound) to \(range.upperBound)"
        case let .choice(values): "one of " + values.map { "`\($0)`" }.joined(separator: ", ")
        case .list: "a list"
        case .map, .object: "a mapping"
        case let .either(shapes): shapes.map(\.phrase).joined(separator: " or ")
        }
    }
}

/// A name's length and its first 24 UTF-8 bytes in three words, kept in each field: a probe whose
/// length differs, or whose first bytes do (``begins(_:)``), is not the name; only a name longer
/// than 24 bytes (longer than any field's name but a few) is compared whole.
struct NameKey: Sendable {
    static let width = 24
    let length: Int
    let words: (UInt64, UInt64, UInt64)

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(Self.width)))) }
        self.length = bytes.count
        self.words = words
    }

    init(_ name: String) {
        var name = name
        self = name.withUTF8 { NameKey($0) }
    }

    /// Whether the name's first bytes (up to ``width``) are those of `bytes`.
    func begins(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        var words = words
        return withUnsafeBytes(of: &words) { words in
            guard let first = words.baseAddress else { return false }
            return memcmp(first, start, min(bytes.count, Self.width)) == 0
        }
    }
}
