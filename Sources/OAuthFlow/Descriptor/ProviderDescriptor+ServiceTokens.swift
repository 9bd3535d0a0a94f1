extension ProviderDescriptor {
    /// How a provider names the API a service token is for (client credentials).
    package struct ServiceTokenSettings: Sendable, Hashable, Codable {
        package var target: ServiceTokenTarget = .resource
        /// For ``ServiceTokenTarget/scope``: what follows the API in its scope.
        package var scopeSuffix: String = "/.default"

        package init() {}
    }
}

// The schema's `service_tokens` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let serviceTokenFields: [SectionKey<ProviderDescriptor.ServiceTokenSettings>] = [
        SectionKey(
            \.target, { $0.target = $1 }, "target", default: ProviderDescriptor.ServiceTokenSettings().target,
            "How a client-credentials request names the API the token is for: `resource` sends RFC 8707 `resource` parameters (one per API); `audience` sends an `audience` parameter (Auth0); `scope` asks for the scope API + `scope_suffix` (Entra ID's `https://graph.microsoft.com/.default`)."
        ),
        SectionKey(
            \.scopeSuffix, { $0.scopeSuffix = $1 }, "scope_suffix", .string(), default: ProviderDescriptor.ServiceTokenSettings().scopeSuffix,
            "With `target: scope`, what follows the API in its scope."),
    ]
}

extension ProviderDescriptor {
    /// The request parameter that carries the target API.
    public enum ServiceTokenTarget: String, Sendable, Hashable, Codable, CaseIterable {
        /// RFC 8707 `resource`, repeatable: an absolute URI each.
        case resource
        /// An `audience` parameter (Auth0).
        case audience
        /// A scope per API, the API followed by `scope_suffix` (Entra ID's `API/.default`).
        case scope
    }
}

extension ProviderDescriptor.ServiceTokenSettings: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.serviceTokenFields }
}
