/// Makes text from servers, descriptors and files safe to show on a terminal.
///
/// A hostile server or descriptor can put escape sequences (clear the screen, set the
/// window title), carriage returns or line breaks (forge a line such as
/// `Signed in … (verified)`) and bidirectional overrides (reorder what is read) into
/// any string OAuthFlow shows. Every human-facing output passes through here; JSON
/// output and other machine formats stay exact.
public enum TerminalText {
    /// A value from a file or a caller quoted for a message, in backticks: one longer than 80
    /// characters is cut and its length given, so that it cannot flood the terminal.
    public static func quoted(_ text: String) -> String {
        let limit = 80
        guard text.count > limit else { return "`\(text)`" }
        return "`\(text.prefix(limit))…` (\(text.count) characters)"
    }

    /// `text` with every control and bidirectional formatting character written as a visible escape.
    ///
    /// For one value inside a line: line breaks and tabs are escaped too (`\n`, `\t`).
    public static func escaped(_ text: String) -> String {
        escape(text, keepingLayout: false)
    }

    /// Like ``escaped(_:)`` but keeping line breaks and tabs, for text whose lines OAuthFlow composed.
    public static func sanitized(_ text: String) -> String {
        escape(text, keepingLayout: true)
    }

    private static func escape(_ text: String, keepingLayout: Bool) -> String {
        func kept(_ scalar: Unicode.Scalar) -> Bool {
            !needsEscape(scalar) || (keepingLayout && (scalar == "\n" || scalar == "\t"))
        }
        // Most text is printable ASCII, judged from the bytes; a byte that is not is a scalar's start
        // (a lead byte or a control), and that scalar is decoded in place and judged by itself.
        var bytes = text
        let clean = bytes.withUTF8 { utf8 in
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                if (byte >= 0x20 && byte < 0x7F) || (keepingLayout && (byte == 0x0A || byte == 0x09)) {
                    index += 1
                    continue
                }
                // The text is valid UTF-8 (it is a `String`): the lead byte gives the length.
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                guard index + length <= utf8.count else { return false }
                var value = length == 1 ? UInt32(byte) : UInt32(byte & (0x7F >> length))
                for offset in 1..<length { value = value << 6 | UInt32(utf8[index + offset] & 0x3F) }
                guard let scalar = Unicode.Scalar(value), kept(scalar) else { return false }
                index += length
            }
            return true
        }
        guard !clean else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard !kept(scalar) else {
                out.append(scalar)
                continue
            }
            let visible: String =
                switch scalar {
                case "\n": "\\n"
                case "\r": "\\r"
                case "\t": "\\t"
                default: scalar.value < 0x100 ? "\\x" + hex(scalar.value, width: 2) : "\\u{" + hex(scalar.value, width: 4) + "}"
                }
            out.append(contentsOf: visible.unicodeScalars)
        }
        return String(out)
    }

    /// Characters a terminal does not show as themselves, chosen by Unicode property rather than
    /// by list: controls (C0, DEL, C1), format characters (general category Cf: direction
    /// overrides, zero-width characters, the soft hyphen, the tag block used for "ASCII
    /// smuggling", musical formatting), line and paragraph separators, and every
    /// Default_Ignorable_Code_Point (Hangul fillers, variation selectors, unassigned ignorables).
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return false }
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        // The rest of Latin-1 (`§`, `é`, the no-break space) shows as itself, but for the soft hyphen:
        // answered without the property tables.
        if value <= 0xFF { return value == 0xAD }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return properties.isDefaultIgnorableCodePoint
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
