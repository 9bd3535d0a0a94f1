/// A JSON array of `{path, line, column, severity, rule_id, message}` objects.
///
/// Written as Foundation's `JSONEncoder` writes the array with `.prettyPrinted`, `.sortedKeys` and
/// `.withoutEscapingSlashes` (a test compares the two over every Unicode scalar), without an encoder: one
/// encoding per diagnostic cost about 190,000 instructions, more than linting a descriptor (Docs/benchmarks.md).
package struct JSONReporter: Reporter {
    public init() {}

    public func report(_ diagnostics: [Diagnostic]) -> String {
        part(diagnostics, following: false) + end(afterAny: !diagnostics.isEmpty)
    }

    /// The array's entries for `diagnostics`, each as the pretty-printing encoder writes an
    /// element of an array (indented two spaces), after the `[` or the `,` the array needs.
    public func part(_ diagnostics: [Diagnostic], following: Bool) -> String {
        String(decoding: partBytes(diagnostics, following: following), as: UTF8.self)
    }

    /// ``part(_:following:)``'s UTF-8 bytes.
    func partBytes(_ diagnostics: [Diagnostic], following: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(diagnostics.reduce(0) { $0 + $1.location.path.utf8.count + $1.message.utf8.count + $1.ruleID.utf8.count + 160 })
        for (index, diagnostic) in diagnostics.enumerated() {
            // The members in the order `.sortedKeys` gives them.
            bytes.append(text: index == 0 && !following ? "[\n" : ",\n")
            bytes.append(text: "  {\n    \"column\" : ")
            bytes.append(decimal: diagnostic.location.column)
            bytes.append(text: ",\n    \"line\" : ")
            bytes.append(decimal: diagnostic.location.line)
            bytes.append(text: ",\n    \"message\" : ")
            Self.append(string: diagnostic.message, to: &bytes)
            bytes.append(text: ",\n    \"path\" : ")
            Self.append(string: diagnostic.location.path, to: &bytes)
            bytes.append(text: ",\n    \"rule_id\" : ")
            Self.append(string: diagnostic.ruleID, to: &bytes)
            bytes.append(text: ",\n    \"severity\" : ")
            Self.append(string: diagnostic.severity.rawValue, to: &bytes)
            bytes.append(text: "\n  }")
        }
        return bytes
    }

    public func end(afterAny: Bool) -> String {
        afterAny ? "\n]\n" : "[\n\n]\n"
    }

    /// `value` as a JSON string, escaped as `JSONEncoder` escapes it: `"` and `\`, the five control characters
    /// with a short escape (`\b`, `\t`, `\n`, `\f`, `\r`), the other controls below U+0020 as `\u00xx` (lowercase
    /// hexadecimal); everything else as it is, `/` and every character beyond ASCII included.
    static func append(string value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most values need no escape: their bytes are appended whole.
        let plain = value.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } }
        if plain == true {
            bytes.append(text: value)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(text: "\\\"")
            case UInt8(ascii: "\\"): bytes.append(text: "\\\\")
            case 0x08: bytes.append(text: "\\b")
            case 0x09: bytes.append(text: "\\t")
            case 0x0A: bytes.append(text: "\\n")
            case 0x0C: bytes.append(text: "\\f")
            case 0x0D: bytes.append(text: "\\r")
            case 0..<0x20:
                bytes.append(text: "\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
