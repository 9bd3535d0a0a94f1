import Crypto
import CryptoExtras
import Foundation

/// The public key of a DPoP proof, from its `jwk` header, verified with swift-crypto.
struct ProofKey {
    private enum Key {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    private let key: Key
    /// RFC 7638 thumbprint, base64url.
    let thumbprint: String

    init(_ jwk: [String: JSONValue]) throws(ProtectedResource.Denial) {
        func refuse(_ why: String) -> ProtectedResource.Denial { ProtectedResource.Denial(.invalidDPoPProof, why) }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where jwk[member] != nil {
            throw refuse("the proof's `jwk` holds a private or symmetric key (`\(member)`)")
        }
        func part(_ name: String) throws(ProtectedResource.Denial) -> (text: String, bytes: [UInt8]) {
            guard let text = jwk[name]?.stringValue, text.utf8.count <= 1024, let bytes = Base64URL.decode(bytes: text.utf8), !bytes.isEmpty else {
                throw refuse("the proof's `jwk` has no base64url `\(name)`")
            }
            return (text, bytes)
        }
        do {
            switch (jwk["kty"]?.stringValue, jwk["crv"]?.stringValue) {
            case ("EC", let curve?):
                let x = try part("x")
                let y = try part("y")
                let raw = x.bytes + y.bytes
                switch curve {
                case "P-256": key = .p256(try P256.Signing.PublicKey(rawRepresentation: raw))
                case "P-384": key = .p384(try P384.Signing.PublicKey(rawRepresentation: raw))
                case "P-521": key = .p521(try P521.Signing.PublicKey(rawRepresentation: raw))
                default: throw refuse("the proof's `jwk` is on curve `\(TerminalText.escaped(String(curve.prefix(20))))`")
                }
                thumbprint = DPoPKey.thumbprint(of: ["kty": "EC", "crv": curve, "x": x.text, "y": y.text])
            case ("OKP", "Ed25519"):
                let x = try part("x")
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x.bytes))
                thumbprint = DPoPKey.thumbprint(of: ["kty": "OKP", "crv": "Ed25519", "x": x.text])
            case ("OKP", let curve):
                // RFC 8037: Ed448 signs too, and X25519/X448 are for key agreement; OAuthFlow verifies Ed25519 alone.
                throw refuse("the proof's `jwk` is an OKP key on curve `\(TerminalText.escaped(String((curve ?? "").prefix(20))))`, not Ed25519")
            case ("RSA", _):
                let n = try part("n")
                let e = try part("e")
                key = .rsa(try _RSA.Signing.PublicKey(n: n.bytes, e: e.bytes))
                thumbprint = DPoPKey.thumbprint(of: ["kty": "RSA", "n": n.text, "e": e.text])
            default:
                throw refuse("the proof's `jwk` is not an EC, OKP (Ed25519) or RSA public key")
            }
        } catch let denial as ProtectedResource.Denial {
            throw denial
        } catch {
            throw refuse("the proof's `jwk` is not a valid public key")
        }
    }

    func verifies(_ jws: CompactJWS, algorithm: JWSAlgorithm) -> Bool {
        let input = jws.signingInput
        switch (key, algorithm) {
        case let (.p256(key), .es256):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: input))
        case let (.p384(key), .es384):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: SHA384.hash(data: input))
        case let (.p521(key), .es512):
            guard let signature = try? P521.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: SHA512.hash(data: input))
        case let (.ed25519(key), .eddsa):
            return key.isValidSignature(jws.signature, for: input)
        case let (.rsa(key), .rs256):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: jws.signature), for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        case let (.rsa(key), .ps256):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jws.signature), for: SHA256.hash(data: input), padding: .PSS)
        default:
            return false
        }
    }
}
