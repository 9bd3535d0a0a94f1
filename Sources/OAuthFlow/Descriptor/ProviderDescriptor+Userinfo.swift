extension ProviderDescriptor {
    /// How the userinfo call (and the profile's extra call) is made: the method, where the access token
    /// goes, and what else the provider wants on the request. The default is RFC 6750 §2.1, a GET with
    /// `Authorization: Bearer`; other providers want another scheme (Zoho), the bare token (ClickUp), the
    /// client id in a header (Trakt), a value of the token answer in the query (WeChat's `openid`), or a
    /// POST with a fixed body (Linear's GraphQL query).
    package struct Userinfo: Sendable, Hashable, Codable {
        package enum Method: String, Sendable, Hashable, Codable, CaseIterable {
            case get = "GET"
            case post = "POST"
        }

        /// Where the access token goes.
        package enum Placement: String, Sendable, Hashable, Codable, CaseIterable {
            /// The `Authorization` header, after the scheme (RFC 6750 §2.1).
            case header
            /// The query string (RFC 6750 §2.3, which says not to; some providers take nothing else).
            case query
            /// A form-encoded `POST` body (RFC 6750 §2.2).
            case body
        }

        package var method: Method = .get
        /// Extra headers; a value may name `{client_id}`, the descriptor's `{variables}` and `{token.…}`
        /// fields of the token answer.
        package var headers: [String: String] = [:]
        package var placement: Placement = .header
        /// The word before the token in the `Authorization` header; empty sends the token alone.
        package var scheme = "Bearer"
        /// The parameter carrying the token with `query` or `body`.
        package var tokenParameter = "access_token"
        /// Extra query parameters, with the same placeholders as `headers`.
        package var query: [String: String] = [:]
        /// Fields of a form-encoded `POST` body, with the same placeholders (VK ID's `client_id`); with
        /// `placement: body` the token joins them.
        package var form: [String: String] = [:]
        /// A fixed request body, sent as it is written (a GraphQL query); no placeholders.
        package var body: String?
        /// The body's media type.
        package var contentType: String?

        package init() {}
    }
}

// The schema's `userinfo` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let userinfoDefaults = ProviderDescriptor.Userinfo()

    static let userinfoFields: [SectionKey<ProviderDescriptor.Userinfo>] = [
        SectionKey(
            \.method, { $0.method = $1 }, "method", default: userinfoDefaults.method,
            "HTTP method for the userinfo call (Dropbox and Linear: `POST`)."),
        SectionKey(
            \.headers, { $0.headers = $1 }, "headers", .map(.string()), default: shown(userinfoDefaults.headers),
            "Extra HTTP headers, on the extra call too (GitHub needs a `User-Agent`). A value may name `{client_id}` (Trakt's `trakt-api-key`), the descriptor's `{variables}` and `{token.…}`, a field of the token endpoint's answer written as a profile path."
        ),
        SectionKey(
            \.placement, { $0.placement = $1 }, "placement", default: userinfoDefaults.placement,
            "Where the access token goes: `header`, the `Authorization` header after `scheme` (RFC 6750 §2.1); `query`, the query string (RFC 6750 §2.3 advises against it: URLs end up in logs; lint warns); `body`, a form-encoded `POST` body (RFC 6750 §2.2). A DPoP-bound token always goes in the header."
        ),
        SectionKey(
            \.scheme, { $0.scheme = $1 }, "scheme", .string(pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]*$"), default: userinfoDefaults.scheme,
            "The word before the token in the `Authorization` header (Zoho: `Zoho-oauthtoken`); empty sends the token alone (ClickUp)."),
        SectionKey(
            \.tokenParameter, { $0.tokenParameter = $1 }, "token_parameter", .string(pattern: "^[A-Za-z0-9_.-]+$"),
            default: userinfoDefaults.tokenParameter,
            "The parameter carrying the token with `query` or `body`."),
        SectionKey(
            \.query, { $0.query = $1 }, "query", .map(.string()), default: shown(userinfoDefaults.query),
            "Extra query parameters, with the placeholders `headers` takes (WeChat: `openid: '{token.openid}'`)."),
        SectionKey(
            \.form, { $0.form = $1 }, "form", .map(.string()), default: shown(userinfoDefaults.form),
            "Fields of a form-encoded `POST` body, with the placeholders `headers` takes (VK ID: `client_id: '{client_id}'`); with `placement: body` the token joins them."
        ),
        SectionKey(
            \.body, { $0.body = $1 }, "body", .string(),
            "A fixed request body for a `POST`, sent as written, braces included (Linear's GraphQL query); not with `placement: body`."),
        SectionKey(
            \.contentType, { $0.contentType = $1 }, "content_type", .string(pattern: "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$"),
            "The body's media type (`application/json`)."),
    ]
}

extension ProviderDescriptor.Userinfo: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.userinfoFields }
}
