import Crypto
import Foundation

extension ClientConfiguration {
    /// The private key a client signs its `private_key_jwt` assertions with (RFC 7523 §2.2, OpenID Connect Core §9).
    ///
    /// Read from a PEM (PKCS#8, PKCS#1 RSA or SEC 1 EC; an Ed25519 key in PKCS#8) or a private JWK, never from a descriptor; the
    /// key material stays inside: `description` names only the algorithm and key id.
    ///
    /// ```swift
    /// let key = try ClientConfiguration.SigningKey(pem: String(contentsOfFile: "/run/secrets/client.pem"), keyID: "2024-06")
    /// ```
    public struct SigningKey: Sendable, Hashable, CustomStringConvertible {
        /// The algorithm the assertions are signed with: RS256, PS256, ES256 or EdDSA (Ed25519).
        public let algorithm: JWSAlgorithm
        /// The `kid` header: which of the client's registered keys this is.
        public let keyID: String?
        /// The `x5t#S256` header: the SHA-256 thumbprint of the key's certificate, when one was given.
        public let certificateThumbprint: String?
        private let key: JWSPrivateKey
        /// Identifies the key material for equality without holding it in the clear.
        private let fingerprint: String

        /// The algorithms a private key signs with.
        public static let algorithms: [JWSAlgorithm] = [.rs256, .ps256, .es256, .eddsa]

        /// A key from PEM text.
        ///
        /// - Parameters:
        ///   - pem: The private key, PEM-encoded: an RSA key of 2048 bits or more, a P-256 key, or an Ed25519 key (PKCS#8).
        ///   - algorithm: RS256 (the default for RSA) or PS256 for an RSA key; ES256 for a P-256 key; EdDSA for an Ed25519 key.
        ///   - keyID: The `kid` the server registered the key under.
        ///   - certificatePEM: The key's certificate, to send its `x5t#S256`.
        /// - Throws: ``FlowError`` `clientAuthentication` when the text is no RSA (2048 bits or more), P-256 or Ed25519 private key,
        ///   or the algorithm does not fit it; the message never quotes the key.
        public init(pem: String, algorithm: JWSAlgorithm? = nil, keyID: String? = nil, certificatePEM: String? = nil) throws {
            guard let key = JWSPrivateKey(pem: pem) else {
                throw FlowError(
                    .clientAuthentication,
                    "the client's private key is not an RSA (2048 bits or more), P-256 or Ed25519 private key in PEM (`-----BEGIN PRIVATE KEY-----`)"
                )
            }
            let what =
                switch key.kind {
                case .rsa: "an RSA key"
                case .ec: "a P-256 key"
                case .ed25519: "an Ed25519 key"
                }
            self.algorithm = try Self.choose(algorithm, for: key.kind, what)
            self.key = key
            self.keyID = keyID
            self.certificateThumbprint = certificatePEM.flatMap(TLSClientIdentity.thumbprint(ofPEM:))
            self.fingerprint = Self.fingerprint(of: pem)
        }

        /// A key from a private JWK (RFC 7517: `kty` RSA with `d`, EC P-256 with `d`, or OKP Ed25519 with `d`, RFC 8037); its `kid` and `alg` are used
        /// unless `keyID` or `algorithm` say otherwise.
        ///
        /// - Throws: ``FlowError`` `clientAuthentication` when it is not such a JWK.
        public init(jwk: String, algorithm: JWSAlgorithm? = nil, keyID: String? = nil, certificatePEM: String? = nil) throws {
            guard let object = try? JSONSerialization.jsonObject(with: Data(jwk.utf8)) as? [String: Any],
                let type = object["kty"] as? String, object["d"] is String
            else {
                throw FlowError(.clientAuthentication, "the client's key is not a private JWK (a JSON object with `kty` and `d`)")
            }
            let named = (object["alg"] as? String).flatMap(JWSAlgorithm.init(rawValue:))
            let chosen: JWSAlgorithm
            switch type {
            case "RSA":
                chosen = try Self.choose(algorithm ?? named, for: .rsa, "an RSA JWK")
            case "EC":
                guard object["crv"] as? String == "P-256" else {
                    throw FlowError(.clientAuthentication, "the client's EC JWK is not on P-256; OAuthFlow signs with ES256 only")
                }
                chosen = try Self.choose(algorithm ?? named, for: .ec, "a P-256 JWK")
            case "OKP":
                guard object["crv"] as? String == "Ed25519" else {
                    let curve = TerminalText.escaped(String((object["crv"] as? String ?? "none").prefix(20)))
                    throw FlowError(
                        .clientAuthentication, "the client's OKP JWK is on curve `\(curve)`; OAuthFlow signs EdDSA with Ed25519 keys only (RFC 8037)")
                }
                chosen = try Self.choose(algorithm ?? named, for: .ed25519, "an Ed25519 JWK")
            default:
                throw FlowError(
                    .clientAuthentication, "the client's JWK has `kty` \(TerminalText.escaped(String(type.prefix(20)))); RSA, EC or OKP expected")
            }
            let kid = keyID ?? object["kid"] as? String
            let members = object.compactMapValues { $0 as? String }
            guard let key = JWSPrivateKey(jwk: members) else {
                throw FlowError(.clientAuthentication, "the client's JWK cannot be used as a \(chosen.rawValue) signing key")
            }
            self.key = key
            self.algorithm = chosen
            self.keyID = kid
            self.certificateThumbprint = certificatePEM.flatMap(TLSClientIdentity.thumbprint(ofPEM:))
            self.fingerprint = Self.fingerprint(of: jwk)
        }

        /// A key from a file's text: a JWK when it starts with `{`, PEM otherwise.
        public init(text: String, algorithm: JWSAlgorithm? = nil, keyID: String? = nil, certificatePEM: String? = nil) throws {
            if text.drop(while: \.isWhitespace).hasPrefix("{") {
                try self.init(jwk: text, algorithm: algorithm, keyID: keyID, certificatePEM: certificatePEM)
            } else {
                try self.init(pem: text, algorithm: algorithm, keyID: keyID, certificatePEM: certificatePEM)
            }
        }

        /// The signature of `input` itself with this key's algorithm.
        func signature(of input: [UInt8]) async throws -> [UInt8] { try await key.signature(of: input, algorithm: algorithm) }

        /// `claims` signed with this key: `alg`, its `kid`, and `typ` and the certificate's `x5t#S256` when asked for.
        func sign(_ claims: [String: JSONValue], type: String?, withThumbprint: Bool = false) async throws -> String {
            try await key.sign(
                claims, algorithm: algorithm, type: type, keyID: keyID, certificateThumbprint: withThumbprint ? certificateThumbprint : nil)
        }

        public var description: String { "\(algorithm.rawValue) key\(keyID.map { " `\($0)`" } ?? "")" }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.fingerprint == rhs.fingerprint && lhs.algorithm == rhs.algorithm && lhs.keyID == rhs.keyID
                && lhs.certificateThumbprint == rhs.certificateThumbprint
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

        /// Names this key among others without revealing it: a digest of the key, its algorithm and Key ID.
        var identity: String { "\(fingerprint):\(algorithm.rawValue):\(keyID ?? "")" }

        private static func fingerprint(of text: String) -> String {
            Base64URL.encode(Data(SHA256.hash(data: Data(text.utf8))))
        }

        /// The algorithm asked for, or the kind's default; one the key cannot sign with is refused.
        private static func choose(_ asked: JWSAlgorithm?, for kind: JWSPrivateKey.Kind, _ what: String) throws -> JWSAlgorithm {
            let chosen = asked ?? kind.algorithms[0]
            guard kind.algorithms.contains(chosen) else {
                let fits = kind.algorithms.map(\.rawValue).joined(separator: " or ")
                throw FlowError(.clientAuthentication, "the client's key is \(what), which signs with \(fits), not \(chosen.rawValue)")
            }
            return chosen
        }
    }
}
