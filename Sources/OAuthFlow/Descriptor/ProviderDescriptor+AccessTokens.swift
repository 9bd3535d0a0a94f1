extension ProviderDescriptor {
    /// How an API that receives this provider's access tokens checks them.
    package struct AccessTokenSettings: Sendable, Hashable, Codable {
        /// Whether an introspection answer must name the API in `aud`.
        package enum IntrospectedAudience: String, Sendable, Hashable, Codable, CaseIterable {
            /// An answer without `aud` is refused: nothing said the token was meant for this API.
            case required
            /// An answer without `aud` is accepted, and the principal says the audience went unchecked (a server
            /// whose introspection never names one: LemonLDAP::NG). An answer with `aud` must still name the API.
            case mayBeAbsent = "may_be_absent"
        }

        package var format: AccessTokenFormat = .jwt
        package var profile: AccessTokenProfile = .plain
        /// Whether an introspection answer must name the API in `aud` (default `required`).
        package var introspectedAudience: IntrospectedAudience = .required
        /// The JWS algorithms accepted, by name (never `none`, never HMAC).
        package var signingAlgs: [String] = ["RS256", "PS256", "ES256"]
        /// The API's audience when the descriptor states it (a template that may name variables).
        package var audience: String?
        /// Seconds of clock skew allowed on `exp`, `nbf` and `iat`.
        package var leeway: Int = 60
        /// The longest time, in seconds, an active introspection answer is reused (never past the token's `exp`).
        package var introspectionCache: Int = 300
        /// How long, in seconds, an inactive answer is reused.
        package var inactiveCache: Int = 10

        package init() {}

        /// The defaults, made once: they hold lists, and each `Self()` would allocate them again.
        static let standard = Self()
    }
}

// The schema's `access_tokens` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let accessTokenFields: [SectionKey<ProviderDescriptor.AccessTokenSettings>] = [
        SectionKey(
            \.format, { $0.format = $1 }, "format", default: ProviderDescriptor.AccessTokenSettings().format,
            "What the provider's access tokens are: `jwt` (verified with the JWKS), `opaque` (RFC 7662 introspection, also for JWTs), or `both` (JWTs verified, anything else introspected)."
        ),
        SectionKey(
            \.profile, { $0.profile = $1 }, "profile", default: ProviderDescriptor.AccessTokenSettings().profile,
            "`rfc9068` requires the JWT profile of RFC 9068: header `typ: at+jwt` and the claims `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti`; `plain` requires `iss`, `exp` and `aud`."
        ),
        SectionKey(
            \.signingAlgs, { $0.signingAlgs = $1 }, "signing_algs", .list(.choice(among: JWSAlgorithm.publicKey)),
            default: shown(ProviderDescriptor.AccessTokenSettings().signingAlgs),
            "The algorithms a JWT access token may be signed with. `none` and HMAC are never accepted: the keys are public."),
        SectionKey(
            \.audience, { $0.audience = $1 }, "audience", .string(),
            "The `aud` an access token must contain to be accepted, when the descriptor states it (may name `{variables}`); otherwise the API states its own (`ProtectedResource.Settings.audience`, else its resource URL)."
        ),
        SectionKey(
            \.leeway, { $0.leeway = $1 }, "leeway", .integer(0...300), default: "\(ProviderDescriptor.AccessTokenSettings().leeway)",
            "Seconds of clock difference allowed when checking `exp`, `nbf` and `iat`."),
        SectionKey(
            \.introspectionCache, { $0.introspectionCache = $1 }, "introspection_cache", .integer(0...86_400),
            default: "\(ProviderDescriptor.AccessTokenSettings().introspectionCache)",
            "The longest time, in seconds, an active introspection answer is reused; never past the token's `exp`. 0 asks every time."),
        SectionKey(
            \.inactiveCache, { $0.inactiveCache = $1 }, "inactive_cache", .integer(0...300),
            default: "\(ProviderDescriptor.AccessTokenSettings().inactiveCache)",
            "How long, in seconds, an inactive (`active: false`) answer is reused."),
        SectionKey(
            \.introspectedAudience, { $0.introspectedAudience = $1 }, "introspected_audience",
            default: ProviderDescriptor.AccessTokenSettings().introspectedAudience,
            "Whether an introspection answer must name the API in `aud`: `required` refuses one that names no audience, since nothing then says the token is meant for this API; `may_be_absent` accepts it for a server whose introspection never names one, and the accepted principal says the audience went unchecked. An `aud` that is present must name the API either way."
        ),
    ]
}

extension ProviderDescriptor {
    /// What the provider's access tokens are, and so how an API checks them.
    public enum AccessTokenFormat: String, Sendable, Hashable, Codable, CaseIterable {
        /// Signed JWTs, verified with the provider's JWKS.
        case jwt
        /// Opaque strings, checked by RFC 7662 introspection.
        case opaque
        /// JWTs verified with the JWKS, anything else introspected.
        case both
    }

    /// Which claims and header a JWT access token must carry.
    public enum AccessTokenProfile: String, Sendable, Hashable, Codable, CaseIterable {
        /// RFC 9068: `typ: at+jwt`, and `iss`, `exp`, `aud`, `sub`, `client_id`, `iat`, `jti`.
        case rfc9068
        /// `iss`, `exp` and `aud`; the rest when present.
        case plain
    }
}

extension ProviderDescriptor.AccessTokenSettings: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.accessTokenFields }
}
