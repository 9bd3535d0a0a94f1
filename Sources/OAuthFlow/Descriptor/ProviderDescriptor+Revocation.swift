extension ProviderDescriptor {
    /// How the provider revokes a token, for providers whose revocation is not RFC 7009 as written: another
    /// method, the token under another parameter name or as the request's Bearer token, fixed parameters, or
    /// only one kind of token revoked. The endpoint is `endpoints.revocation` (or discovery's).
    package struct RevocationSettings: Sendable, Hashable, Codable {
        /// The HTTP method of the revocation request.
        package enum Method: String, Sendable, Hashable, Codable, CaseIterable {
            case post = "POST"
            case delete = "DELETE"
            /// With the token in the query or as the Bearer token: a `GET` has no body (Oura).
            case get = "GET"
        }

        /// Where the token goes.
        package enum Placement: String, Sendable, Hashable, Codable, CaseIterable {
            /// A form-encoded body (RFC 7009 §2.1).
            case body
            /// The query string (a `DELETE` without a body).
            case query
            /// The `Authorization` header, as the Bearer token of the request itself (RFC 6750): the token revokes itself.
            case bearer
        }

        /// A kind of token the provider revokes.
        package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            case refreshToken = "refresh_token"
            case accessToken = "access_token"
        }

        package var method: Method = .post
        package var placement: Placement = .body
        /// The parameter that carries the token (RFC 7009: `token`; Yandex, LINE and Strava: `access_token`).
        package var tokenParameter = "token"
        /// Whether `token_type_hint` is sent (RFC 7009 §2.1).
        package var typeHint = true
        /// The parameter carrying the hint (Kick: `token_hint_type`).
        package var typeHintParameter = "token_type_hint"
        /// Whether the client authenticates as at the token endpoint (RFC 7009 §2.1 requires it of a
        /// confidential client); a `bearer` request is authorized by the token itself.
        package var clientAuthentication = true
        /// The kinds of token the provider revokes, in the order sign-out revokes them.
        package var tokens: [Kind] = [.refreshToken, .accessToken]
        /// Fixed parameters added to the request (Naver's `grant_type=delete`).
        package var extraParams: [String: String] = [:]
        /// When the provider has a revocation endpoint only in some cases (a deployment's configuration) that the
        /// descriptor leaves to discovery, that case in a sentence, for the catalog.
        package var condition: String?

        package init() {}
    }
}

// The schema's `revocation` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let revocationDefaults = ProviderDescriptor.RevocationSettings()

    static let revocationFields: [SectionKey<ProviderDescriptor.RevocationSettings>] = [
        SectionKey(
            \.method, { $0.method = $1 }, "method", default: revocationDefaults.method,
            "The HTTP method (osu! revokes with `DELETE`; a `GET`, Oura's, carries the token in the query or as the Bearer token)."),
        SectionKey(
            \.placement, { $0.placement = $1 }, "placement", default: revocationDefaults.placement,
            "Where the token goes: `body`, form-encoded (RFC 7009 §2.1); `query`, the query string; `bearer`, the request's own `Authorization: Bearer` header, the token revoking itself."
        ),
        SectionKey(
            \.tokenParameter, { $0.tokenParameter = $1 }, "token_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: revocationDefaults.tokenParameter,
            "The parameter carrying the token with `body` or `query` (Yandex, LINE, Strava: `access_token`)."),
        SectionKey(
            \.typeHint, { $0.typeHint = $1 }, "type_hint", .boolean, default: "\(revocationDefaults.typeHint)",
            "Whether `token_type_hint` is sent (RFC 7009 §2.1)."),
        SectionKey(
            \.typeHintParameter, { $0.typeHintParameter = $1 }, "type_hint_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: revocationDefaults.typeHintParameter,
            "The parameter carrying the hint (Kick: `token_hint_type`)."),
        SectionKey(
            \.clientAuthentication, { $0.clientAuthentication = $1 }, "client_authentication", .boolean,
            default: "\(revocationDefaults.clientAuthentication)",
            "Whether the client authenticates as at the token endpoint (RFC 7009 §2.1 requires it of a confidential client). A `bearer` request is authorized by its token."
        ),
        SectionKey(
            \.tokens, { $0.tokens = $1 }, "tokens", .list(.choice(of: ProviderDescriptor.RevocationSettings.Kind.self)),
            default: shown(revocationDefaults.tokens.map(\.rawValue)),
            "The kinds of token the provider revokes, in the order sign-out revokes them; a kind not listed is only forgotten (Roblox and NetSuite revoke refresh tokens only, which ends their access tokens)."
        ),
        SectionKey(
            \.extraParams, { $0.extraParams = $1 }, "extra_params", .map(.string()), default: shown(revocationDefaults.extraParams),
            "Fixed parameters added to the request (Naver: `grant_type: delete`, `service_provider: NAVER`)."),
        SectionKey(
            \.condition, { $0.condition = $1 }, "condition", .string(),
            "When the provider has a revocation endpoint only in some cases (a deployment's configuration) that the descriptor leaves to discovery, that case in a sentence; the catalog's Revocation column says `conditional` with the sentence as a footnote."
        ),
    ]
}

extension ProviderDescriptor.RevocationSettings: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.revocationFields }
}
