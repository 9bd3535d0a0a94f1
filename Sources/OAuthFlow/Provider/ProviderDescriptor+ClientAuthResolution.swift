import Foundation

extension ProviderDescriptor.ClientAuth {
    func assertionPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.ClientAssertionPolicy {
        // Without `assertion_algs`, every algorithm OAuthFlow signs client assertions with, which it accepts as they are.
        let algorithms =
            assertionAlgs.map { names in
                refusals.algorithms(names, ["client_auth", "assertion_algs"], accepted: JWSAlgorithm.clientAssertion) {
                    "lists `\($0)`; OAuthFlow signs client assertions with \(JWSAlgorithm.listed(JWSAlgorithm.clientAssertion))"
                }
            } ?? JWSAlgorithm.clientAssertion
        return .init(audience: assertionAudience, algorithms: algorithms)
    }

    func generatedSecretPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.GeneratedSecretPolicy? {
        guard let generatedSecret else { return nil }
        // `{client_id}` stays for the client to fill when it signs.
        let issuer = refusals.filled(generatedSecret.issuer, ["client_auth", "generated_secret", "issuer"], keeping: ["client_id"])
        let audience = refusals.filled(generatedSecret.audience, ["client_auth", "generated_secret", "audience"], keeping: ["client_id"])
        if !supported.contains(where: { $0 == .clientSecretPost || $0 == .clientSecretBasic }) {
            refusals.refuse(["client_auth", "generated_secret"], "is sent as a client secret: list `client_secret_post` or `client_secret_basic`")
        }
        return .init(issuer: issuer, audience: audience, lifetime: TimeInterval(min(max(60, generatedSecret.lifetime), 15_777_000)))
    }
}

extension Provider.Policy {
    /// The `aud` a client assertion carries, and the algorithms the provider takes for it.
    public struct ClientAssertionPolicy: Sendable, Hashable {
        public var audience: ProviderDescriptor.AssertionAudience
        public var algorithms: [JWSAlgorithm]
    }

    /// The claims of a client secret the engine signs (Sign in with Apple), variables filled in.
    public struct GeneratedSecretPolicy: Sendable, Hashable {
        public var issuer: String
        public var audience: String
        public var lifetime: TimeInterval
    }
}
