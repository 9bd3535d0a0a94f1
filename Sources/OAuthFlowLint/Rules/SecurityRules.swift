import OAuthFlow

/// RFC 9700 §2.1.2 and §2.4: authorization code only. The resolver refuses another response type and a grant it
/// does not run (naming RFC 9700's reason, or the grant meant); this rule reports its refusals.
struct AuthorizationCodeOnlyRule: LintRule {
    static let description = RuleDescription(
        identifier: "authorization_code_only", name: "Authorization code only",
        summary: "The response type must be `code`, and the implicit and password grants must not be used (RFC 9700 §2.1.2, §2.4).",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  response_type: token\n",
            Examples.valid + "grant_types: [authorization_code, password]\n",
        ],
        nonTriggering: [Examples.valid + "grant_types: [authorization_code, refresh_token]\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        refusals(file, at: ["authorization", "response_type"]) + refusals(file, at: ["grant_types"], items: true)
    }
}

/// RFC 9700 §2.1.1: public clients must use PKCE. The engine sends it whenever the provider takes it (`required` or
/// `supported`), so only a provider that ignores it leaves a public client without.
struct PKCEForPublicClientsRule: LintRule {
    static let description = RuleDescription(
        identifier: "pkce_for_public_clients", name: "PKCE for public clients",
        summary:
            "A public client (`client_auth` with `none`) must use PKCE (RFC 9700 §2.1.1): `security.pkce` may be `required` or `supported` (the engine sends PKCE for both), not `unsupported`.",
        severity: .error,
        triggering: [Examples.valid + "client_auth:\n  method: none\nsecurity:\n  pkce: unsupported\n"],
        nonTriggering: [
            Examples.valid + "client_auth:\n  method: none\nsecurity:\n  pkce: required\n",
            Examples.valid + "client_auth:\n  method: none\nsecurity:\n  pkce: supported\n",
            Examples.valid + "client_auth:\n  method: client_secret_basic\nsecurity:\n  pkce: unsupported\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        // The PKCE setting first: most descriptors leave it on, and the list of methods is made for each asking.
        guard let descriptor = file.descriptor, descriptor.security.pkce == .unsupported, descriptor.clientAuth.supported.contains(.none) else {
            return []
        }
        return [
            diagnostic(
                file, ["security", "pkce"],
                "a public client (client_auth `none`) must use PKCE, which the engine does not send when `security.pkce` is `unsupported`; a provider that takes no PKCE needs a confidential client"
            )
        ]
    }
}

/// RFC 9700 §2.1.1: S256 is the only acceptable method; the resolver refuses `plain`, and this rule reports it.
struct PKCEMethodS256Rule: LintRule {
    static let description = RuleDescription(
        identifier: "pkce_s256", name: "PKCE S256",
        summary: "The PKCE method must be `S256`; `plain` exposes the verifier to anyone who sees the authorization request (RFC 9700 §2.1.1).",
        severity: .error,
        triggering: [Examples.valid + "security:\n  pkce_method: plain\n"],
        nonTriggering: [Examples.valid + "security:\n  pkce_method: S256\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        refusals(file, at: ["security", "pkce_method"])
    }
}

/// RFC 9700 §2.1: without PKCE, state is the CSRF defence.
struct StateWithoutPKCERule: LintRule {
    static let description = RuleDescription(
        identifier: "state_without_pkce", name: "State without PKCE",
        summary: "`security.state` may be off only when PKCE is required, since otherwise nothing defends the callback against CSRF (RFC 9700 §2.1).",
        severity: .error,
        triggering: [Examples.valid + "client_auth:\n  method: client_secret_post\nsecurity:\n  pkce: supported\n  state: false\n"],
        nonTriggering: [Examples.valid + "security:\n  pkce: required\n  state: false\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let security = file.descriptor?.security, !security.state, security.pkce != .required else { return [] }
        return [diagnostic(file, ["security", "state"], "state is off while PKCE is not required; nothing would stop CSRF on the callback")]
    }
}

/// OpenID Connect needs the `openid` scope.
struct OIDCOpenIDScopeRule: LintRule {
    static let description = RuleDescription(
        identifier: "oidc_openid_scope", name: "OIDC openid scope",
        summary:
            "A `protocol: oidc` descriptor must request the `openid` scope by default, or the server answers as plain OAuth and sends no ID token.",
        severity: .error,
        triggering: [Examples.oidcHeader + Examples.endpoints + "scopes:\n  default: [email]\n"],
        nonTriggering: [Examples.validOIDC])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, descriptor.protocol == .oidc, !descriptor.scopes.default.contains("openid") else {
            return []
        }
        return [diagnostic(file, ["scopes", "default"], "an `oidc` provider must request the `openid` scope")]
    }
}

/// OpenID Connect logins check a nonce (OpenID Connect Core §3.1.3.7). The resolver refuses `nonce: false` for an `oidc`
/// provider, and `nonce_echoed: false` where it says nothing (outside OpenID Connect, or with the nonce off); this rule
/// reports its refusals.
struct OIDCNonceRule: LintRule {
    static let description = RuleDescription(
        identifier: "oidc_nonce", name: "OIDC nonce",
        summary:
            "A `protocol: oidc` descriptor must keep `security.nonce` on, the ID token's defence against replay and code injection; a provider whose ID tokens never carry it says so with `nonce_echoed: false`, which needs `protocol: oidc` and `nonce: true`.",
        severity: .error,
        triggering: [
            Examples.validOIDC + "security:\n  nonce: false\n",
            Examples.valid + "security:\n  nonce_echoed: false\n",
            Examples.validOIDC + "security:\n  nonce: false\n  nonce_echoed: false\n",
        ],
        nonTriggering: [
            Examples.validOIDC + "security:\n  nonce: true\n",
            Examples.validOIDC + "client_auth:\n  method: client_secret_post\nsecurity:\n  pkce: unsupported\n  nonce_echoed: false\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        refusals(file, at: ["security", "nonce"]) + refusals(file, at: ["security", "nonce_echoed"])
    }
}

/// Issuer aliases and ID token issuer templates must be usable and not widen what is accepted by mistake.
struct IssuerValidationRule: LintRule {
    static let description = RuleDescription(
        identifier: "issuer_validation", name: "Issuer validation",
        summary:
            "`security.id_token_issuer` is for OpenID Connect providers with an issuer, its `{placeholders}` name ID token claims (not variables), it comes with the `security.multi_tenant_values` it applies with (values of a variable of the issuer), and `security.issuer_aliases` differ from the issuer.",
        severity: .error,
        triggering: [
            Examples.valid + "security:\n  id_token_issuer: https://auth.example.com/{tid}/v2.0\n",
            Examples.validOIDC
                + "variables:\n  tenant:\n    description: Tenant\n    default: common\nsecurity:\n  id_token_issuer: https://auth.example.com/{tenant}/v2.0\n",
            Examples.validOIDC + "security:\n  issuer_aliases: [https://auth.example.com]\n",
            Examples.validOIDC + "security:\n  id_token_issuer: https://auth.example.com/{tid}/v2.0\n",
            Examples.validOIDC + "security:\n  multi_tenant_values: [common]\n",
            Examples.validOIDC + "security:\n  id_token_issuer: https://auth.example.com/{tid}/v2.0\n  multi_tenant_values: [common]\n",
        ],
        nonTriggering: [
            Examples.oidcHeader + "issuer: https://auth.example.com/{tenant}\nvariables:\n  tenant:\n    description: Tenant\n    default: common\n"
                + "endpoints:\n  authorization: https://auth.example.com/{tenant}/authorize\n  token: https://auth.example.com/{tenant}/token\n"
                + "scopes:\n  default: [openid, email]\nsecurity:\n  id_token_issuer: https://auth.example.com/{tid}/v2.0\n  multi_tenant_values: [common]\n",
            Examples.validOIDC + "security:\n  issuer_aliases: [auth.example.com]\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics: [Diagnostic] = []
        if let template = descriptor.security.idTokenIssuer {
            if descriptor.protocol != .oidc || descriptor.issuer == nil {
                diagnostics.append(
                    diagnostic(
                        file, ["security", "id_token_issuer"],
                        "`id_token_issuer` applies to ID tokens: it needs `protocol: oidc` and an `issuer`"))
            }
            for placeholder in URLTemplate(template).placeholders where descriptor.variables[placeholder.name] != nil {
                diagnostics.append(
                    diagnostic(
                        file, ["security", "id_token_issuer"],
                        "`{\(placeholder.name)}` in `id_token_issuer` is filled from the ID token's `\(placeholder.name)` claim, not from the variable of that name; write the variable's part out or use the claim that carries it (Entra: `{tid}`)"
                    ))
            }
        }
        // The resolver's refusals: a template that could never apply, values with no template or no issuer variable.
        diagnostics += refusals(file, at: ["security", "id_token_issuer"]) + refusals(file, at: ["security", "multi_tenant_values"])
        for (index, alias) in descriptor.security.issuerAliases.enumerated() where alias == descriptor.issuer {
            diagnostics.append(diagnostic(file, ["security", "issuer_aliases", "\(index)"], "alias `\(alias)` is the issuer itself"))
        }
        return diagnostics
    }
}

/// Client authentication as the engine will run it: the single `method` among `methods`, assertion settings
/// only with an assertion method, and `service_tokens` only with the client credentials grant.
struct ClientAuthConsistencyRule: LintRule {
    static let description = RuleDescription(
        identifier: "client_auth_consistency", name: "Client authentication is consistent",
        summary:
            "`client_auth.method` must be one of `client_auth.methods`; `assertion_audience` and `assertion_algs` need `client_secret_jwt` or `private_key_jwt`; an HS256-only `assertion_algs` needs `client_secret_jwt`; `service_tokens` needs the `client_credentials` grant; a callback signature, checked with the client secret, needs a secret method.",
        severity: .error,
        triggering: [
            Examples.valid + "client_auth:\n  method: client_secret_post\n  methods: [client_secret_basic, private_key_jwt]\n",
            Examples.valid + "client_auth:\n  methods: [client_secret_basic]\n  assertion_audience: token_endpoint\n",
            Examples.valid + "grant_types: [authorization_code]\nservice_tokens:\n  target: audience\n",
            Examples.valid + "client_auth:\n  methods: [none]\nauthorization:\n  callback_signature:\n    parameter: hmac\n",
        ],
        nonTriggering: [
            Examples.valid + "client_auth:\n  methods: [private_key_jwt, client_secret_basic]\n  assertion_audience: token_endpoint\n",
            Examples.valid + "grant_types: [client_credentials]\nclient_auth:\n  method: client_secret_basic\nservice_tokens:\n  target: audience\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        let auth = descriptor.clientAuth
        var diagnostics: [Diagnostic] = []
        // The file's `client_auth` mapping found once, and its keys looked up in it.
        let section = file.document.node(at: ["client_auth"])
        if let methods = auth.methods, section?["method"] != nil, !methods.contains(auth.method) {
            diagnostics.append(
                diagnostic(
                    file, ["client_auth", "method"],
                    "`client_auth.method` is `\(auth.method.rawValue)`, which `client_auth.methods` does not list; add it there or drop `method`"))
        }
        let supported = auth.supported
        let noAssertionMethod = !supported.contains(where: \.usesAssertion)
        for key in ["assertion_audience", "assertion_algs"] where noAssertionMethod && section?[key] != nil {
            diagnostics.append(
                diagnostic(
                    file, ["client_auth", key],
                    "`client_auth.\(key)` applies to client assertions, but `client_auth` lists neither client_secret_jwt nor private_key_jwt"))
        }
        if let algs = auth.assertionAlgs, !algs.isEmpty {
            if supported.contains(.privateKeyJWT), !algs.contains(where: { $0 != "HS256" }) {
                diagnostics.append(
                    diagnostic(
                        file, ["client_auth", "assertion_algs"],
                        "`private_key_jwt` is listed but `assertion_algs` allows no private-key algorithm (RS256, PS256, ES256, EdDSA)"))
            }
            if supported.contains(.clientSecretJWT), !algs.contains("HS256") {
                diagnostics.append(
                    diagnostic(
                        file, ["client_auth", "assertion_algs"], "`client_secret_jwt` is listed but `assertion_algs` leaves out HS256, its algorithm")
                )
            }
        }
        // The grant types first: a look-up in the file's top mapping costs more than the list's few comparisons.
        if !descriptor.grantTypes.contains(GrantType.clientCredentials.rawValue), file.document.node(at: ["service_tokens"]) != nil {
            diagnostics.append(
                diagnostic(
                    file, ["service_tokens"],
                    "`service_tokens` says how client-credentials requests name their API, but `grant_types` does not declare `client_credentials`"))
        }
        return diagnostics + refusals(file, at: ["authorization", "callback_signature"])
    }
}

/// RFC 9126 and RFC 9449 settings that cannot work as written.
struct PushedAndDPoPRule: LintRule {
    static let description = RuleDescription(
        identifier: "pushed_and_dpop", name: "Pushed requests and DPoP",
        summary:
            "`authorization.pushed: always` needs a pushed authorization request endpoint (`endpoints.pushed_authorization`, or discovery); `security.dpop` other than `never` needs at least one algorithm; `dpop_bearer_answer` and `dpop_signing_alg_values_supported` do nothing with `dpop: never` (a warning).",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  pushed: always\n",
            Examples.valid + "security:\n  dpop: required\n  dpop_signing_alg_values_supported: []\n",
            Examples.valid + "security:\n  dpop_bearer_answer: accept\n",
        ],
        nonTriggering: [
            Examples.valid + "authorization:\n  pushed: always\ndiscovery:\n  mode: oidc\n",
            Examples.valid + "security:\n  dpop: required\n  dpop_bearer_answer: accept\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics: [Diagnostic] = []
        let discovers = descriptor.asksForDiscovery
        if descriptor.authorization.pushed == .always, descriptor.endpoints.pushedAuthorization == nil, !discovers {
            diagnostics.append(
                diagnostic(
                    file, ["authorization", "pushed"],
                    "`pushed: always`, but there is no pushed authorization request endpoint: set `endpoints.pushed_authorization` or use discovery"))
        }
        // DPoP on with no algorithm for its keys: the resolver's refusal.
        diagnostics += refusals(file, at: ["security", "dpop_signing_alg_values_supported"])
        // The file's `security` mapping found once, and its keys looked up in it: most files have no such key.
        if descriptor.security.dpop == .never, let security = file.document.node(at: ["security"]) {
            for key in ["dpop_bearer_answer", "dpop_signing_alg_values_supported"] where security[key] != nil {
                diagnostics.append(
                    diagnostic(
                        file, ["security", key], "`\(key)` has no effect while `security.dpop` is `never` (its default)", atKey: true,
                        severity: .warning))
            }
        }
        return diagnostics
    }
}

/// `access_tokens` settings with which an API could never accept a token.
struct AccessTokenRule: LintRule {
    static let description = RuleDescription(
        identifier: "access_tokens", name: "Access tokens an API can check",
        summary:
            "JWT access tokens (`access_tokens.format: jwt` or `both`) need an `issuer` to match `iss` against and a JWKS (`endpoints.jwks`, or discovery); introspected ones (`opaque` or `both`) need an introspection endpoint (`endpoints.introspection`, or discovery); `signing_algs` must not be empty when JWTs are accepted.",
        severity: .error,
        triggering: [
            Examples.valid + "access_tokens:\n  format: opaque\n",
            Examples.header + "endpoints:\n  jwks: https://auth.example.com/jwks\naccess_tokens:\n  format: jwt\n",
            Examples.valid + "discovery:\n  mode: oidc\naccess_tokens:\n  signing_algs: []\n",
        ],
        nonTriggering: [
            Examples.valid + "discovery:\n  mode: oidc\naccess_tokens:\n  format: both\n  profile: rfc9068\n",
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  jwks: https://auth.example.com/jwks\n  introspection: https://auth.example.com/introspect\naccess_tokens:\n  format: both\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, file.document.node(at: ["access_tokens"]) != nil else { return [] }
        var diagnostics: [Diagnostic] = []
        let settings = descriptor.accessTokens
        let discovers = descriptor.asksForDiscovery
        let format = ["access_tokens", "format"]
        if settings.format != .opaque {
            if descriptor.issuer == nil {
                diagnostics.append(
                    diagnostic(
                        file, ["access_tokens"], "JWT access tokens are matched to the provider by `iss`, and the descriptor declares no `issuer`",
                        atKey: true))
            }
            if descriptor.endpoints.jwks == nil, !discovers {
                diagnostics.append(
                    diagnostic(file, format, "JWT access tokens are verified with the provider's JWKS: set `endpoints.jwks` or use discovery"))
            }
        }
        // No algorithm for JWTs: the resolver's refusal.
        diagnostics += refusals(file, at: ["access_tokens", "signing_algs"])
        if settings.format != .jwt, descriptor.endpoints.introspection == nil, !discovers {
            diagnostics.append(
                diagnostic(
                    file, format,
                    "`\(settings.format.rawValue)` access tokens are introspected (RFC 7662): set `endpoints.introspection` or use discovery"))
        }
        return diagnostics
    }
}

/// `logout` settings that cannot work: a custom logout URL that is not given, a session flag without its
/// channel, logout tokens from a provider that issues no ID tokens.
struct LogoutRule: LintRule {
    static let description = RuleDescription(
        identifier: "logout", name: "Logout the provider can do",
        summary:
            "`logout.style: custom` needs the provider's logout URL in `endpoints.end_session` and should name its `redirect_parameter`; `extra_params` may not set what the engine sends; `*_session_supported` needs its channel's `*_supported`; back-channel and front-channel logout name OpenID Connect sessions, so they need `protocol: oidc` and the provider's keys (`endpoints.jwks` or discovery). Warnings: end-session settings without an end-session endpoint (descriptor or discovery) do nothing; `rp_initiated` with `returns_state: false` or another `redirect_parameter`; `id_token_hint` on a plain OAuth 2.0 provider.",
        severity: .error,
        triggering: [
            Examples.valid + "logout:\n  style: custom\n  redirect_parameter: returnTo\n",
            Examples.oidcHeader + Examples.endpoints + "logout:\n  backchannel_logout_session_supported: true\n",
            Examples.valid + "logout:\n  backchannel_logout_supported: true\n",
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n  end_session: https://auth.example.com/logout\nlogout:\n  extra_params:\n    state: fixed\n",
        ],
        nonTriggering: [
            Examples.oidcHeader + Examples.endpoints
                + "  end_session: https://auth.example.com/logout\n  jwks: https://auth.example.com/jwks\nscopes:\n  default: [openid]\nlogout:\n  backchannel_logout_supported: true\n  backchannel_logout_session_supported: true\n",
            Examples.header
                + "issuer: https://auth.example.com\nendpoints:\n  authorization: https://auth.example.com/authorize\n  token: https://auth.example.com/token\n  end_session: https://auth.example.com/v2/logout\nlogout:\n  style: custom\n  redirect_parameter: returnTo\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, file.document.node(at: ["logout"]) != nil else { return [] }
        let logout = descriptor.logout
        var diagnostics: [Diagnostic] = []
        let hasEndpoint = descriptor.endpoints.endSession != nil
        // A custom logout without its URL, and extra parameters the engine sets: the resolver's refusals.
        diagnostics += refusals(file, at: ["logout", "style"]) + refusals(file, at: ["logout", "extra_params"], items: true, atKey: true)
        if logout.style == .custom {
            if logout.redirectParameter == nil {
                diagnostics.append(
                    diagnostic(
                        file, ["logout", "style"],
                        "a `custom` logout URL names its return address its own way (Auth0 `returnTo`, Cognito `logout_uri`): set `logout.redirect_parameter`",
                        severity: .warning))
            }
        } else if !hasEndpoint, !descriptor.asksForDiscovery,
            logout.redirectParameter != nil || logout.clientIDParameter != nil || logout.idTokenHint != nil || logout.returnsState != nil
                || !logout.extraParams.isEmpty
        {
            diagnostics.append(
                diagnostic(
                    file, ["logout"],
                    "the end-session settings do nothing: the provider has no end-session endpoint (set `endpoints.end_session` or use discovery)",
                    atKey: true, severity: .warning))
        }
        if logout.style == .rpInitiated {
            if logout.returnsState == false {
                diagnostics.append(
                    diagnostic(
                        file, ["logout", "returns_state"],
                        "RP-Initiated Logout returns the `state` it is sent; `returns_state: false` turns off the check that the return is this sign-out's",
                        severity: .warning))
            }
            if let name = logout.redirectParameter, name != "post_logout_redirect_uri" {
                diagnostics.append(
                    diagnostic(
                        file, ["logout", "redirect_parameter"],
                        "RP-Initiated Logout names the return address `post_logout_redirect_uri`; a provider that names it `\(name)` has a logout URL of its own: `style: custom`",
                        severity: .warning))
            }
        }
        if logout.idTokenHint == true, descriptor.protocol != .oidc {
            diagnostics.append(
                diagnostic(
                    file, ["logout", "id_token_hint"], "a plain OAuth 2.0 provider issues no ID token to send as `id_token_hint`", severity: .warning)
            )
        }
        if logout.backchannelLogoutSupported, descriptor.endpoints.jwks == nil, !descriptor.asksForDiscovery {
            diagnostics.append(
                diagnostic(
                    file, ["logout", "backchannel_logout_supported"],
                    "logout tokens are verified with the provider's keys: set `endpoints.jwks` or use discovery"))
        }
        let channels: [(String, Bool, Bool)] = [
            ("backchannel", logout.backchannelLogoutSupported, logout.backchannelLogoutSessionSupported),
            ("frontchannel", logout.frontchannelLogoutSupported, logout.frontchannelLogoutSessionSupported),
        ]
        for (channel, supported, sessions) in channels {
            if sessions, !supported {
                diagnostics.append(
                    diagnostic(
                        file, ["logout", "\(channel)_logout_session_supported"],
                        "`\(channel)_logout_session_supported` is true but `\(channel)_logout_supported` is not: the provider sends no \(channel) logout at all"
                    ))
            }
            if supported || sessions, descriptor.protocol != .oidc {
                diagnostics.append(
                    diagnostic(
                        file, ["logout", supported ? "\(channel)_logout_supported" : "\(channel)_logout_session_supported"],
                        "\(channel) logout names OpenID Connect sessions (the ID token's `sub` and `sid`): it needs `protocol: oidc`"))
            }
        }
        return diagnostics
    }
}

/// `redirect.web_only` providers (Sign in with Apple) have no loopback redirect, and a form_post answer needs
/// a web route to POST to.
struct WebOnlyRedirectRule: LintRule {
    static let description = RuleDescription(
        identifier: "web_only_redirect", name: "Web redirects only",
        summary:
            "A provider that takes only https web redirect URIs (`redirect.web_only: true`, Sign in with Apple) has no loopback redirect: `redirect.loopback` would never be used. A web-only provider offers no device flow either unless it declares the grant.",
        severity: .error,
        triggering: [
            Examples.valid + "redirect:\n  web_only: true\n  loopback:\n    path: /callback\n"
        ],
        nonTriggering: [
            Examples.valid + "authorization:\n  response_mode: form_post\nredirect:\n  web_only: true\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, descriptor.redirect.webOnly, file.document.node(at: ["redirect", "loopback"]) != nil else {
            return []
        }
        return [
            diagnostic(
                file, ["redirect", "loopback"],
                "`redirect.web_only` is true: the provider takes no loopback redirect, so these settings would never be used", atKey: true)
        ]
    }
}

/// `client_auth.generated_secret` is sent as a client secret, signed with a key the clients file names.
struct GeneratedSecretRule: LintRule {
    static let description = RuleDescription(
        identifier: "generated_secret", name: "A client secret the client signs",
        summary:
            "`client_auth.generated_secret` is sent as the client secret, so the provider's methods must include `client_secret_post` or `client_secret_basic`; its `issuer` and `audience` may name only declared variables and `{client_id}`.",
        severity: .error,
        triggering: [
            Examples.valid + "client_auth:\n  method: none\n  generated_secret:\n    issuer: team\n    audience: https://auth.example.com\n",
            Examples.valid
                + "client_auth:\n  method: client_secret_post\n  generated_secret:\n    issuer: '{team_id}'\n    audience: https://auth.example.com\n",
        ],
        nonTriggering: [
            Examples.valid
                + "variables:\n  team_id:\n    description: Team ID\n    pattern: '^[A-Z0-9]{10}$'\n    example: ABCDE12345\nclient_auth:\n  method: client_secret_post\n  generated_secret:\n    issuer: '{team_id}'\n    audience: https://auth.example.com\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, let secret = descriptor.clientAuth.generatedSecret else { return [] }
        // Sent as a client secret with no secret method listed: the resolver's refusal.
        var diagnostics = refusals(file, at: ["client_auth", "generated_secret"], atKey: true)
        for (key, template) in [("issuer", secret.issuer), ("audience", secret.audience)] {
            for name in Set(URLTemplate(template).placeholders.map(\.name)).sorted() where name != "client_id" && descriptor.variables[name] == nil {
                diagnostics.append(
                    diagnostic(
                        file, ["client_auth", "generated_secret", key],
                        "`{\(name)}` is not a declared variable (`variables.\(name)`), nor `{client_id}`"))
            }
        }
        return diagnostics
    }
}

/// RFC 6749 §3.3: a scope is a run of printable ASCII without space, `"` or `\`.
struct ScopeSyntaxRule: LintRule {
    static let description = RuleDescription(
        identifier: "scope_syntax", name: "Scope syntax",
        summary:
            "Each scope is one non-empty run of printable ASCII without a space, `\"` or `\\` (RFC 6749 §3.3) and without the `scopes.separator`, or the request splits it or the server refuses it; a scope listed twice is a warning; with `scopes.parameter: never` no scope may be listed, as none would be sent.",
        severity: .error,
        triggering: [
            // ``Examples/validOIDC`` with its scopes written out (no `replacingOccurrences` when the rule first reports).
            Examples.oidcHeader + Examples.endpoints + "scopes:\n  default: [\"openid email\", profile]\n",
            Examples.valid + "scopes:\n  default: [\"\", profile]\n",
            Examples.valid + "scopes:\n  default: [read, write]\n  separator: \",\"\n  offline:\n    scopes: [\"offline,access\"]\n",
            Examples.valid + "scopes:\n  default: [profile, email, profile]\n",
            Examples.valid + "scopes:\n  default: [profile]\n  parameter: never\n",
        ],
        nonTriggering: [
            Examples.validOIDC,
            Examples.valid + "scopes:\n  default: [\"channels:read\", \"chat:write\", \"https://api.example.com/read\"]\n  separator: \",\"\n",
            Examples.valid + "scopes:\n  default: []\n  parameter: never\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics: [Diagnostic] = []
        // A handful of scopes a list: each is compared with those before it, no set is built; a long list (a
        // provider's every API) is looked up in a set of those before it instead.
        func check(_ scopes: [String], at keyPath: [String]) {
            var seen: Set<String> = []
            let long = scopes.count > 16
            if long { seen.reserveCapacity(scopes.count) }
            for (index, scope) in scopes.enumerated() {
                let repeated = long ? !seen.insert(scope).inserted : scopes[..<index].contains(scope)
                if let problem = Self.problem(with: scope, separator: descriptor.scopes.separator) {
                    diagnostics.append(diagnostic(file, keyPath + [String(index)], "scope \(TerminalText.quoted(scope)) \(problem)"))
                } else if repeated {
                    diagnostics.append(diagnostic(file, keyPath + [String(index)], "scope `\(scope)` is listed twice", severity: .warning))
                }
            }
        }
        check(descriptor.scopes.default, at: ["scopes", "default"])
        check(descriptor.scopes.offline.scopes, at: ["scopes", "offline", "scopes"])
        return diagnostics + refusals(file, at: ["scopes", "parameter"])
    }

    /// Why a scope cannot be sent as one scope, or nil.
    static func problem(with scope: String, separator: String) -> String? {
        if scope.isEmpty { return "is empty" }
        // NQCHAR: %x21 / %x23-5B / %x5D-7E, judged from the bytes (every NQCHAR is ASCII), read in place: a copy
        // for `withUTF8` retained and released the scope's text.
        let nqchar = { (byte: UInt8) in (0x21...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C }
        let fits = scope.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(nqchar) } ?? scope.utf8.allSatisfy(nqchar)
        if !fits, let bad = scope.unicodeScalars.first(where: { !(0x21...0x7E).contains($0.value) || $0 == "\"" || $0 == "\\" }) {
            if bad == " " { return "holds a space; list each scope as its own item" }
            return "holds `\(TerminalText.escaped(String(bad)))`, which no scope may (RFC 6749 §3.3)"
        }
        // A space separator is refused above already.
        guard !separator.isEmpty, separator != " " else { return nil }
        var text = scope, separatorText = separator
        let split = text.withUTF8 { bytes in separatorText.withUTF8 { UTF8Search.firstRange(of: $0, in: bytes) != nil } }
        return split ? "holds the separator `\(separator)`, so the request would split it" : nil
    }
}
