import Foundation

extension ProtectedResource {
    /// Where the metadata document is published: `/.well-known/oauth-protected-resource` inserted
    /// between the resource's host and its path (RFC 9728 §3.1).
    public var metadataURL: URL {
        var components = URLComponents(url: settings.resource, resolvingAgainstBaseURL: false) ?? URLComponents()
        let path = components.path == "/" ? "" : components.path
        components.path = "/.well-known/oauth-protected-resource" + path
        components.query = nil
        components.fragment = nil
        return components.url ?? settings.resource
    }

    /// The protected resource metadata document (RFC 9728 §2).
    public var metadata: ProtectedResource.Metadata {
        ProtectedResource.Metadata(
            resource: settings.resource.absoluteString,
            authorizationServers: trusted.compactMap { $0.provider.issuer?.absoluteString },
            scopesSupported: settings.scopesSupported.isEmpty ? nil : settings.scopesSupported,
            // Proofs are checked in every mode (a DPoP-bound token is accepted with its proof): the algorithms are always said.
            dpopSigningAlgorithms: DPoPProofVerifier.algorithms.map(\.rawValue),
            dpopBoundTokensRequired: settings.dpop == .required,
            resourceName: settings.resourceName)
    }
}

extension ProtectedResource {
    /// The protected resource metadata document (RFC 9728 §2).
    public struct Metadata: Sendable, Hashable, Codable {
        public var resource: String
        public var authorizationServers: [String]
        public var scopesSupported: [String]?
        public var bearerMethodsSupported: [String] = ["header"]
        public var dpopSigningAlgorithms: [String]?
        public var dpopBoundTokensRequired: Bool
        public var resourceName: String?

        enum CodingKeys: String, CodingKey {
            case resource, authorizationServers = "authorization_servers", scopesSupported = "scopes_supported"
            case bearerMethodsSupported = "bearer_methods_supported", dpopSigningAlgorithms = "dpop_signing_alg_values_supported"
            case dpopBoundTokensRequired = "dpop_bound_access_tokens_required", resourceName = "resource_name"
        }

        init(
            resource: String, authorizationServers: [String], scopesSupported: [String]?, dpopSigningAlgorithms: [String]?,
            dpopBoundTokensRequired: Bool, resourceName: String?
        ) {
            self.resource = resource
            self.authorizationServers = authorizationServers
            self.scopesSupported = scopesSupported
            self.dpopSigningAlgorithms = dpopSigningAlgorithms
            self.dpopBoundTokensRequired = dpopBoundTokensRequired
            self.resourceName = resourceName
        }

        /// The document as JSON, keys sorted.
        public func json() -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(self)) ?? Data("{}".utf8)
        }
    }
}
