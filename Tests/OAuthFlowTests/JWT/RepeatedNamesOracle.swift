import Foundation

/// The oracle for ``CompactJSON``'s repeated members: the byte scan OAuthFlow used before the one reader, kept here
/// as an independent judge (it finds a repeated name without parsing the text).
enum RepeatedNamesOracle {
    /// The first name repeated within one object, at any depth; nil when there is none.
    ///
    /// The text is only scanned, not validated: text that is not JSON is left to the parser.
    static func firstRepeated(in bytes: [UInt8]) -> String? {
        // One entry per open object or array: an object's names so far, and whether a name comes next.
        var open: [(names: Set<String>?, nameNext: Bool)] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                open.append((names: [], nameNext: true))
            case UInt8(ascii: "["):
                open.append((names: nil, nameNext: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !open.isEmpty else { return nil }
                open.removeLast()
            case UInt8(ascii: ","):
                if let last = open.indices.last, open[last].names != nil { open[last].nameNext = true }
            case UInt8(ascii: ":"):
                if let last = open.indices.last { open[last].nameNext = false }
            case UInt8(ascii: "\""):
                guard let (text, end) = string(in: bytes, from: index) else { return nil }
                if let last = open.indices.last, open[last].nameNext, open[last].names != nil {
                    guard open[last].names?.insert(text).inserted == true else { return text }
                }
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The decoded text of the string starting at `start` (its opening quote) and the index after
    /// its closing quote; nil when it does not end or an escape is malformed.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var decoded: [UInt8] = []
        var index = start + 1
        var pendingHigh: UInt16?
        func append(_ scalar: Unicode.Scalar) {
            decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        func flushHigh() {
            if pendingHigh != nil { append("\u{FFFD}") }
            pendingHigh = nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flushHigh()
                return (String(decoding: decoded, as: UTF8.self), index + 1)
            }
            guard byte == UInt8(ascii: "\\") else {
                flushHigh()
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escape = bytes[index + 1]
            index += 2
            guard escape == UInt8(ascii: "u") else {
                flushHigh()
                switch escape {
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                default: return nil
                }
                continue
            }
            guard index + 4 <= bytes.count, let unit = UInt16(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                return nil
            }
            index += 4
            switch unit {
            case 0xD800...0xDBFF:
                flushHigh()
                pendingHigh = unit
            case 0xDC00...0xDFFF:
                if let high = pendingHigh,
                    let scalar = Unicode.Scalar(0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00))
                {
                    append(scalar)
                } else {
                    flushHigh()
                    append("\u{FFFD}")
                }
                pendingHigh = nil
            default:
                flushHigh()
                append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            }
        }
        return nil
    }
}
