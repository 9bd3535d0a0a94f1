import Foundation
import OAuthFlow

/// A JWT's header and payload, decoded for showing and nothing else: the signature is not checked, so nothing here may
/// decide who the user is or what a token allows.
///
/// The Cloudentity sample's "Header" and "Payload" tabs, for a token that is a JWT:
///
/// ```swift
/// if let jwt = try? UnverifiedJWT(result.tokens.accessToken.value) {
///     print(jwt.prettyHeader, jwt.prettyPayload)
/// }
/// ```
public struct UnverifiedJWT: Sendable {
    /// The JOSE header (`alg`, `kid`, `typ`).
    public let header: [String: JSONValue]
    /// The claims.
    public let payload: [String: JSONValue]

    /// Splits and decodes a compact JWT: three base64url parts, the first two JSON objects (nesting at most 32 levels,
    /// no member repeated).
    ///
    /// - Throws: `IDTokenError` `malformed`, saying which part is wrong; an opaque token is not a JWT.
    public init(_ token: String) throws {
        (header, payload) = try IDTokenValidator.decodeUnverified(token)
    }

    /// The header as indented JSON, members sorted.
    public var prettyHeader: String { Self.pretty(header) }

    /// The payload as indented JSON, members sorted.
    public var prettyPayload: String { Self.pretty(payload) }

    private static func pretty(_ object: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(JSONValue.object(object))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
