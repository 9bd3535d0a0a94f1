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
