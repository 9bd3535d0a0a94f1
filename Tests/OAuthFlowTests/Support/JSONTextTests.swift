import Foundation
import Testing

import OAuthFlow

/// JSON printed by the CLI: every character a terminal would act on is a JSON escape, and a real
/// parser reads back exactly the value that was encoded.
@Suite struct JSONTextTests {
    @Test(arguments: ["\u{9B}31m", "a\u{1B}[2Jb", "\u{7F}", "\u{202E}evil", "\u{2028}", "tag\u{E0041}", "plain é §", "\u{AD}"])
    func invisiblesAreJSONEscapesAndReadBackExactly(value: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = JSONText.escapingInvisibles(String(decoding: try encoder.encode(["claim": value]), as: UTF8.self))
        #expect(!json.unicodeScalars.contains { $0 != "\n" && TerminalText.needsEscape($0) }, "\(json.debugDescription)")
        #expect(!json.contains("\\x"), "\\x is no JSON escape")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(parsed?["claim"] == value)
    }
}
