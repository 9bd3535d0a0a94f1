import Foundation

extension ProviderDescriptor.AccessTokenSettings {
    func resolved(_ refusals: inout PolicyRefusals) -> Provider.Policy.AccessTokenPolicy {
        let algorithms = refusals.algorithms(signingAlgs, ["access_tokens", "signing_algs"], accepted: JWSAlgorithm.publicKey) {
            "lists `\($0)`; an API verifies access tokens with the provider's public keys, so only RS, PS, ES and EdDSA algorithms are accepted"
        }
        if format != .opaque, signingAlgs.isEmpty {
            refusals.refuse(["access_tokens", "signing_algs"], "is empty, so no JWT access token could ever be accepted")
        }
        let audience = audience.map { refusals.filled($0, ["access_tokens", "audience"]) }
        return .init(
            format: format, profile: profile, algorithms: algorithms, audience: audience, leeway: TimeInterval(leeway),
            introspectionCache: TimeInterval(introspectionCache), inactiveCache: TimeInterval(inactiveCache),
            introspectedAudience: introspectedAudience)
    }
}

extension Provider.Policy {
    /// How an API checks the provider's access tokens (the descriptor's `access_tokens`).
    public struct AccessTokenPolicy: Sendable, Hashable {
        public var format: ProviderDescriptor.AccessTokenFormat
        public var profile: ProviderDescriptor.AccessTokenProfile
        /// The algorithms a JWT access token may be signed with: never `none`, never HMAC.
        public var algorithms: [JWSAlgorithm]
        /// The audience the descriptor states, variables filled in; nil when the API states its own.
        public var audience: String?
        /// The clock skew allowed on `exp`, `nbf` and `iat`.
        public var leeway: TimeInterval
        /// The longest an active introspection answer is reused.
        package var introspectionCache: TimeInterval
        /// How long an inactive introspection answer is reused.
        package var inactiveCache: TimeInterval
        /// Whether an introspection answer must name the API in `aud` (`access_tokens.introspected_audience`).
        package var introspectedAudience: ProviderDescriptor.AccessTokenSettings.IntrospectedAudience = .required
    }
}
