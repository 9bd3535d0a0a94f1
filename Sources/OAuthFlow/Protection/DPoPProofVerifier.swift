import Crypto
import CryptoExtras
import Foundation

/// Checks the DPoP proof sent with a DPoP-bound access token (RFC 9449 §4.3, §7.1).
///
/// The proof must be one JWT with header `typ: dpop+jwt`, an asymmetric `alg` of ``algorithms``,
/// and the public `jwk` that verifies its signature (a private key is refused); its claims must
/// name the request (`htm`, and `htu` without query or fragment), be recent (`iat` within
/// ``window``), carry a `jti` never seen within that window, hash the access token (`ath`), and,
/// when ``nonces`` is set, carry a current nonce. Finally the key's RFC 7638 thumbprint must be the
/// token's `cnf.jkt`.
struct DPoPProofVerifier: Sendable {
    /// The proof algorithms accepted.
    static let algorithms: [JWSAlgorithm] = [.es256, .es384, .es512, .eddsa, .rs256, .ps256]
    /// The largest proof read.
    static let maximumSize = 8 * 1024

    let window: TimeInterval
    let replays: InMemoryReplayRegistry
    let nonces: DPoPNonceSource?

    /// Checks `proofs` (every `DPoP` header of the request) for `accessToken`, bound to `thumbprint`.
    ///
    /// - Throws: ``ProtectedResource/Denial`` `invalid_dpop_proof`, or `use_dpop_nonce` when only the nonce is missing or old.
    func check(_ proofs: [String], accessToken: String, thumbprint: String, method: String, url: URL?, now: Date) throws(ProtectedResource.Denial) {
        func refuse(_ why: String) -> ProtectedResource.Denial { ProtectedResource.Denial(.invalidDPoPProof, why) }
        guard proofs.count == 1, let proof = proofs.first else {
            throw refuse(proofs.isEmpty ? "the DPoP-bound token came without a DPoP proof" : "the request carries \(proofs.count) DPoP headers")
        }
        guard proof.utf8.count <= Self.maximumSize else { throw refuse("the DPoP proof is larger than \(Self.maximumSize) bytes") }
        let jws: CompactJWS
        do { jws = try CompactJWS(proof) } catch { throw refuse("the DPoP proof is not a JWT: \(error)") }
        guard jws.header["typ"]?.stringValue?.lowercased() == "dpop+jwt" else { throw refuse("the proof's `typ` is not `dpop+jwt`") }
        guard let name = jws.algorithmName, let algorithm = JWSAlgorithm(rawValue: name), Self.algorithms.contains(algorithm) else {
            throw refuse("the proof's `alg` is not one of \(Self.algorithms.map(\.rawValue).joined(separator: ", "))")
        }
        guard case let .object(jwk)? = jws.header["jwk"] else { throw refuse("the proof's header has no `jwk`") }
        let key = try ProofKey(jwk)
        guard key.verifies(jws, algorithm: algorithm) else { throw refuse("the proof's signature does not verify with its `jwk`") }
        guard ConstantTime.equals(key.thumbprint, thumbprint) else {
            throw refuse("the proof is signed with another key than the one the token is bound to (`cnf.jkt`)")
        }
        let claims = jws.claims
        guard claims["htm"]?.stringValue == method else { throw refuse("the proof's `htm` is not \(method)") }
        guard let url, let htu = claims["htu"]?.stringValue, let expected = Self.normalized(url), Self.normalized(htu) == expected else {
            throw refuse(
                url == nil
                    ? "the API did not say which URL the request addressed, so `htu` cannot be checked"
                    : "the proof's `htu` is not this request's URL")
        }
        guard let issued = claims["iat"]?.numericDate else { throw refuse("the proof has no `iat` (a number of seconds)") }
        guard abs(now.timeIntervalSince1970 - issued) <= window else {
            throw refuse("the proof's `iat` is more than \(Int(window)) s from now")
        }
        let tokenHash = Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))))
        guard let ath = claims["ath"]?.stringValue, ConstantTime.equals(ath, tokenHash) else {
            throw refuse("the proof's `ath` is not the hash of the access token")
        }
        if let nonces {
            guard let nonce = claims["nonce"]?.stringValue, nonces.isCurrent(nonce, now: now) else {
                throw ProtectedResource.Denial(.useDPoPNonce, "the proof carries no current nonce of this resource")
            }
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256 else { throw refuse("the proof has no usable `jti`") }
        guard replays.firstUse(of: thumbprint + " " + jti, until: now.addingTimeInterval(2 * window), now: now) else {
            throw refuse("the proof's `jti` was used before (a replayed proof)")
        }
    }

    /// A URL as `htu` compares it (RFC 9449 §4.3 step 9, RFC 3986 §6.2.2–6.2.3): scheme and host in
    /// lower case, the default port dropped, an empty path as `/`, no query or fragment.
    static func normalized(_ url: URL) -> String? { normalized(url.absoluteString) }

    static func normalized(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
            !host.isEmpty
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(host)\(port)\(path)"
    }
}

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

/// The nonces a protected resource asks DPoP proofs to carry (RFC 9449 §9), made without state:
/// a time slot and its HMAC under a key of the process. A nonce is current during its slot and the next.
public struct DPoPNonceSource: Sendable {
    private let key: SymmetricKey
    /// How long one slot lasts.
    public let slot: TimeInterval

    public init(slot: TimeInterval = 300) {
        key = SymmetricKey(size: .bits256)
        self.slot = max(1, slot)
    }

    /// The nonce to send now, in `DPoP-Nonce`.
    public func current(now: Date = Date()) -> String { nonce(for: Int64(now.timeIntervalSince1970 / slot)) }

    func isCurrent(_ nonce: String, now: Date) -> Bool {
        let present = Int64(now.timeIntervalSince1970 / slot)
        return [present, present - 1].contains { ConstantTime.equals(nonce, self.nonce(for: $0)) }
    }

    private func nonce(for slot: Int64) -> String {
        var bytes = withUnsafeBytes(of: slot.bigEndian) { Array($0) }
        bytes += Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key)).prefix(16)
        return Base64URL.encode(Data(bytes))
    }
}
