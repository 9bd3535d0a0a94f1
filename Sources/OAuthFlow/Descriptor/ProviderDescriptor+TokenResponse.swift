extension ProviderDescriptor {
    /// How token responses are read.
    package struct TokenResponse: Sendable, Hashable, Codable {
        package var format: TokenResponseFormat = .json
        /// The `token_type` to assume when the answer has none (RFC 6749 §5.1 requires it; Shopify, Atlassian and
        /// WorkOS leave it out). Only `Bearer`.
        package var defaultTokenType: String?
        /// What `expires_in: 0` means (default `spent`).
        package var zeroExpiresIn: ZeroExpiresIn = .spent
        /// What stands between the granted scopes in an answer's `scope`, when it is not the request's
        /// `scopes.separator` (GitHub and LinkedIn answer `email,openid,profile`); nil for the request's.
        package var scopeSeparator: String?

        package init() {}
    }
}

// The schema's `token_response` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let tokenResponseFields: [SectionKey<ProviderDescriptor.TokenResponse>] = [
        SectionKey(
            \.format, { $0.format = $1 }, "format", default: ProviderDescriptor.TokenResponse().format,
            "Body format of token responses; `auto` looks at the body itself, not only at Content-Type."),
        SectionKey(
            \.defaultTokenType, { $0.defaultTokenType = $1 }, "default_token_type", .choice(["Bearer"]),
            "The `token_type` to assume when a token answer has none (RFC 6749 §5.1 requires one; Shopify, Atlassian and WorkOS leave it out). Without it such an answer is refused."
        ),
        SectionKey(
            \.scopeSeparator, { $0.scopeSeparator = $1 }, "scope_separator", .choice([",", " "]), default: "as scopes.separator",
            "What stands between the granted scopes in an answer's `scope`, when the provider answers otherwise than it is asked (GitHub and LinkedIn answer `email,openid,profile`). The answer is split on it and on spaces (RFC 6749 §3.3), so the granted scopes, and the resources they open, are read one by one."
        ),
        SectionKey(
            \.zeroExpiresIn, { $0.zeroExpiresIn = $1 }, "zero_expires_in", default: ProviderDescriptor.TokenResponse().zeroExpiresIn,
            "What `expires_in: 0` means: `spent` (RFC 6749 §5.1, a lifetime of 0 seconds: the token serves the request at hand and is never cached or reused), or `no_expiry` for a provider that documents 0 as a token that does not expire (Mailchimp)."
        ),
    ]
}

extension ProviderDescriptor {
    /// How a token answer's body is read (`token_response.format`).
    public enum TokenResponseFormat: String, Sendable, Hashable, Codable, CaseIterable {
        case json, form, auto
    }

    /// What `expires_in: 0` means.
    public enum ZeroExpiresIn: String, Sendable, Hashable, Codable, CaseIterable {
        /// RFC 6749 §5.1: a lifetime of 0 seconds; the token is used for the request at hand and never kept for another.
        case spent
        /// The provider's own meaning (Mailchimp): the token does not expire.
        case noExpiry = "no_expiry"
    }
}

extension ProviderDescriptor.TokenResponse: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.tokenResponseFields }
}
