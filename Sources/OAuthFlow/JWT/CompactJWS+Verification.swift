import Foundation
import JWTKit

/// Checking a compact JWS's signature with a key given by the caller (a client secret, a proof's own public key);
/// a provider's published keys verify through ``SigningKeys``.
extension CompactJWS {
    /// Whether the signature is `algorithm` (HS256, HS384 or HS512) under `secret`. A secret shorter than the hash
    /// (RFC 7518 §3.2) verifies nothing.
    package func verifiesHMAC(algorithm: JWSAlgorithm, secret: String) async -> Bool {
        let digest: DigestAlgorithm
        switch algorithm {
        case .hs256: digest = .sha256
        case .hs384: digest = .sha384
        case .hs512: digest = .sha512
        default: return false
        }
        let bytes = algorithm.digestBits / 8
        guard secret.utf8.count >= bytes else { return false }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: digest, kid: "secret")
        guard let verifier = try? await keys.getKey(for: "secret") else { return false }
        return (try? verifier.verify(signature, signs: signingInput)) == true
    }

    /// Whether the signature verifies with the public JWK `members` under `algorithm` (a private key verifies nothing).
    package func verifies(algorithm: JWSAlgorithm, publicJWK members: [String: JSONValue]) async -> Bool {
        guard let verifier = await SigningKeys.verifier(for: members, algorithm: algorithm) else { return false }
        return (try? verifier.verify(signature, signs: signingInput)) == true
    }
}
