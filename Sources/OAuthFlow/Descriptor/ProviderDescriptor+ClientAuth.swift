extension ProviderDescriptor {
    /// Client authentication at the token endpoint.
    package struct ClientAuth: Sendable, Hashable, Codable {
        /// The one method, for descriptors written before ``methods`` (and the first choice otherwise).
        package var method: ClientAuthMethod = .none
        /// Every method the provider accepts, in its order of preference.
        package var methods: [ClientAuthMethod]?
        /// The `aud` the client's assertions carry.
        package var assertionAudience: AssertionAudience = .issuer
        /// The algorithms the provider takes for client assertions; nil takes every one OAuthFlow signs with.
        package var assertionAlgs: [String]?
        /// When the provider's "client secret" is a JWT the client signs itself (Sign in with Apple): its claims.
        package var generatedSecret: GeneratedSecret?
        /// The parameter naming the client in the authorization request and in form or JSON bodies (TikTok:
        /// `client_key`); nil for `client_id`.
        package var clientIDParameter: String?
        /// The client's parameter when ``clientIDParameter`` names none (RFC 6749 §2.2).
        static let standardClientIDParameter = "client_id"

        /// A client secret the engine makes: a JWT signed with the client's private key (its `kid` in the header),
        /// `iss` as given, `sub` the client id, `aud` as given, `iat` now and `exp` `lifetime` later.
        package struct GeneratedSecret: Sendable, Hashable, Codable {
            /// The `iss` claim, a template that may name `{variables}` (Apple: the Team ID).
            package var issuer: String
            /// The `aud` claim.
            package var audience: String
            /// Seconds the secret is valid; it is made again when a sixth of that is left.
            package var lifetime: Int = Self.standardLifetime

            /// The lifetime when the descriptor states none: a day.
            static let standardLifetime = 86_400

            enum CodingKeys: String, CodingKey { case issuer, audience, lifetime }
        }

        /// What the provider accepts: ``methods``, or just ``method``.
        package var supported: [ClientAuthMethod] { methods ?? [method] }

        package init() {}
    }
}

// The schema's `client_auth` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let clientAuthFields: [SectionKey<ProviderDescriptor.ClientAuth>] = [
        SectionKey(
            \.methods, { $0.methods = $1 }, "methods", .list(.choice(of: ProviderDescriptor.ClientAuthMethod.self)),
            "Every method the provider accepts, in its order of preference. The client chooses the first method listed whose credential it holds (a secret, a private key, a certificate), or `none` when it holds none; a client's `client_auth` setting names one instead. `none` is for public clients; `client_secret_basic` sends an HTTP Basic header (RFC 6749 §2.3.1); `client_secret_post` sends the secret in the body; `client_secret_jwt` and `private_key_jwt` send a short-lived signed assertion (RFC 7523 §2.2); `tls_client_auth` and `self_signed_tls_client_auth` present a client certificate (RFC 8705)."
        ),
        SectionKey(
            \.method, "method", .choice(of: ProviderDescriptor.ClientAuthMethod.self), default: ProviderDescriptor.ClientAuth().method.rawValue,
            "The single method of a provider that accepts only one (the same as a one-item `methods`)."
        ) { o, key, section in
            // Read after `methods`: without `method`, the first method listed is the one.
            section.method = try o.choice(key) ?? section.methods?.first ?? section.method
        },
        SectionKey(
            \.assertionAudience, { $0.assertionAudience = $1 }, "assertion_audience", default: ProviderDescriptor.ClientAuth().assertionAudience,
            "The `aud` of `client_secret_jwt` and `private_key_jwt` assertions. `issuer` is the safe value (an assertion for one server cannot be replayed at another's endpoint, CVE-2025-27370/27371); `token_endpoint` is for providers that document it (Entra ID, Okta), and is never sent to a mutual-TLS alias on another origin."
        ),
        SectionKey(
            \.assertionAlgs, { $0.assertionAlgs = $1 }, "assertion_algs", .list(.choice(among: JWSAlgorithm.clientAssertion)),
            "The algorithms the provider takes for client assertions; absent takes all five, and the client's key decides (an Ed25519 key signs `EdDSA`). `HS256` is `client_secret_jwt`'s; the others are the private key's."
        ),
        SectionKey(
            \.clientIDParameter, { $0.clientIDParameter = $1 }, "client_id_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: ProviderDescriptor.ClientAuth.standardClientIDParameter,
            "The name the client id goes by in the authorization request (pushed or not) and in the bodies of token, device and revocation requests (TikTok: `client_key`); `client_secret_basic` is unaffected. A name the engine sets itself is refused."
        ),
        SectionKey(
            \.generatedSecret, "generated_secret", .object(generatedSecretFields),
            "For providers whose client secret is a JWT the client signs (Sign in with Apple): the engine signs it with the client's private key (`private_key_file` or `private_key_env`, and `key_id`, in the clients file) and sends it as the client secret (`client_secret_post` or `client_secret_basic`), made again before it expires."
        ) { o, key, section in
            section.generatedSecret = try o.object(key) { secret in
                typealias Keys = ProviderDescriptor.ClientAuth.GeneratedSecret.CodingKeys
                return ProviderDescriptor.ClientAuth.GeneratedSecret(
                    issuer: try secret.required(Keys.issuer, secret.string), audience: try secret.required(Keys.audience, secret.string),
                    lifetime: try secret.int(Keys.lifetime) ?? ProviderDescriptor.ClientAuth.GeneratedSecret.standardLifetime)
            }
        },
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
}

extension ProviderDescriptor {
    /// How the client authenticates at the token endpoint (`client_auth.methods`; RFC 6749 §2.3, RFC 7523, RFC 8705).
    public enum ClientAuthMethod: String, Sendable, Hashable, Codable, CaseIterable {
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
        package var usesSecret: Bool { [.clientSecretBasic, .clientSecretPost, .clientSecretJWT].contains(self) }
        /// Whether the client proves itself with a signed assertion (`client_assertion`).
        public var usesAssertion: Bool { self == .clientSecretJWT || self == .privateKeyJWT }
        /// Whether the client proves itself with a TLS client certificate.
        package var usesCertificate: Bool { self == .tlsClientAuth || self == .selfSignedTLSClientAuth }
    }

    /// The `aud` of the client's assertions (`client_secret_jwt`, `private_key_jwt`).
    public enum AssertionAudience: String, Sendable, Hashable, Codable, CaseIterable {
        /// The authorization server's issuer identifier: the value that cannot be redirected to another
        /// server's endpoint (CVE-2025-27370, CVE-2025-27371), and the default.
        case issuer
        /// The token endpoint URL, for providers that document it (Entra ID, Okta).
        case tokenEndpoint = "token_endpoint"
    }
}

extension ProviderDescriptor.ClientAuth: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.clientAuthFields }
}
