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

        package init() {}

        /// Every endpoint that is set, by its YAML key.
        package var all: [(key: String, template: String)] {
            // Appended one by one into room for all ten: a list of ten optional pairs, filtered, was two arrays
            // allocated and a copy of every string.
            var all: [(key: String, template: String)] = []
            all.reserveCapacity(10)
            func add(_ key: String, _ template: String?) {
                if let template { all.append((key, template)) }
            }
            add("authorization", authorization)
            add("token", token)
            add("userinfo", userinfo)
            add("revocation", revocation)
            add("introspection", introspection)
            add("end_session", endSession)
            add("device_authorization", deviceAuthorization)
            add("jwks", jwks)
            add("pushed_authorization", pushedAuthorization)
            add("refresh", refresh)
            return all
        }
    }
}

extension ProviderDescriptor {
    /// Whether the descriptor is for an API only: no authorization or token endpoint, and the provider's
    /// keys or introspection endpoint, which is all an API checking its tokens needs.
    package var isForAPIsOnly: Bool {
        endpoints.authorization == nil && endpoints.token == nil && (endpoints.jwks != nil || endpoints.introspection != nil)
    }

    /// Whether the descriptor describes a transmitter of security events alone (`security_events`, and neither an
    /// authorization nor a token endpoint): it signs nobody in, so it needs no endpoints and no discovery.
    package var isForSecurityEventsOnly: Bool {
        endpoints.authorization == nil && endpoints.token == nil && securityEvents != nil
    }
}

// The schema's `endpoints` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let endpointFields: [SectionKey<ProviderDescriptor.Endpoints>] = [
        SectionKey(\.authorization, { $0.authorization = $1 }, "authorization", .urlTemplate, "Authorization endpoint (RFC 6749 §3.1)."),
        SectionKey(\.token, { $0.token = $1 }, "token", .urlTemplate, "Token endpoint (RFC 6749 §3.2)."),
        SectionKey(\.userinfo, { $0.userinfo = $1 }, "userinfo", .urlTemplate, "OpenID Connect userinfo endpoint, or the provider's profile API."),
        SectionKey(\.revocation, { $0.revocation = $1 }, "revocation", .urlTemplate, "Token revocation endpoint (RFC 7009)."),
        SectionKey(\.introspection, { $0.introspection = $1 }, "introspection", .urlTemplate, "Token introspection endpoint (RFC 7662)."),
        SectionKey(\.endSession, { $0.endSession = $1 }, "end_session", .urlTemplate, "OpenID Connect RP-initiated logout endpoint."),
        SectionKey(
            \.deviceAuthorization, { $0.deviceAuthorization = $1 }, "device_authorization", .urlTemplate, "Device authorization endpoint (RFC 8628)."),
        SectionKey(\.jwks, { $0.jwks = $1 }, "jwks", .urlTemplate, "JSON Web Key Set used to verify ID tokens."),
        SectionKey(
            \.pushedAuthorization, { $0.pushedAuthorization = $1 }, "pushed_authorization", .urlTemplate,
            "Pushed authorization request endpoint (RFC 9126); discovery's `pushed_authorization_request_endpoint` otherwise."),
        SectionKey(
            \.refresh, { $0.refresh = $1 }, "refresh", .urlTemplate,
            "Where refresh requests (RFC 6749 §6) go, for a provider that takes them apart from the token endpoint (Figma, DigitalOcean); the token endpoint otherwise."
        ),
    ]
}

extension ProviderDescriptor.Endpoints: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.endpointFields }
}
