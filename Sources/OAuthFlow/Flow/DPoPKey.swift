import Crypto
import Foundation

/// The key pair a session's tokens are bound to with DPoP (RFC 9449): made at sign-in, kept with the
/// session's tokens (``TokenSet/proofKey``), and used to sign a proof for every request those tokens go with.
///
/// The private key is kept as PKCS#8 PEM inside the session, so each token store seals it as it seals the
/// tokens; or, for a key a device holds (the Secure Enclave), the session keeps only a reference that its
/// ``DPoPKey/Keeper`` finds the key by (DPoPKey+Keeper.swift). `description` names only the algorithm and the public key's
/// thumbprint.
public struct DPoPKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// ES256 (the default), EdDSA (Ed25519), RS256 or PS256.
    public let algorithm: JWSAlgorithm
    /// The public key's JWK SHA-256 thumbprint (RFC 7638), base64url: the `dpop_jkt` and `cnf.jkt` value.
    public let thumbprint: String
    /// The public key as a JWK (its members, all strings).
    public let publicJWK: [String: String]
    /// The PKCS#8 PEM of a key the session holds; nil for one a keeper holds.
    let pem: Secret?
    let material: Material

    /// The algorithms a DPoP key can be made for.
    public static let algorithms = JWSAlgorithm.dpopKey

    enum Material: Sendable {
        /// Held in the session, as its PEM.
        case held(JWSPrivateKey)
        /// Held by a keeper (ES256): the session names it, ``ExternalKey``.
        case external(ExternalKey)
    }

    /// A new key pair: P-256 for ES256, Ed25519 for EdDSA, RSA 2048 for RS256 and PS256.
    ///
    /// Inside ``keeping(in:isolation:_:)``, the keeper makes it instead (ES256 only).
    /// - Throws: ``FlowError`` `dpop` for another algorithm.
    public static func generate(_ algorithm: JWSAlgorithm = .es256) throws -> DPoPKey {
        if let keeper = newKeysKeeper { return try generate(algorithm, in: keeper) }
        guard Self.algorithms.contains(algorithm), let kind = JWSPrivateKey.Kind(signing: algorithm) else {
            throw FlowError(.dpop, "DPoP keys are made for \(JWSAlgorithm.listed(Self.algorithms)), not \(algorithm.rawValue)")
        }
        return try DPoPKey(pem: JWSPrivateKey.generate(kind).pem, algorithm: algorithm)
    }

    /// A key kept earlier (its PEM and algorithm).
    ///
    /// - Throws: ``FlowError`` `dpop` when the text is not a private key of that algorithm; the message never quotes it.
    public init(pem: String, algorithm: JWSAlgorithm) throws {
        guard Self.algorithms.contains(algorithm), let kind = JWSPrivateKey.Kind(signing: algorithm) else {
            throw FlowError(.dpop, "DPoP keys are \(JWSAlgorithm.listed(Self.algorithms)), not \(algorithm.rawValue)")
        }
        guard let key = JWSPrivateKey(pem: pem, kind: kind), let jwk = key.publicJWK else {
            let what =
                switch kind {
                case .ec: "a P-256 private key"
                case .ed25519: "an Ed25519 private key"
                case .rsa: "an RSA private key of 2048 bits or more"
                }
            throw FlowError(.dpop, "the session's DPoP key is not \(what)")
        }
        material = .held(key)
        publicJWK = jwk
        self.algorithm = algorithm
        self.pem = Secret(pem)
        self.thumbprint = Self.thumbprint(of: publicJWK)
    }

    /// RFC 7638 §3: the SHA-256 of the required members in lexicographic order, without whitespace (an OKP key's
    /// are `crv`, `kty` and `x`, RFC 8037 §2).
    static func thumbprint(of jwk: [String: String]) -> String {
        let required =
            switch jwk["kty"] {
            case "EC": ["crv", "kty", "x", "y"]
            case "OKP": ["crv", "kty", "x"]
            default: ["e", "kty", "n"]
            }
        // The values are base64url or fixed names: nothing in them needs escaping.
        let members = required.map { "\"\($0)\":\"\(jwk[$0] ?? "")\"" }.joined(separator: ",")
        return Base64URL.encode(Data(SHA256.hash(data: Data("{\(members)}".utf8))))
    }

    /// A DPoP proof for one request (RFC 9449 §4.2).
    ///
    /// - Parameters:
    ///   - method: The request's method (`htm`).
    ///   - url: The request's URL; `htu` is it without query and fragment.
    ///   - accessToken: The access token sent with it, hashed into `ath` (resource requests).
    ///   - nonce: The server's latest `DPoP-Nonce`, when it gave one.
    ///   - now: The proof's `iat`.
    public func proof(method: TransportRequest.Method, url: URL, accessToken: Secret? = nil, nonce: String? = nil, now: Date = Date()) async throws
        -> String
    {
        try await proof(httpMethod: method.rawValue, url: url, accessToken: accessToken, nonce: nonce, now: now)
    }

    /// ``proof(method:url:accessToken:nonce:now:)`` for any HTTP method (an app's `PUT` or `PATCH`).
    package func proof(httpMethod: String, url: URL, accessToken: Secret?, nonce: String?, now: Date) async throws -> String {
        var claims: [String: JSONValue] = [
            "jti": .string(Base64URL.random(bytes: 16)), "htm": .string(httpMethod), "htu": .string(Self.target(of: url)),
            "iat": .number(Double(Int(now.timeIntervalSince1970))),
        ]
        if let accessToken { claims["ath"] = .string(Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.value.utf8))))) }
        if let nonce { claims["nonce"] = .string(nonce) }
        switch material {
        case let .external(key):
            let header: [String: JSONValue] = [
                "alg": .string("ES256"), "typ": .string("dpop+jwt"), "jwk": .object(publicJWK.mapValues { .string($0) }),
            ]
            return try key.sign(claims, header: header, thumbprint: thumbprint)
        case let .held(key):
            do {
                return try await key.sign(claims, algorithm: algorithm, type: "dpop+jwt", jwk: publicJWK)
            } catch {
                throw FlowError(.dpop, "cannot sign a DPoP proof with the session's \(algorithm.rawValue) key")
            }
        }
    }

    /// `htu` (RFC 9449 §4.2): the URL without query, fragment or user information.
    package static func target(of url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? url.absoluteString
    }

    public var description: String { "\(algorithm.rawValue) DPoP key \(thumbprint.prefix(8))…" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.thumbprint == rhs.thumbprint && lhs.algorithm == rhs.algorithm }

    public func hash(into hasher: inout Hasher) { hasher.combine(thumbprint) }

    enum CodingKeys: String, CodingKey { case algorithm = "alg", pem, keeper, reference = "ref", jwk }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .algorithm)
        guard let algorithm = JWSAlgorithm(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .algorithm, in: container, debugDescription: "not a DPoP key algorithm")
        }
        if container.contains(.keeper) {
            try self.init(external: container, algorithm: algorithm)
            return
        }
        do {
            try self.init(pem: try container.decode(Secret.self, forKey: .pem).value, algorithm: algorithm)
        } catch let error as FlowError {
            throw DecodingError.dataCorruptedError(forKey: .pem, in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(algorithm.rawValue, forKey: .algorithm)
        if case let .external(key) = material {
            try key.encode(into: &container, publicJWK: publicJWK)
        } else {
            try container.encodeIfPresent(pem, forKey: .pem)
        }
    }
}
