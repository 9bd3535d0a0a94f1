import OAuthFlowTestSupport
import Testing

import OAuthFlow

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("a\nb", "a\\nb"),
        ("\r\tx", "\\r\\tx"),
        ("\u{1B}]0;title\u{07}", "\\x1B]0;title\\x07"),
        ("\u{7F}\u{9B}", "\\x7F\\x9B"),
        ("abc\u{202E}txt.exe", "abc\\u{202E}txt.exe"),
        ("\u{2066}\u{200B}", "\\u{2066}\\u{200B}"),
        ("emoji 🙂 and é stay", "emoji 🙂 and é stay"),
    ])
    func escapesEveryControlCharacter(_ input: String, _ expected: String) {
        #expect(TerminalText.escaped(input) == expected)
    }

    /// Invisible characters found getting through a hand-picked list: each is escaped now, by its Unicode properties.
    @Test(arguments: [
        0x00AD, 0x180E, 0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, 0xFFF9, 0xFFFA, 0xFFFB,
        0xE0000, 0xE0001, 0xE0020, 0xE0041, 0xE007F, 0x1D173, 0x1D17A, 0x115F, 0x1160, 0x3164, 0xFFA0,
        0xFE0F, 0xE0100, 0x2028, 0x2029, 0x034F, 0x17B4,
    ])
    func escapesInvisibleCharactersByProperty(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let hex = String(value, radix: 16, uppercase: true)
        let shown = TerminalText.escaped("a" + String(Character(scalar)) + "b")
        let escape = value < 0x100 ? "\\x" + hex : "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
        #expect(shown == "a" + escape + "b", "\(shown)")
        #expect(!shown.unicodeScalars.contains(scalar))
    }

    @Test func visibleTextOfEveryScriptStays() {
        for text in ["Zoë Ångström", "Дмитрий", "李小龍", "مرحبا", "שלום", "नमस्ते", "한국어", "emoji 🙂👍🏽", "math ∑ ∞ ≠"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test func sanitizedKeepsLineBreaksAndTabsOnly() {
        #expect(TerminalText.sanitized("a\n\tb\u{1B}[2J\r") == "a\n\tb\\x1B[2J\\r")
    }

    /// What must be escaped is what the Unicode properties say, for every scalar: the shortcuts
    /// taken for ASCII and Latin-1 agree with them.
    @Test func escapedScalarsAreThoseThePropertiesName() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let properties = scalar.properties
            let expected =
                value < 0x20 || (0x7F...0x9F).contains(value)
                || [.control, .format, .lineSeparator, .paragraphSeparator].contains(properties.generalCategory)
                || properties.isDefaultIgnorableCodePoint
            if TerminalText.needsEscape(scalar) != expected { disagreements.append(value) }
            if disagreements.count > 10 { break }
        }
        #expect(disagreements.isEmpty, "\(disagreements.map { String($0, radix: 16) })")
    }

    /// Text is first judged from its UTF-8 bytes, and by scalar only from the first byte that is not
    /// printable ASCII: that judgement agrees with the scalar's properties for every scalar of every
    /// length (1 to 4 bytes).
    @Test func theByteScanAgreesWithTheScalarPropertiesEverywhere() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "x" + String(Character(scalar)) + "y"
            let untouched = TerminalText.escaped(text) == text
            if untouched == TerminalText.needsEscape(scalar) { disagreements.append(value) }
            if disagreements.count > 10 { break }
        }
        #expect(disagreements.isEmpty, "\(disagreements.map { String($0, radix: 16) })")
    }
}
