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
    let replays: ProofReplayWindow
    let nonces: ProtectedResource.DPoPNonceSource?

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
        // Held while the proof can be accepted, until `iat` + the window (and a second), not longer: an entry kept past
        // that guards nothing and takes room other clients' proofs need.
        switch replays.use(key: thumbprint, jti: jti, until: Date(timeIntervalSince1970: issued + window + 1), now: now) {
        case .first: break
        case .again: throw refuse("the proof's `jti` was used before (a replayed proof)")
        case .keyFull: throw refuse("too many recent proofs of this key are held for the replay check; try again shortly")
        case .full: throw refuse("too many recent proofs are held for the replay check; try again shortly")
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
