/// Whether bytes are UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), which is what
/// `String(validating:as: UTF8.self)` accepts, judged without making the `String`: a descriptor's bytes are checked
/// once and read in place, and `String(validating:)` copied each file into a string nothing read (a test holds the
/// two equal over every two-byte sequence and 200,000 random ones). ASCII, most of a descriptor, is checked eight
/// bytes at a time.
///
/// It also decodes (``string(_:)``): `String(validating:as:)` needs macOS 15, iOS 18, tvOS 18 and watchOS 11, above
/// the package's floor, so below them the same judgement is made here and the bytes then decoded.
package enum UTF8Validation {
    /// The bytes as a `String`, or nil when they are not UTF-8: what `String(validating: bytes, as: UTF8.self)`
    /// answers, on every OS version the package supports (the standard library's own where it has it).
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return stringCheckedHere(bytes)
    }

    /// ``string(_:)`` for an array.
    package static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string($0) }
    }

    /// What ``string(_:)`` answers below macOS 15 and iOS 18: the bytes checked by ``isValid(_:)``, then decoded
    /// (decoding valid UTF-8 replaces nothing).
    static func stringCheckedHere(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight ASCII bytes at once: none has its high bit set.
            if index + 8 <= count, UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The sequence's length and the range its second byte must be in (which rules out overlong forms,
            // surrogates and values past U+10FFFF); any further bytes are 0x80...0xBF.
            let length: Int
            let second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            default: return false
            }
            guard index + length <= count, second.contains(base[index + 1]) else { return false }
            for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
