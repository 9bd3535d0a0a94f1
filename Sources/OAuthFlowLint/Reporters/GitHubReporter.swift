/// GitHub Actions workflow commands, which annotate the lines in a pull request.
package struct GitHubReporter: Reporter {
    public init() {}

    public func report(_ diagnostics: [Diagnostic]) -> String {
        String(decoding: bytes(diagnostics), as: UTF8.self)
    }

    /// ``report(_:)``'s UTF-8 bytes.
    func bytes(_ diagnostics: [Diagnostic]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(diagnostics.reduce(0) { $0 + $1.location.path.utf8.count + $1.message.utf8.count + $1.ruleID.utf8.count + 48 })
        for diagnostic in diagnostics {
            bytes.append(text: "::")
            bytes.append(text: diagnostic.severity == .info ? "notice" : diagnostic.severity.rawValue)
            bytes.append(text: " file=")
            Self.append(diagnostic.location.path, property: true, to: &bytes)
            bytes.append(text: ",line=")
            bytes.append(decimal: diagnostic.location.line)
            bytes.append(text: ",col=")
            bytes.append(decimal: diagnostic.location.column)
            bytes.append(text: ",title=")
            Self.append(diagnostic.ruleID, property: true, to: &bytes)
            bytes.append(text: "::")
            Self.append(diagnostic.message, property: false, to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// `value` escaped as the workflow-command syntax requires, byte by byte: `%`, CR and LF as `%25`, `%0D` and
    /// `%0A`, and in a property value (`property`) `:` and `,` as `%3A` and `%2C` too. Every other control character
    /// (C0, DEL, and C1 such as U+009B, the one-byte CSI), which a descriptor's key or value can bring, is
    /// percent-encoded the same way (`%1B`): GitHub leaves such a sequence as it is, so the log shows it and no
    /// terminal that replays the log obeys it.
    ///
    /// By bytes, not by Foundation's `replacingOccurrences`, which compares by canonical equivalence: it left a `%`,
    /// a CR or an LF that a combining mark follows as it was, so a message quoting a descriptor's value could put a
    /// line break of its own into the output and start a workflow command there. It also cost half a million
    /// instructions a diagnostic (Docs/benchmarks.md).
    static func append(_ value: String, property: Bool, to bytes: inout [UInt8]) {
        func special(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "%"), 0x00..<0x20, 0x7F, 0xC2: true
            case UInt8(ascii: ":"), UInt8(ascii: ","): property
            default: false
            }
        }
        // Most values need no escape: their bytes are appended whole.
        if value.utf8.withContiguousStorageIfAvailable({ !$0.contains(where: special) }) == true {
            bytes.append(text: value)
            return
        }
        var c1 = false
        for byte in value.utf8 {
            // U+0080–U+009F is 0xC2 then 0x80–0x9F in UTF-8: both bytes are encoded, so no C1 control is left whole.
            if c1 {
                c1 = false
                if (0x80...0x9F).contains(byte) {
                    bytes.append(text: "%C2")
                    appendPercent(byte, to: &bytes)
                    continue
                }
                bytes.append(0xC2)
            }
            switch byte {
            case UInt8(ascii: ":") where property: bytes.append(text: "%3A")
            case UInt8(ascii: ",") where property: bytes.append(text: "%2C")
            case UInt8(ascii: "%"), 0x00..<0x20, 0x7F: appendPercent(byte, to: &bytes)
            case 0xC2: c1 = true
            default: bytes.append(byte)
            }
        }
        if c1 { bytes.append(0xC2) }
    }

    /// `%` and the byte in two upper-case hexadecimal digits.
    private static func appendPercent(_ byte: UInt8, to bytes: inout [UInt8]) {
        let digits = Array("0123456789ABCDEF".utf8)
        bytes.append(UInt8(ascii: "%"))
        bytes.append(digits[Int(byte >> 4)])
        bytes.append(digits[Int(byte & 0x0F)])
    }
}
