import Testing
@testable import OAuthFlow

@Suite struct SpellingTests {
    @Test(arguments: [("kitten", "sitting", 3), ("", "abc", 3), ("scopes", "scopes", 0), ("flaw", "lawn", 2)])
    func editDistance(a: String, b: String, distance: Int) {
        #expect(Spelling.editDistance(a, b) == distance)
    }

    @Test func suggestionsStayClose() {
        #expect(Spelling.closest(to: "endpoint", among: ["endpoints", "issuer"]) == "endpoints")
        #expect(Spelling.closest(to: "zzzzzz", among: ["endpoints", "issuer"]) == nil)
    }
}

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

    @Test func sanitizedKeepsLineBreaksAndTabsOnly() {
        #expect(TerminalText.sanitized("a\n\tb\u{1B}[2J\r") == "a\n\tb\\x1B[2J\\r")
    }
}
