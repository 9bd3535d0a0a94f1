import Crypto
import Foundation

/// Base64url without padding (RFC 4648 §5), as OAuth uses it.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; nil when it is not base64url.
    public static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Random bytes from a CSPRNG, base64url-encoded: for `state` and `nonce`.
    public static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }
}
