import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// A private key that signs compact JWS (RFC 7515) with jwt-kit: the one place OAuthFlow signs with a key it holds
/// (client assertions and client secrets, request objects, DPoP proofs, and the simulated provider's tokens).
///
/// An RSA key of 2048 bits or more (RS256, PS256), a P-256 key (ES256) or an Ed25519 key (EdDSA, RFC 8037). The key
/// material never leaves: no description, no error message quotes it.
package struct JWSPrivateKey: Sendable {
    /// The kinds of key, with the algorithms each signs with (the first is its default).
    package enum Kind: Sendable, Hashable {
        case rsa, ec, ed25519

        package var algorithms: [JWSAlgorithm] {
            switch self {
            case .rsa: [.rs256, .ps256]
            case .ec: [.es256]
            case .ed25519: [.eddsa]
            }
        }

        /// The kind of key that signs with `algorithm`; nil for an algorithm no kind here signs with.
        package init?(signing algorithm: JWSAlgorithm) {
            guard let kind = [Kind.rsa, .ec, .ed25519].first(where: { $0.algorithms.contains(algorithm) }) else { return nil }
            self = kind
        }
    }

    private enum Material: Sendable {
        case rsa(JWTKit.Insecure.RSA.PrivateKey)
        case ec(ES256PrivateKey)
        case ed25519(EdDSA.PrivateKey)
    }

    private let material: Material

    package var kind: Kind {
        switch material {
        case .rsa: .rsa
        case .ec: .ec
        case .ed25519: .ed25519
        }
    }

    /// A key from PEM text: RSA (PKCS#1 or PKCS#8), P-256 (SEC 1 or PKCS#8) or Ed25519 (PKCS#8), tried in that order, or
    /// only `kind`; nil for anything else.
    package init?(pem: String, kind: Kind? = nil) {
        if kind ?? .rsa == .rsa, let key = try? JWTKit.Insecure.RSA.PrivateKey(pem: pem) {
            material = .rsa(key)
        } else if kind ?? .ec == .ec, let key = try? ES256PrivateKey(pem: pem) {
            material = .ec(key)
        } else if kind ?? .ed25519 == .ed25519, let key = try? EdDSA.PrivateKey(pem: pem) {
            material = .ed25519(key)
        } else {
            return nil
        }
    }

    /// A key from a private JWK's members (RFC 7517, RFC 8037): `kty` RSA with `n`, `e`, `d` (and `p`, `q` when both
    /// are given), EC on P-256 with `d`, or OKP on Ed25519 with `d`, whose `x`, when given, must be its public half.
    /// Nil for anything else.
    package init?(jwk members: [String: String]) {
        guard let d = members["d"] else { return nil }
        switch members["kty"] {
        case "RSA":
            guard let n = members["n"], let e = members["e"] else { return nil }
            let key =
                if let p = members["p"], let q = members["q"] {
                    try? JWTKit.Insecure.RSA.PrivateKey(modulus: n, exponent: e, privateExponent: d, prime1: p, prime2: q)
                } else {
                    try? JWTKit.Insecure.RSA.PrivateKey(modulus: n, exponent: e, privateExponent: d)
                }
            guard let key else { return nil }
            material = .rsa(key)
        case "EC":
            guard members["crv"] == "P-256", let key = try? ES256PrivateKey(key: d) else { return nil }
            material = .ec(key)
        case "OKP":
            guard members["crv"] == "Ed25519", let key = try? EdDSA.PrivateKey(d: d, curve: .ed25519) else { return nil }
            // A mismatched pair is a mistake to report, not a key to sign with.
            if let x = members["x"], x != Base64URL.encode(key.publicKey.rawRepresentation) { return nil }
            material = .ed25519(key)
        default:
            return nil
        }
    }

    /// A new key pair of `kind` (RSA keys of 2048 bits), with its PKCS#8 PEM to keep it by.
    package static func generate(_ kind: Kind) throws -> (key: JWSPrivateKey, pem: String) {
        let pem =
            switch kind {
            case .ec: P256.Signing.PrivateKey().pemRepresentation
            case .ed25519: Curve25519.Signing.PrivateKey().pemRepresentation
            case .rsa: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
            }
        guard let key = JWSPrivateKey(pem: pem, kind: kind) else { throw JWTError(.malformed, "a new \(kind) key could not be read back") }
        return (key, pem)
    }

    /// The public key as a JWK's members (all strings): `kty` and `crv`, `x`, `y` or `n`, `e`.
    package var publicJWK: [String: String]? {
        switch material {
        case let .ec(key):
            guard let (x, y) = key.publicKey.parameters else { return nil }
            return ["kty": "EC", "crv": "P-256", "x": x, "y": y]
        case let .ed25519(key):
            return ["kty": "OKP", "crv": "Ed25519", "x": Base64URL.encode(key.publicKey.rawRepresentation)]
        case let .rsa(key):
            guard let (n, e) = try? key.publicKey.getKeyPrimitives() else { return nil }
            return ["kty": "RSA", "n": Base64URL.encode(n), "e": Base64URL.encode(e)]
        }
    }

    /// `claims` signed with `algorithm` (one of the key's ``Kind/algorithms``) as a compact JWS whose header holds
    /// `alg` and each of `typ`, `kid`, `x5t#S256` and `jwk` that is given.
    package func sign(
        _ claims: [String: JSONValue], algorithm: JWSAlgorithm, type: String? = nil, keyID: String? = nil, certificateThumbprint: String? = nil,
        jwk: [String: String]? = nil
    ) async throws -> String {
        var header = JWTHeader()
        header.alg = algorithm.rawValue
        if let type { header.typ = type }
        if let certificateThumbprint { header.x5tS256 = certificateThumbprint }
        if let jwk { header.jwk = jwk.mapValues { .string($0) } }
        let kid = keyID.map { JWKIdentifier(string: $0) }
        return try await collection(algorithm: algorithm, kid: kid).sign(JSONClaims(claims), kid: kid, header: header)
    }

    /// The signature of `input` itself under `algorithm` (what a JWS's third part encodes).
    package func signature(of input: [UInt8], algorithm: JWSAlgorithm) async throws -> [UInt8] {
        let kid = JWKIdentifier(string: "key")
        return try await collection(algorithm: algorithm, kid: kid).getKey(for: kid, alg: algorithm.rawValue).sign(input)
    }

    /// A jwt-kit key collection holding this key for `algorithm`, under `kid`.
    private func collection(algorithm: JWSAlgorithm, kid: JWKIdentifier?) async throws -> JWTKeyCollection {
        guard kind.algorithms.contains(algorithm) else {
            throw JWTError(.malformed, "a \(kind) key does not sign with \(algorithm.rawValue)")
        }
        let keys = JWTKeyCollection()
        switch material {
        case let .rsa(key) where algorithm == .ps256: await keys.add(pss: key, digestAlgorithm: .sha256, kid: kid)
        case let .rsa(key): await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        case let .ec(key): await keys.add(ecdsa: key, kid: kid)
        case let .ed25519(key): await keys.add(eddsa: key, kid: kid)
        }
        return keys
    }

    /// `claims` signed with HS256 under `secret` (`client_secret_jwt`, RFC 7523 §2.2), `typ` in the header when given.
    ///
    /// - Throws: ``JWTError`` for a secret shorter than 32 bytes: RFC 7518 §3.2 asks an HS256 key to be at least as long
    ///   as the hash, and nothing is signed with a shorter one.
    package static func signHS256(_ claims: [String: JSONValue], secret: String, type: String? = nil) async throws -> String {
        guard secret.utf8.count >= 32 else {
            throw JWTError(.malformed, "HS256 signs with a key of at least 32 bytes (RFC 7518 §3.2), and the secret is shorter")
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        var header = JWTHeader()
        if let type { header.typ = type }
        return try await keys.sign(JSONClaims(claims), header: header)
    }
}
