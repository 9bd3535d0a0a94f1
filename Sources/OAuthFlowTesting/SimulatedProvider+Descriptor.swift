import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// What a descriptor for the simulated provider says, beyond its endpoints: a test describes the provider
    /// the way the host's own descriptor describes the real one.
    public struct DescriptorOptions: Sendable {
        /// The provider id (and file name).
        public var id = "simulated"
        /// Leave the endpoints out and find them through discovery (`discovery.mode: oidc`).
        public var usesDiscovery = false
        /// Push authorization requests (RFC 9126): `authorization.pushed: always`, else `never`.
        public var pushesAuthorizationRequests = false
        /// Bind tokens with DPoP: `security.dpop: required`, else `never`.
        public var bindsTokensWithDPoP = false
        /// The algorithms of the session's DPoP key, in order of preference (`security.dpop_signing_alg_values_supported`);
        /// nil leaves the descriptor's default (ES256).
        public var dpopAlgorithms: [JWSAlgorithm]?
        /// The access tokens are JWTs an API verifies itself (`access_tokens.format: jwt`), else opaque and introspected.
        public var accessTokensAreJWTs = false
        /// How the client may authenticate (`client_auth.methods`), in the order the engine tries them: the first whose
        /// credential the client holds is used.
        public var clientAuthentication: [ProviderDescriptor.ClientAuthMethod] = [.none, .clientSecretBasic, .clientSecretPost]
        /// The `aud` of the client's assertions (`client_auth.assertion_audience`): the issuer, or the token endpoint.
        public var assertionAudience = ProviderDescriptor.AssertionAudience.issuer
        /// How the provider answers (`authorization.response_mode`): `jwt`, `query.jwt` and `form_post.jwt` have it sign
        /// the answer (JARM), which the engine verifies.
        public var responseMode = ProviderDescriptor.ResponseMode.query
        /// Whether the authorization request goes in a request object the client signs (`authorization.request_object`, RFC 9101).
        public var requestObject = ProviderDescriptor.RequestObject.never
        /// The default scopes.
        public var scopes = ["openid", "profile", "email", "offline_access"]
        /// More top-level YAML, appended as written (keys not written above).
        public var extra = ""

        public init() {}
    }

    /// The descriptor's YAML text: the provider's endpoints and what `options` say, as a host would write it.
    public nonisolated func descriptorText(_ options: DescriptorOptions = DescriptorOptions()) -> String {
        var lines = [
            "schema_version: 1", "id: \(options.id)", "display_name: Simulated provider", "protocol: oidc", "issuer: \(issuer.absoluteString)",
            "discovery:", "  mode: \(options.usesDiscovery ? "oidc" : "none")",
        ]
        if !options.usesDiscovery {
            lines.append("endpoints:")
            let named: [(String, Endpoint)] = [
                ("authorization", .authorization), ("token", .token), ("userinfo", .userinfo), ("jwks", .jwks), ("revocation", .revocation),
                ("introspection", .introspection), ("device_authorization", .deviceAuthorization),
            ]
            lines += named.map { "  \($0.0): \(url($0.1).absoluteString)" }
            if options.pushesAuthorizationRequests { lines.append("  pushed_authorization: \(url(.pushedAuthorization).absoluteString)") }
        }
        lines += [
            "scopes:", "  default: [\(options.scopes.joined(separator: ", "))]", "  offline:", "    scopes: [offline_access]",
            "    without_consent_prompt: true",
            "grant_types: [\(GrantType.simulated.map(\.rawValue).joined(separator: ", "))]",
            "client_auth:", "  methods: [\(options.clientAuthentication.map(\.rawValue).joined(separator: ", "))]",
        ]
        if options.clientAuthentication.contains(where: \.usesAssertion) {
            lines.append("  assertion_audience: \(options.assertionAudience.rawValue)")
        }
        lines += [
            "authorization:", "  pushed: \(options.pushesAuthorizationRequests ? "always" : "never")",
        ]
        if options.responseMode != .query { lines.append("  response_mode: \(options.responseMode.rawValue)") }
        if options.responseMode.isJWT, !ProviderDescriptor.Authorization().responseAlgs.contains(keyAlgorithm.rawValue) {
            lines.append("  response_algs: [\(keyAlgorithm.rawValue)]")
        }
        if options.requestObject != .never { lines.append("  request_object: \(options.requestObject.rawValue)") }
        lines += [
            "security:", "  pkce: required", "  pkce_method: S256", "  iss_parameter: required", "  nonce: true",
            "  dpop: \(options.bindsTokensWithDPoP ? "required" : "never")",
        ]
        // The defaults accept RS256 and ES256; a provider signing with another algorithm (EdDSA) says so, as its host would.
        let signing = keyAlgorithm.rawValue
        if !ProviderDescriptor.Security().idTokenAlgs.contains(signing) { lines.append("  id_token_algs: [\(signing)]") }
        if let algorithms = options.dpopAlgorithms {
            lines.append("  dpop_signing_alg_values_supported: [\(algorithms.map(\.rawValue).joined(separator: ", "))]")
        }
        lines.append(contentsOf: ["access_tokens:", "  format: \(options.accessTokensAreJWTs ? "jwt" : "opaque")"])
        if !ProviderDescriptor.AccessTokenSettings().signingAlgs.contains(signing) { lines.append("  signing_algs: [\(signing)]") }
        return lines.joined(separator: "\n") + "\n" + options.extra
    }

    /// The descriptor, parsed as the registry parses a file.
    ///
    /// - Throws: ``SimulationError`` listing the problems when `options.extra` breaks it.
    public nonisolated func descriptor(_ options: DescriptorOptions = DescriptorOptions()) throws -> ProviderDescriptor {
        let document = DescriptorDocument.parse(Data(descriptorText(options).utf8), path: "\(options.id).yaml")
        guard let descriptor = document.descriptor else {
            throw SimulationError("the simulated provider's descriptor does not parse: \(document.problems)")
        }
        return descriptor
    }

    /// The resolved provider, ready for `OAuthClient` and the rest of the engine.
    public nonisolated func provider(_ options: DescriptorOptions = DescriptorOptions()) throws -> Provider {
        try descriptor(options).resolve([:])
    }
}
