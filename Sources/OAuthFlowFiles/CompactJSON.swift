/// A strict JSON reader (RFC 8259) for the few files the launcher reads, without Foundation.
///
/// It accepts less than JSONSerialization, never more: a duplicated member name, nesting deeper than
/// 64, invalid UTF-8, a lone surrogate or trailing text is refused, and the caller then takes the full
/// path, which reads the file with Foundation and reports what is wrong.
public enum CompactJSON: Sendable, Hashable {
    case object([String: CompactJSON])
    case array([CompactJSON])
    case string(String)
    /// The number as written; ``integer`` reads it.
    case number(String)
    case bool(Bool)
    case null

    /// Parses a whole document; nil when it is not one.
    public static func parse(_ bytes: [UInt8]) -> CompactJSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    public subscript(_ name: String) -> CompactJSON? {
        if case let .object(members) = self { return members[name] }
        return nil
    }

    public var string: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// A number written as an integer (no fraction, no exponent) that fits an `Int`.
    public var integer: Int? {
        if case let .number(text) = self { return Int(text) }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> CompactJSON? {
            guard depth <= 64 else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(CompactJSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: String, _ value: CompactJSON) -> CompactJSON? {
            let expected = Array(word.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else { return nil }
            index += expected.count
            return value
        }

        mutating func object(depth: Int) -> CompactJSON? {
            index += 1
            var members: [String: CompactJSON] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = string(), members[name] == nil else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value(depth: depth + 1) else { return nil }
                members[name] = member
                guard let more = more(closing: UInt8(ascii: "}")) else { return nil }
                if !more { return .object(members) }
            }
        }

        mutating func array(depth: Int) -> CompactJSON? {
            index += 1
            var elements: [CompactJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                guard let more = more(closing: UInt8(ascii: "]")) else { return nil }
                if !more { return .array(elements) }
            }
        }

        /// After a member or an element: true at `,` (more follow), false at `close` (the end), nil at anything else.
        mutating func more(closing close: UInt8) -> Bool? {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") || bytes[index] == close else { return nil }
            index += 1
            return bytes[index - 1] == UInt8(ascii: ",")
        }

        /// A string at `index` (its opening quote), unescaped; nil for a malformed one.
        mutating func string() -> String? {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return UTF8Validation.string(out)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                return nil
                            }
                            index += 2
                            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            return nil
                        }
                        guard let character = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(character)).utf8))
                    default:
                        return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    out.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() -> CompactJSON? {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return nil }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return nil }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            // A number no Double holds (1e400) is refused, as JSONDecoder refuses it.
            guard let value = Double(text), value.isFinite else { return nil }
            return .number(text)
        }

        mutating func digits() -> Bool {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index > start
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
