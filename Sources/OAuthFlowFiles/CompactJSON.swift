/// The one strict JSON reader (RFC 8259): every JSON text a server sends, a JOSE header or claims set, and the few
/// files the launcher reads. It needs neither Foundation nor a decoder, so the launcher reads with it too.
///
/// It accepts less than Foundation's readers, never more, and reads what it accepts as they do.
public enum CompactJSON: Sendable, Hashable {
    case object([String: CompactJSON])
    case array([CompactJSON])
    case string(String)
    /// The number as written (checked to be one a `Double` holds); ``integer`` and ``double`` read it.
    case number(String)
    case bool(Bool)
    case null

    /// Why bytes are not a JSON text this reader takes.
    public enum Failure: Error, Hashable, Sendable {
        /// Not one JSON value, or not UTF-8.
        case notJSON
        /// A number beyond the largest `Double`, or one other than 0 that rounds to 0 (`2e-324`): readers differ on
        /// what it says (RFC 8259 §6), so it is refused rather than read as infinity, zero or an error.
        case numberOutOfRange
        /// Objects and arrays nest deeper than the bound.
        case tooDeep
        /// An object holds this member name more than once (the first one found, at any depth).
        case repeatedMember(String)
    }

    /// The value the whole text `bytes` holds.
    ///
    /// - Parameter maximumDepth: How many objects and arrays may nest, the outermost counted as one.
    /// - Throws: ``Failure``: `tooDeep` as soon as the bound is passed, `notJSON` for anything else that is not
    ///   one JSON value, then `repeatedMember` for a text that is one but repeats a name.
    public static func read(_ bytes: [UInt8], maximumDepth: Int = 64) throws(Failure) -> CompactJSON {
        let outcome: Result<CompactJSON, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer, maximumDepth: maximumDepth)
            do throws(Failure) {
                let value = try cursor.value(depth: 0)
                cursor.skipSpace()
                guard cursor.index == buffer.count else { throw .notJSON }
                if let repeated = cursor.repeated { throw .repeatedMember(repeated) }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// ``read(_:maximumDepth:)``, nil for any failure.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = 64) -> CompactJSON? {
        try? read(bytes, maximumDepth: maximumDepth)
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

    private enum Byte {
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let minus = UInt8(ascii: "-")
        static let plus = UInt8(ascii: "+")
        static let dot = UInt8(ascii: ".")
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var index = 0
        /// The first repeated member name: reported once the whole text has been read as JSON.
        var repeated: String?

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// The value at `index` (after whitespace), inside containers `depth` deep.
        mutating func value(depth: Int) throws(Failure) -> CompactJSON {
            skipSpace()
            guard index < bytes.count else { throw .notJSON }
            switch bytes[index] {
            case Byte.openBrace: return .object(try object(depth: depth + 1))
            case Byte.openBracket: return .array(try array(depth: depth + 1))
            case Byte.quote: return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString, _ value: CompactJSON) throws(Failure) -> CompactJSON {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw .notJSON }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { throw .notJSON }
            index += count
            return value
        }

        /// The object whose `{` is at `index`, itself at `depth`.
        mutating func object(depth: Int) throws(Failure) -> [String: CompactJSON] {
            guard depth <= maximumDepth else { throw .tooDeep }
            index += 1
            // A JWT's claims set has about ten members: room for them at once, rather than growing four times.
            var members = depth == 1 ? [String: CompactJSON](minimumCapacity: 12) : [:]
            skipSpace()
            if index < bytes.count, bytes[index] == Byte.closeBrace {
                index += 1
                return members
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == Byte.quote else { throw .notJSON }
                let name = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == Byte.colon else { throw .notJSON }
                index += 1
                let member = try value(depth: depth)
                if members.updateValue(member, forKey: name) != nil, repeated == nil { repeated = name }
                guard try more(closing: Byte.closeBrace) else { return members }
            }
        }

        /// The array whose `[` is at `index`, itself at `depth`.
        mutating func array(depth: Int) throws(Failure) -> [CompactJSON] {
            guard depth <= maximumDepth else { throw .tooDeep }
            index += 1
            var elements: [CompactJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == Byte.closeBracket {
                index += 1
                return elements
            }
            while true {
                elements.append(try value(depth: depth))
                guard try more(closing: Byte.closeBracket) else { return elements }
            }
        }

        /// After a member or an element: true past a `,` (more follow), false past `close`.
        mutating func more(closing close: UInt8) throws(Failure) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw .notJSON }
            let byte = bytes[index]
            index += 1
            if byte == Byte.comma { return true }
            guard byte == close else { throw .notJSON }
            return false
        }

        /// The string whose opening quote is at `index`, unescaped.
        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == Byte.quote {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    if ascii { return String(decoding: text, as: UTF8.self) }
                    guard let valid = UTF8Validation.string(text) else { throw .notJSON }
                    return valid
                }
                if byte == Byte.backslash { return try escapedString(from: start) }
                guard byte >= 0x20 else { throw .notJSON }
                if byte >= 0x80 { ascii = false }
                index += 1
            }
            throw .notJSON
        }

        /// The rest of a string that holds an escape at `index`; `start` is its first byte.
        mutating func escapedString(from start: Int) throws(Failure) -> String {
            var out: [UInt8] = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case Byte.quote:
                    guard let valid = UTF8Validation.string(out) else { throw .notJSON }
                    return valid
                case Byte.backslash:
                    guard index < bytes.count else { throw .notJSON }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case Byte.quote, Byte.backslash, UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == Byte.backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                                throw .notJSON
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw .notJSON }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw .notJSON
                        }
                        guard let decoded = Unicode.Scalar(scalar) else { throw .notJSON }
                        UTF8.encode(decoded) { out.append($0) }
                    default:
                        throw .notJSON
                    }
                default:
                    guard byte >= 0x20 else { throw .notJSON }
                    out.append(byte)
                }
            }
            throw .notJSON
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw .notJSON }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw .notJSON
                }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }

        func isDigit(_ offset: Int) -> Bool {
            offset < bytes.count && bytes[offset] >= Byte.zero && bytes[offset] <= Byte.nine
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written: refused when it is beyond the
        /// largest `Double`, or a number other than 0 that rounds to 0 (`2e-324`), as `JSONDecoder` refuses both.
        mutating func number() throws(Failure) -> String {
            let start = index
            if bytes[index] == Byte.minus { index += 1 }
            guard isDigit(index) else { throw .notJSON }
            var digits = 0
            var nonzero = false
            if bytes[index] == Byte.zero {
                index += 1
            } else {
                nonzero = true
                while isDigit(index) {
                    digits += 1
                    index += 1
                }
            }
            var whole = true
            if index < bytes.count, bytes[index] == Byte.dot {
                whole = false
                index += 1
                guard isDigit(index) else { throw .notJSON }
                while isDigit(index) {
                    if bytes[index] != Byte.zero { nonzero = true }
                    index += 1
                }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                whole = false
                index += 1
                if index < bytes.count, bytes[index] == Byte.plus || bytes[index] == Byte.minus { index += 1 }
                guard isDigit(index) else { throw .notJSON }
                while isDigit(index) { index += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            // Up to 15 digits, an integer is a Double as it is; anything else is checked as it would be rounded.
            if whole, digits <= 15 { return text }
            guard let value = Double(text), value.isFinite, value != 0 || !nonzero else { throw .numberOutOfRange }
            return text
        }
    }
}
