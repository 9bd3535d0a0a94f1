/// Bytes written as lowercase hexadecimal, two digits each (a digest in a key or a cookie name, an HMAC to compare).
package enum Hexadecimal {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
