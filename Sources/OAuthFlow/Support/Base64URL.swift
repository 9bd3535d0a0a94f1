import Crypto
import Foundation

/// Base64url without padding (RFC 4648 §5), as OAuth uses it.
package enum Base64URL {
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

    /// Decodes base64url bytes without padding (as JOSE writes them); nil for any other byte, or a
    /// length no encoding has. Table-driven, four characters at a time, for the request path of an API
    /// that checks tokens.
    public static func decode(bytes text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(contiguous: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode(contiguous: $0) }
    }

    private static func decode(contiguous text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = text.count
        let rest = count % 4
        guard rest != 1 else { return nil }
        var valid = true
        let decoded = decodingTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: count / 4 * 3 + max(0, rest - 1)) { out, initialized in
                // 0xFF marks a byte outside the alphabet: or-ing the four values keeps its high bit.
                func value(_ index: Int) -> UInt32 { UInt32(table[Int(text[index])]) }
                var index = 0
                var written = 0
                while index + 4 <= count {
                    let (a, b, c, d) = (value(index), value(index + 1), value(index + 2), value(index + 3))
                    guard (a | b | c | d) & 0x80 == 0 else {
                        valid = false
                        initialized = 0
                        return
                    }
                    let word = a << 18 | b << 12 | c << 6 | d
                    out[written] = UInt8(truncatingIfNeeded: word >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: word)
                    index += 4
                    written += 3
                }
                if rest >= 2 {
                    let (a, b) = (value(index), value(index + 1))
                    let c = rest == 3 ? value(index + 2) : 0
                    guard (a | b | c) & 0x80 == 0 else {
                        valid = false
                        initialized = 0
                        return
                    }
                    // Leftover bits are ignored, as Foundation's decoder ignores them: a signature that decodes
                    // loosely is still refused by its verification, never before its keys are asked.
                    let word = a << 18 | b << 12 | c << 6
                    out[written] = UInt8(truncatingIfNeeded: word >> 16)
                    written += 1
                    if rest == 3 {
                        out[written] = UInt8(truncatingIfNeeded: word >> 8)
                        written += 1
                    }
                }
                initialized = written
            }
        }
        return valid ? decoded : nil
    }

    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// Random bytes from a CSPRNG, base64url-encoded: for `state` and `nonce`.
    public static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }
}
