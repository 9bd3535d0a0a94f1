import Yams

/// Types YAML scalars the way Yams' default resolver does (YAML 1.1: `yes` is a
/// boolean, `0o17` an integer, `2024-01-01` a timestamp), in one pass over the
/// bytes instead of up to seven regular expressions per scalar.
///
/// ``YAMLTree`` types every plain, untagged scalar with it once, while composing.
/// Yams' default resolver cost about a quarter of reading a descriptor: Yams hashed
/// every key and the schema check read every value's tag, and each of those ran the
/// regular expressions (see Docs/benchmarks.md).
enum ScalarTyping {
    /// The tag of a plain, untagged scalar with this text.
    static func resolve(_ text: String) -> Tag.Name {
        var text = text
        return text.withUTF8 { code(of: $0) }.name
    }

    /// The tag of a plain, untagged scalar with these bytes, as ``YAMLTree`` stores it.
    static func code(of bytes: UnsafeBufferPointer<UInt8>) -> YAMLTree.TagCode {
        // Most scalars (keys, URLs, names) start with a byte no rule accepts first.
        guard let first = bytes.first else { return .null }
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "~"),
            UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: "y"), UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"),
            UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "o"), UInt8(ascii: "O"):
            break
        default:
            return .str
        }
        // A letter can begin only a boolean or a null (`null`); the other rules want a digit, sign, dot or `~`.
        if first >= UInt8(ascii: "A") {
            if isBool(bytes) { return .bool }
            return isNull(bytes) ? .null : .str
        }
        // Yams tries its rules in this order and takes the first that matches.
        if isBool(bytes) { return .bool }
        if isInt(bytes) { return .int }
        if isFloat(bytes) { return .float }
        if bytes.count == 2, bytes[0] == ascii("<"), bytes[1] == ascii("<") { return .merge }
        if isNull(bytes) { return .null }
        if isTimestamp(bytes) { return .timestamp }
        if bytes.count == 1, bytes[0] == ascii("=") { return .value }
        return .str
    }

    // MARK: - The rules

    /// YAML 1.1's booleans: each word in lower case, capitalised or in upper case (`yes`, `Yes`,
    /// `YES`; not `yEs`).
    private static let booleanWords: [(word: StaticString, value: Bool)] = [
        ("yes", true), ("no", false), ("true", true), ("false", false), ("on", true), ("off", false),
    ]

    /// The value of a scalar the rules type as a boolean, from its bytes; nil for any other text.
    /// Compared in place: no string is made for a scalar that begins like a boolean (`form`,
    /// `none`, `openid`) to be looked up.
    static func bool(bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard (2...5).contains(bytes.count) else { return nil }
        for (word, value) in booleanWords where word.utf8CodeUnitCount == bytes.count {
            if spells(bytes, word) { return value }
        }
        return nil
    }

    /// Whether `bytes` are `word` (lower-case ASCII) in lower case, capitalised or in upper case.
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count == letters.count, let first = bytes.first else { return false }
        let upper: UInt8 = 0x20
        guard first == letters[0] || first == letters[0] - upper else { return false }
        // After the first letter: all lower case, or (after a capital) all upper case.
        let shift = first != letters[0] && bytes.count > 1 && bytes[1] == letters[1] - upper ? upper : 0
        for index in 1..<bytes.count where bytes[index] != letters[index] - shift { return false }
        return true
    }

    private static func isBool(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bool(bytes: bytes) != nil }

    /// `~`, the empty scalar, and `null` in lower case, capitalised or in upper case.
    private static func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch bytes.count {
        case 0: true
        case 1: bytes[0] == UInt8(ascii: "~")
        case 4: spells(bytes, "null")
        default: false
        }
    }

    /// `[-+]?` then binary `0b[01_]+`, octal `0o?[0-7_]+`, decimal `0|[1-9][0-9_]*`,
    /// hexadecimal `0x[0-9a-fA-F_]+`, or sexagesimal `[1-9][0-9_]*(:[0-5]?[0-9])+`.
    private static func isInt(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = ByteReader(bytes)
        reader.skipSign()
        if reader.take("0") {
            if reader.take("b") { return reader.takeRun(of: isBinaryDigit) > 0 && reader.atEnd }
            if reader.take("x") { return reader.takeRun(of: isHexDigit) > 0 && reader.atEnd }
            if reader.atEnd { return true }
            // `0o17`, `017`, `0_7`: an octal run after the zero (with or without the `o`).
            return (reader.take("o") ? reader.takeRun(of: isOctalDigit) > 0 : reader.takeRun(of: isOctalDigit) > 0) && reader.atEnd
        }
        guard reader.take(where: { $0 >= ascii("1") && $0 <= ascii("9") }) else { return false }
        reader.takeRun(of: isDecimalDigit)
        if reader.atEnd { return true }
        return reader.takeSexagesimalGroups() && reader.atEnd
    }

    /// `[-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?`, `\.[0-9_]+([eE][-+][0-9]+)?`,
    /// `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`, `[-+]?\.(inf|Inf|INF)` or `\.(nan|NaN|NAN)`.
    private static func isFloat(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.first == ascii(".") {
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes.dropFirst()), as: UTF8.self)
            if ["inf", "Inf", "INF", "nan", "NaN", "NAN"].contains(rest) { return true }
            var reader = ByteReader(bytes)
            _ = reader.take(".")
            guard reader.takeRun(of: isDecimalDigit) > 0 else { return false }
            if reader.atEnd { return true }
            // Here the exponent's sign is required.
            guard reader.take(where: { $0 == ascii("e") || $0 == ascii("E") }),
                reader.take(where: { $0 == ascii("+") || $0 == ascii("-") })
            else { return false }
            return reader.takeRun(of: isPlainDigit) > 0 && reader.atEnd
        }
        var reader = ByteReader(bytes)
        reader.skipSign()
        if reader.take(".") {
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[reader.offset...]), as: UTF8.self)
            return ["inf", "Inf", "INF"].contains(rest)
        }
        guard reader.take(where: isPlainDigit) else { return false }
        reader.takeRun(of: isDecimalDigit)
        var sexagesimal = reader
        if sexagesimal.takeSexagesimalGroups(), sexagesimal.take(".") {
            sexagesimal.takeRun(of: isDecimalDigit)
            if sexagesimal.atEnd { return true }
        }
        if reader.take(".") { reader.takeRun(of: isDecimalDigit) }
        if reader.take(where: { $0 == ascii("e") || $0 == ascii("E") }) {
            reader.skipSign()
            guard reader.takeRun(of: isPlainDigit) > 0 else { return false }
        }
        return reader.atEnd
    }

    /// `YYYY-MM-DD`, or `YYYY-M-D` followed by `T` or blanks, `H:MM:SS`, an optional
    /// fraction and an optional zone (`Z` or `±H[:MM]`, after optional blanks).
    private static func isTimestamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = ByteReader(bytes)
        guard reader.takeDigits(4...4), reader.take("-") else { return false }
        var dateOnly = reader
        if dateOnly.takeDigits(2...2), dateOnly.take("-"), dateOnly.takeDigits(2...2), dateOnly.atEnd { return true }
        guard reader.takeDigits(1...2), reader.take("-"), reader.takeDigits(1...2) else { return false }
        if !reader.take("T"), !reader.take("t") {
            guard reader.takeRun(of: isBlank) > 0 else { return false }
        }
        guard reader.takeDigits(1...2), reader.take(":"), reader.takeDigits(2...2), reader.take(":"),
            reader.takeDigits(2...2)
        else { return false }
        if reader.take(".") { reader.takeRun(of: isPlainDigit) }
        if reader.atEnd { return true }
        reader.takeRun(of: isBlank)
        if reader.take("Z") { return reader.atEnd }
        guard reader.take(where: { $0 == ascii("+") || $0 == ascii("-") }), reader.takeDigits(1...2) else { return false }
        if reader.take(":") { guard reader.takeDigits(2...2) else { return false } }
        return reader.atEnd
    }

    // MARK: - Bytes

    private static func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(character.value) }
    private static func isPlainDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isDecimalDigit(_ byte: UInt8) -> Bool { isPlainDigit(byte) || byte == 0x5F }
    private static func isOctalDigit(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x37) || byte == 0x5F }
    private static func isBinaryDigit(_ byte: UInt8) -> Bool { byte == 0x30 || byte == 0x31 || byte == 0x5F }
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDecimalDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// A cursor over a scalar's bytes.
    private struct ByteReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { offset == bytes.count }

        mutating func take(where accept: (UInt8) -> Bool) -> Bool {
            guard offset < bytes.count, accept(bytes[offset]) else { return false }
            offset += 1
            return true
        }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            take(where: { $0 == UInt8(character.value) })
        }

        mutating func skipSign() {
            _ = take(where: { $0 == 0x2B || $0 == 0x2D })
        }

        @discardableResult
        mutating func takeRun(of accept: (UInt8) -> Bool) -> Int {
            let start = offset
            while take(where: accept) {}
            return offset - start
        }

        /// Between `count.lowerBound` and `count.upperBound` plain digits.
        mutating func takeDigits(_ count: ClosedRange<Int>) -> Bool {
            var taken = 0
            while taken < count.upperBound, take(where: ScalarTyping.isPlainDigit) { taken += 1 }
            return taken >= count.lowerBound
        }

        /// One or more `:[0-5]?[0-9]` groups.
        mutating func takeSexagesimalGroups() -> Bool {
            var groups = 0
            while offset < bytes.count, bytes[offset] == 0x3A {
                var probe = self
                probe.offset += 1
                if probe.take(where: { $0 >= 0x30 && $0 <= 0x35 }) {
                    // `[0-5]?[0-9]`: a second digit is optional when the first was 0–5.
                    _ = probe.take(where: ScalarTyping.isPlainDigit)
                } else if !probe.take(where: ScalarTyping.isPlainDigit) {
                    break
                }
                self = probe
                groups += 1
            }
            return groups > 0
        }
    }
}
