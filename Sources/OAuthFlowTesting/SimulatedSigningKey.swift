import Crypto
import CryptoExtras
import Foundation
import JWTKit
import OAuthFlow

/// One of a simulated provider's signing keys: it signs ID tokens, JWT access tokens and logout tokens, and
/// is published in the key set with its `kid`.
struct SimulatedSigningKey: Sendable {
    let kid: String
    let algorithm: JWSAlgorithm
    /// The public key as a JWK, with `kid`, `alg` and `use`.
    let publicJWK: [String: String]
    private let material: Material

    private enum Material: Sendable {
        case ec(ES256PrivateKey)
        case rsa(JWTKit.Insecure.RSA.PrivateKey)
        case ed25519(EdDSA.PrivateKey)
    }

    /// A new key: P-256 for ES256, RSA 2048 for RS256, Ed25519 for EdDSA.
    static func generate(_ algorithm: JWSAlgorithm) throws -> SimulatedSigningKey {
        let kid = Base64URL.random(bytes: 9)
        switch algorithm {
        case .es256:
            let key = ES256PrivateKey()
            guard let (x, y) = key.publicKey.parameters else { throw SimulationError("cannot read the new P-256 key") }
            return SimulatedSigningKey(
                kid: kid, algorithm: algorithm,
                publicJWK: ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "alg": "ES256", "use": "sig"], material: .ec(key))
        case .rs256:
            let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
            let key = try JWTKit.Insecure.RSA.PrivateKey(pem: pem)
            let (n, e) = try key.publicKey.getKeyPrimitives()
            return SimulatedSigningKey(
                kid: kid, algorithm: algorithm,
                publicJWK: ["kty": "RSA", "n": Base64URL.encode(n), "e": Base64URL.encode(e), "kid": kid, "alg": "RS256", "use": "sig"],
                material: .rsa(key))
        case .eddsa:
            let key = try EdDSA.PrivateKey(curve: .ed25519)
            return SimulatedSigningKey(
                kid: kid, algorithm: algorithm,
                publicJWK: [
                    "kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(key.publicKey.rawRepresentation), "kid": kid, "alg": "EdDSA", "use": "sig",
                ],
                material: .ed25519(key))
        default:
            throw SimulationError("a simulated provider signs with ES256, RS256 or EdDSA, not \(algorithm.rawValue)")
        }
    }

    /// A compact JWS of `claims`, with `kid` (unless `namingKey` is false) and, when given, `typ` in its header.
    func sign(_ claims: [String: JSONValue], type: String? = nil, namingKey: Bool = true) async throws -> String {
        var header = JWTHeader()
        header.typ = type
        let keys = JWTKeyCollection()
        let id = JWKIdentifier(string: kid)
        switch material {
        case let .ec(key): await keys.add(ecdsa: key, kid: id)
        case let .rsa(key): await keys.add(rsa: key, digestAlgorithm: .sha256, kid: id)
        case let .ed25519(key): await keys.add(eddsa: key, kid: id)
        }
        // Without a kid, the collection's only key (its default) signs and the header names none.
        return try await keys.sign(JSONClaims(claims), kid: namingKey ? id : nil, header: header)
    }
}
