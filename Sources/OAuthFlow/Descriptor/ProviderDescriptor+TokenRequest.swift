extension ProviderDescriptor {
    /// How token requests are sent.
    package struct TokenRequest: Sendable, Hashable, Codable {
        package var bodyEncoding: BodyEncoding = .form
        package var headers: [String: String] = [:]
        /// Fixed parameters added to every token request (Shopify's `expiring: "1"` for expiring offline tokens).
        package var extraParams: [String: String] = [:]
        /// Parameters of the authorization callback copied into the code exchange (VK's `device_id`, Naver's `state`).
        package var callbackParams: [String] = []
        /// Parameters of the authorization callback kept with the session and sent on every refresh (VK's `device_id`).
        package var callbackParamsOnRefresh: [String] = []

        package init() {}
    }
}

// The schema's `token_request` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let tokenRequestFields: [SectionKey<ProviderDescriptor.TokenRequest>] = [
        SectionKey(
            \.bodyEncoding, { $0.bodyEncoding = $1 }, "body_encoding", default: ProviderDescriptor.TokenRequest().bodyEncoding,
            "`form` sends `application/x-www-form-urlencoded`; `json` sends `application/json`. Revocation, introspection and pushed authorization requests are form-encoded whatever this says (their RFCs)."
        ),
        SectionKey(
            \.headers, { $0.headers = $1 }, "headers", .map(.string()), default: shown(ProviderDescriptor.TokenRequest().headers),
            "Extra HTTP headers (GitHub needs `Accept: application/json`)."),
        SectionKey(
            \.extraParams, { $0.extraParams = $1 }, "extra_params", .map(.string()), default: shown(ProviderDescriptor.TokenRequest().extraParams),
            "Fixed parameters added to every token request: the code exchange, refreshes and the other grants (Shopify's `expiring: \"1\"` for expiring offline tokens). Parameters the engine sets are refused."
        ),
        SectionKey(
            \.callbackParams, { $0.callbackParams = $1 }, "callback_params", .list(.string(pattern: "^[A-Za-z0-9_.-]+$")),
            default: shown(ProviderDescriptor.TokenRequest().callbackParams),
            "Parameters of the authorization callback sent back in the code exchange (VK's `device_id`, Naver's `state`), when the callback carries them."
        ),
        SectionKey(
            \.callbackParamsOnRefresh, { $0.callbackParamsOnRefresh = $1 }, "callback_params_on_refresh",
            .list(.string(pattern: "^[A-Za-z0-9_.-]+$")),
            default: shown(ProviderDescriptor.TokenRequest().callbackParamsOnRefresh),
            "Parameters of the authorization callback kept with the session (in the token store, beside the tokens; they are not secrets) and sent on every refresh (VK ID's `device_id`). Parameters the engine sets are refused."
        ),
    ]
}

extension ProviderDescriptor {
    /// How a token request's body is encoded (`token_request.body_encoding`).
    public enum BodyEncoding: String, Sendable, Hashable, Codable, CaseIterable {
        /// `application/x-www-form-urlencoded` (RFC 6749 §4.1.3).
        case form
        /// `application/json`, which Auth0 and Slack also accept.
        case json
    }
}

extension ProviderDescriptor.TokenRequest: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.tokenRequestFields }
}
