import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): split and decoded, nothing verified.
///
/// The header and payload must be base64url-encoded JSON objects nesting at most
/// ``maximumDepth`` levels, with no member name repeated in any object; the signature is kept as bytes, and the signing input
/// (`header.payload`) as it came, for verification by ``SigningKeys``.
package struct CompactJWS: Sendable {
    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]
    /// The bytes the signature covers: the first two parts and the dot between them.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// How deeply a JWT's header or payload may nest; real claims use two or three levels.
    public static let maximumDepth = 32

    /// Splits and decodes `token`.
    ///
    /// - Throws: ``IDTokenError`` `malformed`, saying which part is wrong.
    public init(_ token: String) throws {
        let utf8 = token.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = utf8[utf8.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
            !utf8[utf8.index(after: secondDot)...].contains(UInt8(ascii: "."))
        else {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).count
            throw IDTokenError(.malformed, "a JWT has three dot-separated parts; this has \(parts)")
        }
        func object(_ part: Substring.UTF8View, _ name: String) throws -> [String: JSONValue] {
            guard let bytes = Base64URL.decode(bytes: part),
                let value = try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
            else {
                throw IDTokenError(.malformed, "the JWT \(name) is not base64url-encoded JSON")
            }
            guard JSONValue.object(value).depth <= Self.maximumDepth else {
                throw IDTokenError(.malformed, "the JWT \(name) nests deeper than \(Self.maximumDepth) levels")
            }
            // RFC 7515 §5.2, RFC 7519 §7.2: a repeated member is read one way by one parser and another way by the next.
            if let repeated = JSONMemberNames.firstRepeated(in: bytes) {
                let member = TerminalText.quoted(TerminalText.escaped(repeated))
                throw IDTokenError(.malformed, "the JWT \(name) holds the member \(member) more than once (RFC 7515 §5.2, RFC 7519 §7.2)")
            }
            return value
        }
        let substring = Substring(token)
        header = try object(substring.utf8[..<firstDot], "header")
        claims = try object(substring.utf8[utf8.index(after: firstDot)..<secondDot], "payload")
        guard let signature = Base64URL.decode(bytes: substring.utf8[utf8.index(after: secondDot)...]) else {
            throw IDTokenError(.malformed, "the JWT signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(substring.utf8[..<secondDot])
    }

    /// The header's `alg`, when it is a string.
    public var algorithmName: String? { header["alg"]?.stringValue }
    /// The header's `kid`, when it is a string.
    public var keyID: String? { header["kid"]?.stringValue }
}

/// The `aud` claim (RFC 7519 §4.1.3) as a list: one string or an array of them; nil when absent, and empty
/// when it is neither (a token with such an `aud` is for nobody).
func audienceClaim(_ claims: [String: JSONValue]) -> [String]? {
    switch claims["aud"] {
    case let .string(single)?: [single]
    case let .array(many)?: many.compactMap(\.stringValue)
    case nil: nil
    default: []
    }
}
