/// A JWS algorithm OAuthFlow signs or verifies with (RFC 7518 §3.1; `none` is not one).
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    /// Ed25519 (RFC 8037 §3.1): a JWK `kty: OKP`, `crv: Ed25519`. Ed448 is not supported.
    case eddsa = "EdDSA"

    /// Whether it is an HMAC, verified with the client secret.
    public var isHMAC: Bool { [.hs256, .hs384, .hs512].contains(self) }

    public var description: String { rawValue }

    /// The algorithm named `rawValue`. ASCII names are read from their five bytes (every descriptor names several
    /// algorithms, and the synthesized initializer compared each name in turn); any other text is compared as the
    /// synthesized initializer compares it, so that no name is read differently.
    public init?(rawValue: String) {
        var text = rawValue
        let read: JWSAlgorithm?? = text.withUTF8 { bytes in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .none }
            guard bytes.count == 5 else { return .some(nil) }
            // Byte by byte: the generic comparison with a string's UTF-8 view cost more than the rest of this reading.
            if (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4])
                == (UInt8(ascii: "E"), UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "S"), UInt8(ascii: "A"))
            {
                return .some(.eddsa)
            }
            let bits: Int
            switch (bytes[2], bytes[3], bytes[4]) {
            case (UInt8(ascii: "2"), UInt8(ascii: "5"), UInt8(ascii: "6")): bits = 256
            case (UInt8(ascii: "3"), UInt8(ascii: "8"), UInt8(ascii: "4")): bits = 384
            case (UInt8(ascii: "5"), UInt8(ascii: "1"), UInt8(ascii: "2")): bits = 512
            default: return .some(nil)
            }
            switch (bytes[0], bytes[1], bits) {
            case (UInt8(ascii: "R"), UInt8(ascii: "S"), 256): return .some(.rs256)
            case (UInt8(ascii: "R"), UInt8(ascii: "S"), 384): return .some(.rs384)
            case (UInt8(ascii: "R"), UInt8(ascii: "S"), _): return .some(.rs512)
            case (UInt8(ascii: "P"), UInt8(ascii: "S"), 256): return .some(.ps256)
            case (UInt8(ascii: "P"), UInt8(ascii: "S"), 384): return .some(.ps384)
            case (UInt8(ascii: "P"), UInt8(ascii: "S"), _): return .some(.ps512)
            case (UInt8(ascii: "E"), UInt8(ascii: "S"), 256): return .some(.es256)
            case (UInt8(ascii: "E"), UInt8(ascii: "S"), 384): return .some(.es384)
            case (UInt8(ascii: "E"), UInt8(ascii: "S"), _): return .some(.es512)
            case (UInt8(ascii: "H"), UInt8(ascii: "S"), 256): return .some(.hs256)
            case (UInt8(ascii: "H"), UInt8(ascii: "S"), 384): return .some(.hs384)
            case (UInt8(ascii: "H"), UInt8(ascii: "S"), _): return .some(.hs512)
            default: return .some(nil)
            }
        }
        switch read {
        case let .some(algorithm?): self = algorithm
        case .some(nil): return nil
        case .none:
            guard let algorithm = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = algorithm
        }
    }

    /// The digest size in bits (256, 384, 512): the hash `at_hash` and the HMAC use.
    ///
    /// EdDSA's is 512: Ed25519 hashes with SHA-512 (RFC 8032 §5.1), and OpenID Connect takes the hash of the
    /// algorithm's curve for `at_hash` and `c_hash` (SHA-512 for Ed25519).
    public var digestBits: Int {
        switch self {
        case .rs256, .ps256, .es256, .hs256: 256
        case .rs384, .ps384, .es384, .hs384: 384
        case .rs512, .ps512, .es512, .hs512, .eddsa: 512
        }
    }
}

extension JWSAlgorithm {
    /// The algorithms OAuthFlow signs client assertions with (RFC 7523 §2.2): a private key's, and HS256 with the
    /// client secret (`client_auth.assertion_algs`).
    static let clientAssertion: [JWSAlgorithm] = [.rs256, .ps256, .es256, .eddsa, .hs256]
    /// The algorithms a DPoP key is made for (RFC 9449), in the client's order of preference
    /// (`security.dpop_signing_alg_values_supported`).
    static let dpopKey: [JWSAlgorithm] = [.es256, .eddsa, .rs256, .ps256]
    /// The algorithms OAuthFlow signs request objects with (RFC 9101): a private key's (`authorization.request_object_algs`).
    static let requestObject: [JWSAlgorithm] = [.rs256, .ps256, .es256, .eddsa]
    /// The algorithms verified with a provider's public keys: every one but HMAC (`access_tokens.signing_algs`).
    static let publicKey: [JWSAlgorithm] = allCases.filter { !$0.isHMAC }

    /// The names of `algorithms` as a sentence lists them: `A, B or C`.
    static func listed(_ algorithms: [JWSAlgorithm]) -> String {
        let names = algorithms.map(\.rawValue)
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
