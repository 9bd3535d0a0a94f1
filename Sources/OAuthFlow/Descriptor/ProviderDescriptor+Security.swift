extension ProviderDescriptor {
    /// The checks the engine performs.
    package struct Security: Sendable, Hashable, Codable {
        package enum CodeChallengeMethod: String, Sendable, Hashable, Codable, CaseIterable {
            case s256 = "S256"
            case plain
        }

        package var pkce: PKCEUse = .required
        package var pkceMethod: CodeChallengeMethod = .s256
        package var state: Bool = true
        /// Whether to send and check `nonce`; defaults to true for `oidc` providers.
        package var nonce: Bool?
        /// Whether the provider's ID tokens carry the `nonce` sent (OpenID Connect Core §3.1.3.7). `false` (LinkedIn)
        /// accepts an ID token without one; the nonce is still sent, and checked in a token that carries it.
        package var nonceEchoed = true
        package var issParameter: IssuerParameter = .ifPresent
        /// ID token algorithms accepted (`none` never is).
        package var idTokenAlgs: [String] = ["RS256", "ES256"]
        /// Other exact spellings of the issuer.
        package var issuerAliases: [String] = []
        /// The ID token issuer as a template filled from the token's own claims (multi-tenant providers).
        package var idTokenIssuer: String?
        /// The values of the issuer's variables that name no one tenant (Entra's `common`): only with one of them does
        /// ``idTokenIssuer`` apply.
        package var multiTenantValues: [String] = []
        package var dpop: DPoPMode = .never
        /// The algorithms DPoP proofs may be signed with, in the client's order of preference.
        package var dpopSigningAlgs: [String] = ["ES256"]
        package var dpopBearerAnswer: BearerAnswer = .refuse
        /// Whether the provider binds access tokens to the client certificate the token request presents (RFC 8705 §3,
        /// `tls_client_certificate_bound_access_tokens`), whichever way the client authenticates: token requests then
        /// present the client's certificate (at the token endpoint's `mtls_endpoint_aliases` entry) even with
        /// `private_key_jwt`. Clients that authenticate with their certificate present it anyway.
        package var tlsClientCertificateBoundAccessTokens = false
        /// The security profile the provider is held to (FAPI 2.0); nil for none (``ProviderDescriptor/securityProfile``).
        package var profile: SecurityProfile?

        package init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        static let standard = Self()
    }
}

// The schema's `security` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let securityDefaults = ProviderDescriptor.Security()

    static let securityFields: [SectionKey<ProviderDescriptor.Security>] = [
        SectionKey(
            \.pkce, { $0.pkce = $1 }, "pkce", default: securityDefaults.pkce,
            "Whether the server requires, accepts or ignores PKCE (RFC 7636). The engine always sends it unless `unsupported`. When the provider's pages do not mention PKCE, `supported` is the safe reading: a server that does not know the parameters ignores them (RFC 6749 §3.1)."
        ),
        SectionKey(
            \.pkceMethod, { $0.pkceMethod = $1 }, "pkce_method", default: securityDefaults.pkceMethod,
            "Code challenge method. Only `S256` is acceptable (RFC 9700 §2.1.1); resolving a provider with `plain` fails (`unsupported_policy`)."),
        SectionKey(
            \.state, { $0.state = $1 }, "state", .boolean, default: "\(securityDefaults.state)",
            "Read by lint only: `false` is allowed only when PKCE is required (rule `state_without_pkce`); the engine always sends and checks `state`."
        ),
        SectionKey(
            \.nonce, { $0.nonce = $1 }, "nonce", .boolean, default: "true for oidc, false for oauth2",
            "Send `nonce` and check it in the ID token. An `oidc` provider keeps it on: resolving one with `false` fails, as its ID tokens would go unchecked for replay (see `nonce_echoed`)."
        ),
        SectionKey(
            \.nonceEchoed, { $0.nonceEchoed = $1 }, "nonce_echoed", .boolean, default: "\(securityDefaults.nonceEchoed)",
            "Whether the provider's ID tokens carry the `nonce` sent (OpenID Connect Core §3.1.3.7). `false` is for a provider whose ID tokens never do (LinkedIn): the nonce is still sent and checked in a token that carries one, and a token without it is accepted after every other check (signature, `iss`, `aud`, `exp`); nothing but `state`, and PKCE where sent, then ties it to this sign-in. Only with `protocol: oidc` and `nonce: true` (lint rule `oidc_nonce`)."
        ),
        SectionKey(
            \.issParameter, { $0.issParameter = $1 }, "iss_parameter", default: securityDefaults.issParameter,
            "RFC 9207: whether the callback must carry `iss`, may carry it, or never does. A present `iss` must equal the issuer, with `absent` too (RFC 9207 §2.4: compared whenever present; only a provider that declares no issuer has it ignored); `if_present` becomes `required` once the server's metadata says `authorization_response_iss_parameter_supported` (RFC 9207 §2.4)."
        ),
        SectionKey(
            \.idTokenAlgs, { $0.idTokenAlgs = $1 }, "id_token_algs",
            .list(.choice(of: JWSAlgorithm.self)),
            default: shown(securityDefaults.idTokenAlgs),
            "ID token signature algorithms accepted. `none` is never accepted; HMAC (HS256) only when listed, verified with the client secret; `EdDSA` (RFC 8037) only when listed, verified with the JWKS's Ed25519 keys (`kty: OKP`; an Ed448 key is refused)."
        ),
        SectionKey(
            \.issuerAliases, { $0.issuerAliases = $1 }, "issuer_aliases", .list(.string()),
            "Other exact spellings of the issuer the provider uses in ID tokens, callbacks and its discovery document (Google: `accounts.google.com`)."
        ),
        SectionKey(
            \.idTokenIssuer, { $0.idTokenIssuer = $1 }, "id_token_issuer", .string(pattern: "^https://[^{}\\s]*(\\{[a-z_]+\\}[^{}\\s]*)+$"),
            "For multi-tenant providers: the ID token's `iss` as a template whose `{claim}` placeholders are filled from the token's own claims (Entra: `https://login.microsoftonline.com/{tid}/v2.0`). The token's `iss` must equal it exactly. It applies only while a variable of the `issuer` takes one of `multi_tenant_values`; with any other value (one tenant's id) a token's `iss` must be the issuer itself."
        ),
        SectionKey(
            \.multiTenantValues, { $0.multiTenantValues = $1 }, "multi_tenant_values", .list(.string()),
            "The values of the `issuer`'s variables that name no one tenant (Entra: `common`, `organizations`, `consumers`), with which `id_token_issuer` applies: any tenant's token then passes, as the provider's own sign-in page lets any tenant's user in. An API meant for one tenant gives that tenant's id, never one of these."
        ),
        SectionKey(
            \.dpop, { $0.dpop = $1 }, "dpop", default: securityDefaults.dpop,
            "DPoP (RFC 9449): bind access and refresh tokens to a key pair made for each session, with a signed proof on every request. `if_supported` uses it when discovery lists `dpop_signing_alg_values_supported`; `required` always does. git and kubectl cannot send proofs, so the credential helpers refuse DPoP-bound sessions."
        ),
        SectionKey(
            \.dpopSigningAlgs, { $0.dpopSigningAlgs = $1 }, "dpop_signing_alg_values_supported", .list(.choice(among: JWSAlgorithm.dpopKey)),
            default: shown(securityDefaults.dpopSigningAlgs),
            "The algorithms of the session's DPoP key, in order of preference; the first the server lists in discovery is used."),
        SectionKey(
            \.dpopBearerAnswer, { $0.dpopBearerAnswer = $1 }, "dpop_bearer_answer", default: securityDefaults.dpopBearerAnswer,
            "When DPoP was used but the token endpoint answers `token_type: Bearer` (it did not bind the tokens): `refuse` fails the sign-in or refresh; `accept` keeps them as Bearer tokens."
        ),
        SectionKey(
            \.tlsClientCertificateBoundAccessTokens, { $0.tlsClientCertificateBoundAccessTokens = $1 }, "tls_client_certificate_bound_access_tokens",
            .boolean,
            default: "\(securityDefaults.tlsClientCertificateBoundAccessTokens)",
            "The provider binds access tokens to the client certificate the token request presents (RFC 8705 §3), whichever way the client authenticates: every token request presents the client's certificate (at the token endpoint's `mtls_endpoint_aliases` entry), even with `private_key_jwt`, and the tokens then go only with it. The client configuration must hold the certificate (`certificate_file`, `tlsIdentity`). Under `security.profile: fapi2` it stands for DPoP as the sender constraint."
        ),
        SectionKey(
            \.profile, { $0.profile = $1 }, "profile", .choice(of: ProviderDescriptor.SecurityProfile.self),
            "A security profile the provider is held to (Docs/pushed-and-dpop.md#fapi-20): `fapi2`, the FAPI 2.0 Security Profile: pushed requests, PKCE S256, `iss` required, `private_key_jwt` or mutual-TLS client authentication, DPoP- or certificate-bound tokens, PS256, ES256 or EdDSA, endpoints only from the issuer's metadata. Resolving refuses a descriptor that contradicts it (lint rule `fapi2_profile`); the engine refuses a server whose metadata or answers do."
        ),
    ]
}

extension ProviderDescriptor {
    /// Whether the provider takes PKCE (`security.pkce`, RFC 7636); `required` refuses a sign-in without it.
    public enum PKCEUse: String, Sendable, Hashable, Codable, CaseIterable {
        case required, supported, unsupported
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
}

extension ProviderDescriptor.Security: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.securityFields }
}
