import Crypto
import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The algorithms DPoP proofs may be signed with, as metadata lists them.
    static let proofAlgorithms = ["ES256", "EdDSA", "RS256", "PS256"]

    /// A DPoP proof that passed every check: the thumbprint of its key (RFC 7638), which tokens are bound to.
    struct VerifiedProof {
        let thumbprint: String
    }

    /// Checks the request's DPoP proof as RFC 9449 §4.3 lists: one well-formed JWT typed `dpop+jwt`, signed with
    /// an asymmetric algorithm by the public key in its header (no private members), `htm` and `htu` of this
    /// request, `iat` within ``Settings/proofWindow`` of the clock, a `jti` not seen before, the current nonce
    /// when nonces are required, and `ath` of `accessToken` at a resource.
    ///
    /// - Parameters:
    ///   - accessToken: The access token the request presents, at a protected resource; nil at the token endpoint.
    /// - Returns: The proof's key, or nil when the request carries no proof.
    /// - Throws: `invalid_dpop_proof` or `use_dpop_nonce`: 400 at the authorization server, 401 with a `DPoP`
    ///   challenge at a resource (RFC 9449 §7.1).
    func checkProof(_ request: TransportRequest, accessToken: String?) async throws -> VerifiedProof? {
        let atResource = accessToken != nil
        func refuse(_ error: String, _ description: String) -> OAuthRefusal {
            guard atResource else { return OAuthRefusal(error, description) }
            return OAuthRefusal(
                error, description, status: 401,
                challenge: "DPoP error=\"\(error)\", error_description=\"\(description)\", algs=\"\(Self.proofAlgorithms.joined(separator: " "))\"")
        }
        guard let proof = Self.header("DPoP", of: request) else { return nil }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.decodeJSON(parts[0]), let claims = Self.decodeJSON(parts[1]) else {
            throw refuse("invalid_dpop_proof", "the DPoP proof is not a JWT")
        }
        guard header["typ"]?.stringValue == "dpop+jwt" else { throw refuse("invalid_dpop_proof", "the proof's typ is not dpop+jwt") }
        guard let algorithm = header["alg"]?.stringValue, Self.proofAlgorithms.contains(algorithm) else {
            throw refuse("invalid_dpop_proof", "the proof's alg is not one of \(Self.proofAlgorithms.joined(separator: ", "))")
        }
        guard case let .object(jwk)? = header["jwk"] else { throw refuse("invalid_dpop_proof", "the proof's header has no jwk") }
        guard ["d", "p", "q", "dp", "dq", "qi", "k"].allSatisfy({ jwk[$0] == nil }) else {
            throw refuse("invalid_dpop_proof", "the proof's jwk holds a private key")
        }
        let kty = jwk["kty"]?.stringValue
        let fits =
            switch algorithm {
            case "ES256": kty == "EC" && jwk["crv"]?.stringValue == "P-256"
            case "EdDSA": kty == "OKP" && jwk["crv"]?.stringValue == "Ed25519"
            default: kty == "RSA"
            }
        guard fits else {
            throw refuse("invalid_dpop_proof", "the proof's jwk is not a key for \(algorithm)")
        }
        guard claims["htm"]?.stringValue == request.method.rawValue else { throw refuse("invalid_dpop_proof", "htm is not the request's method") }
        guard let htu = claims["htu"]?.stringValue, Self.normalizedTarget(htu) == Self.normalizedTarget(request.url.absoluteString) else {
            throw refuse("invalid_dpop_proof", "htu is not the request's URL")
        }
        let now = clock.now()
        guard let issued = claims["iat"]?.numberValue, abs(issued - now.timeIntervalSince1970) <= settings.proofWindow else {
            throw refuse("invalid_dpop_proof", "iat is missing or outside the accepted window")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.count <= 256 else {
            throw refuse("invalid_dpop_proof", "the proof has no jti")
        }
        if settings.requiresDPoPNonce, claims["nonce"]?.stringValue != dpopNonce {
            throw refuse("use_dpop_nonce", "the proof must carry the nonce given in DPoP-Nonce")
        }
        if let accessToken {
            let expected = Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))))
            guard claims["ath"]?.stringValue == expected else { throw refuse("invalid_dpop_proof", "ath is not the hash of the access token") }
        }
        seenProofs = seenProofs.filter { $0.value > now }
        guard seenProofs.updateValue(now.addingTimeInterval(2 * settings.proofWindow), forKey: jti) == nil else {
            throw refuse("invalid_dpop_proof", "the proof's jti was used before")
        }
        // The signature, with the key the proof carries, checked last: the cheap checks refuse most bad proofs first.
        guard let jws = try? CompactJWS(proof), let signedWith = JWSAlgorithm(rawValue: algorithm),
            await jws.verifies(algorithm: signedWith, publicJWK: jwk)
        else {
            throw refuse("invalid_dpop_proof", "the proof's signature does not verify with its jwk")
        }
        return VerifiedProof(thumbprint: Self.thumbprint(of: jwk))
    }

    /// RFC 7638 §3: the SHA-256 of the key's required members, in lexicographic order, base64url.
    static func thumbprint(of jwk: [String: JSONValue]) -> String {
        let required =
            switch jwk["kty"]?.stringValue {
            case "EC": ["crv", "kty", "x", "y"]
            case "OKP": ["crv", "kty", "x"]  // RFC 8037 §2
            default: ["e", "kty", "n"]
            }
        let members = required.map { name -> String in
            let value = String(decoding: (try? JSONEncoder().encode(jwk[name]?.stringValue ?? "")) ?? Data(), as: UTF8.self)
            return "\"\(name)\":\(value)"
        }
        return Base64URL.encode(Data(SHA256.hash(data: Data("{\(members.joined(separator: ","))}".utf8))))
    }

    /// A URL for `htu` comparison (RFC 9449 §4.3): without query and fragment, scheme and host in lower case,
    /// without the scheme's default port.
    static func normalizedTarget(_ text: String) -> String? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return nil }
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if scheme == "https" && components.port == 443 || scheme == "http" && components.port == 80 { components.port = nil }
        components.query = nil
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }

    /// A base64url segment of a JWT, as a JSON object.
    static func decodeJSON(_ segment: Substring) -> [String: JSONValue]? {
        guard let data = Base64URL.decode(String(segment)) else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: data)
    }

    /// Makes the next DPoP proofs need a new nonce: the next request is answered `use_dpop_nonce` (RFC 9449 §8.2).
    public func rotateDPoPNonce() {
        dpopNonce = Base64URL.random(bytes: 16)
    }
}
