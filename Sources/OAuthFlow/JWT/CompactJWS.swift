import Foundation
import OAuthFlowFiles

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
    /// - Throws: ``JWTError`` `malformed`, saying which part is wrong.
    public init(_ token: String) throws(JWTError) {
        var token = token
        // `withUTF8` rethrows any error: the parts come back as a result, so that only a ``JWTError`` is thrown.
        let read = token.withUTF8 { bytes in Result { () throws(JWTError) in try Self.parts(of: bytes) } }
        (header, claims, signingInput, signature) = try read.get()
    }

    /// The header, the claims, the signing input and the signature of the token whose UTF-8 is `bytes`.
    private static func parts(of bytes: UnsafeBufferPointer<UInt8>) throws(JWTError) -> (
        header: [String: JSONValue], claims: [String: JSONValue], signingInput: [UInt8], signature: [UInt8]
    ) {
        let dot = UInt8(ascii: ".")
        guard let firstDot = bytes.firstIndex(of: dot), let secondDot = bytes[(firstDot + 1)...].firstIndex(of: dot),
            !bytes[(secondDot + 1)...].contains(dot)
        else {
            let parts = bytes.reduce(1) { $1 == dot ? $0 + 1 : $0 }
            throw JWTError(.malformed, "a JWT has three dot-separated parts; this has \(parts)")
        }
        func object(_ part: UnsafeBufferPointer<UInt8>, _ name: String) throws(JWTError) -> [String: JSONValue] {
            func notJSON() -> JWTError { JWTError(.malformed, "the JWT \(name) is not base64url-encoded JSON") }
            guard let decoded = Base64URL.decode(bytes: part) else { throw notJSON() }
            do throws(CompactJSON.Failure) {
                return try JSONValue.object(reading: decoded, maximumDepth: maximumDepth)
            } catch {
                switch error {
                case .notJSON:
                    throw notJSON()
                case .tooDeep:
                    throw JWTError(.malformed, "the JWT \(name) nests deeper than \(maximumDepth) levels")
                case .numberOutOfRange:
                    throw JWTError(.malformed, "the JWT \(name) holds a number beyond what a 64-bit float holds (RFC 8259 §6)")
                case let .repeatedMember(repeated):
                    // RFC 7515 §5.2, RFC 7519 §7.2: a repeated member is read one way by one parser and another way by the next.
                    let member = TerminalText.quoted(TerminalText.escaped(repeated))
                    throw JWTError(.malformed, "the JWT \(name) holds the member \(member) more than once (RFC 7515 §5.2, RFC 7519 §7.2)")
                }
            }
        }
        let header = try object(UnsafeBufferPointer(rebasing: bytes[..<firstDot]), "header")
        let claims = try object(UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot]), "payload")
        guard let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])) else {
            throw JWTError(.malformed, "the JWT signature is not base64url")
        }
        return (header, claims, Array(UnsafeBufferPointer(rebasing: bytes[..<secondDot])), signature)
    }

    /// The header's `alg`, when it is a string.
    public var algorithmName: String? { header["alg"]?.stringValue }
    /// The header's `kid`, when it is a string.
    public var keyID: String? { header["kid"]?.stringValue }
}

/// The `aud` claim (RFC 7519 §4.1.3) as a list: one string or an array of them; nil when absent, and empty
/// when it is neither (a token with such an `aud` is for nobody).
package func audienceClaim(_ claims: [String: JSONValue]) -> [String]? {
    switch claims["aud"] {
    case let .string(single)?: [single]
    case let .array(many)?: many.compactMap(\.stringValue)
    case nil: nil
    default: []
    }
}
