import Foundation
import OAuthFlow

/// One of a simulated provider's signing keys: it signs ID tokens, JWT access tokens and logout tokens, and
/// is published in the key set with its `kid`.
struct SimulatedSigningKey: Sendable {
    let kid: String
    let algorithm: JWSAlgorithm
    /// The public key as a JWK, with `kid`, `alg` and `use`.
    let publicJWK: [String: String]
    private let key: JWSPrivateKey

    /// A new key: P-256 for ES256, RSA 2048 for RS256, Ed25519 for EdDSA.
    static func generate(_ algorithm: JWSAlgorithm) throws -> SimulatedSigningKey {
        guard [.es256, .rs256, .eddsa].contains(algorithm), let kind = JWSPrivateKey.Kind(signing: algorithm) else {
            throw SimulationError("a simulated provider signs with ES256, RS256 or EdDSA, not \(algorithm.rawValue)")
        }
        let key = try JWSPrivateKey.generate(kind).key
        guard let jwk = key.publicJWK else { throw SimulationError("cannot read the new \(algorithm.rawValue) key's public half") }
        let kid = Base64URL.random(bytes: 9)
        return SimulatedSigningKey(
            kid: kid, algorithm: algorithm, publicJWK: jwk.merging(["kid": kid, "alg": algorithm.rawValue, "use": "sig"]) { $1 }, key: key)
    }

    /// A compact JWS of `claims`, with `kid` (unless `namingKey` is false) and, when given, `typ` in its header.
    func sign(_ claims: [String: JSONValue], type: String? = nil, namingKey: Bool = true) async throws -> String {
        try await key.sign(claims, algorithm: algorithm, type: type, keyID: namingKey ? kid : nil)
    }
}
