extension ProviderDescriptor {
    /// Static endpoint URL templates.
    package struct Endpoints: Sendable, Hashable, Codable {
        package var authorization: String?
        package var token: String?
        package var userinfo: String?
        package var revocation: String?
        package var introspection: String?
        package var endSession: String?
        package var deviceAuthorization: String?
        package var jwks: String?
        /// Pushed authorization request endpoint (RFC 9126).
        package var pushedAuthorization: String?
        /// Where refresh requests go, for a provider that takes them apart from the token endpoint (Figma, DigitalOcean).
        package var refresh: String?

        enum CodingKeys: String, CodingKey {
            case authorization, token, userinfo, revocation, introspection
            case endSession = "end_session", deviceAuthorization = "device_authorization", jwks
            case pushedAuthorization = "pushed_authorization", refresh
        }

        package init() {}

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
        package var all: [(key: String, template: String)] {
            let pairs: [(String, String?)] = [
                ("authorization", authorization), ("token", token), ("userinfo", userinfo),
                ("revocation", revocation), ("introspection", introspection), ("end_session", endSession),
                ("device_authorization", deviceAuthorization), ("jwks", jwks), ("pushed_authorization", pushedAuthorization),
                ("refresh", refresh),
            ]
            return pairs.compactMap { key, value in value.map { (key, $0) } }
        }
    }
}

extension ProviderDescriptor {
    /// Whether the descriptor is for an API only: no authorization or token endpoint, and the provider's
    /// keys or introspection endpoint, which is all an API checking its tokens needs.
    package var isForAPIsOnly: Bool {
        endpoints.authorization == nil && endpoints.token == nil && (endpoints.jwks != nil || endpoints.introspection != nil)
    }
}

// The schema's `endpoints` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
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
}
