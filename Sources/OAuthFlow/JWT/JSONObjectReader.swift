import OAuthFlowFiles

/// Reads a JSON object (RFC 8259) into ``JSONValue``s in one pass over its UTF-8 bytes: a JOSE header or
/// a JWT claims set, on the request path of an API that checks tokens.
///
/// It reads what Foundation's `JSONDecoder` reads into `[String: JSONValue]` the same way: the text must be
/// one object, with nothing but whitespace around it, valid UTF-8, no lone surrogate escape, and every number
/// one a `Double` holds (`1e400` and `2e-324` are refused). It takes less: a byte order mark, UTF-16 or UTF-32,
/// and a trailing comma (`{"a":1,}`), which `JSONDecoder` lets through, are refused. The one text it reads that
/// `JSONDecoder` refuses is a zero written with an exponent such as `0e3`, an RFC 8259 number worth 0, which
/// `JSONDecoder`'s check that a number read as 0 was written as 0 misses. It also refuses what
/// a JOSE reader must: a member name repeated within one object, at any depth (RFC 7515 §5.2, RFC 7519
/// §7.2; names compared decoded, as Swift strings, the way the dictionary keys them), and nesting
/// deeper than a bound. A `JSONDecoder` would try each type of a value in turn and throw for every
/// wrong guess; this reader looks at the value's first byte once.
package enum JSONObjectReader {
    /// Why the bytes are not an object a JOSE reader takes.
    package enum Failure: Error, Hashable, Sendable {
        /// Not one JSON object.
        case notJSON
        /// Objects and arrays nest deeper than the bound.
        case tooDeep
        /// An object holds this member name more than once (the first one found).
        case repeatedMember(String)
    }

    /// The object `bytes` hold.
    ///
    /// - Parameter maximumDepth: How many objects and arrays may nest, the outer object counted as one.
    /// - Throws: ``Failure``: `tooDeep` as soon as the bound is passed, `notJSON` for anything else that is
    ///   not an object, then `repeatedMember` for an object that is one but repeats a name.
    package static func read(_ bytes: [UInt8], maximumDepth: Int) throws(Failure) -> [String: JSONValue] {
        let outcome: Result<[String: JSONValue], Failure> = bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer, maximumDepth: maximumDepth)
            do throws(Failure) {
                cursor.skipSpace()
                guard cursor.index < buffer.count, buffer[cursor.index] == Byte.openBrace else { throw .notJSON }
                let object = try cursor.object(depth: 1)
                cursor.skipSpace()
                guard cursor.index == buffer.count else { throw .notJSON }
                if let repeated = cursor.repeated { throw .repeatedMember(repeated) }
                return .success(object)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
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

        /// The value at `index` (after whitespace), inside a container at `depth`.
        mutating func value(depth: Int) throws(Failure) -> JSONValue {
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

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw .notJSON }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { throw .notJSON }
            index += count
            return value
        }

        /// The object whose `{` is at `index`, itself at `depth`.
        mutating func object(depth: Int) throws(Failure) -> [String: JSONValue] {
            guard depth <= maximumDepth else { throw .tooDeep }
            index += 1
            // A JWT's claims set has about ten members: room for them at once, rather than growing four times.
            var members = depth == 1 ? [String: JSONValue](minimumCapacity: 12) : [:]
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
        mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
            guard depth <= maximumDepth else { throw .tooDeep }
            index += 1
            var elements: [JSONValue] = []
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

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a `Double`: refused when it is beyond
        /// the largest one, or a number other than 0 that rounds to 0 (`2e-324`), as `JSONDecoder` refuses both.
        mutating func number() throws(Failure) -> Double {
            let start = index
            let negative = bytes[index] == Byte.minus
            if negative { index += 1 }
            guard isDigit(index) else { throw .notJSON }
            var integer: UInt64 = 0
            var digits = 0
            var nonzero = false
            if bytes[index] == Byte.zero {
                index += 1
            } else {
                nonzero = true
                while isDigit(index) {
                    if digits < 18 { integer = integer * 10 + UInt64(bytes[index] - Byte.zero) }
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
            // Up to 15 digits, an integer is exact in a Double (below 2^53); anything else is rounded as written.
            if whole, digits <= 15 {
                let value = Double(integer)
                return negative ? -value : value
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite, value != 0 || !nonzero else { throw .notJSON }
            return value
        }
    }
}
