#if CLI
import OAuthFlow

/// JSON text made safe for a terminal while it stays JSON.
enum JSONText {
    /// `json` (text a JSON encoder wrote) with every character a terminal does not show as itself
    /// (``TerminalText/needsEscape(_:)``: controls including C1, format and bidirectional characters,
    /// line separators) written as a JSON escape, `\u009b`, and a pair of them beyond the BMP.
    ///
    /// Outside strings an encoder writes ASCII structure only, so every such character is inside a
    /// string, where the escape means the same character: any JSON parser reads the same value.
    static func escapingInvisibles(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0 != "\n" && TerminalText.needsEscape($0) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard scalar != "\n", TerminalText.needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let digits = String(unit, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - digits.count) + digits).unicodeScalars)
            }
        }
        return String(out)
    }
}
#endif
