import Foundation
import Testing
import OAuthFlowTestSupport
import Yams
@testable import OAuthFlow

/// Plain scalars typed without regular expressions: the same tag as Yams' default resolver
/// (whose rules are regular expressions) for every scalar tried.
@Suite struct ScalarTypingTests {
    static let samples: [String] = [
        "", "~", "null", "Null", "NULL", "nULL", "nil",
        "yes", "Yes", "YES", "yEs", "no", "No", "NO", "true", "True", "TRUE", "tRue", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "y", "n", "truex",
        "0", "-0", "+0", "00", "07", "08", "0_7", "0o17", "0o", "0o8", "0b101", "0b", "0b2", "-0b1_0", "0x1F", "0xG", "0x",
        "+0x_a", "1", "12", "1_000", "-12", "+12", "1:30", "1:30:59", "1:60", "1:5", "1:", ":30", "190:20:30", "1__",
        "1.5", "1.", ".5", "-.5", "+1.5e3", "1e3", "1E-3", "1e", "1e+", ".5e3", ".5e+3", ".5e-3", ".", "._", "._1",
        ".inf", "-.inf", "+.Inf", ".INF", ".nan", ".NaN", "-.nan", ".Nan", "1:30.5", "1:30.", "190:20:30.15",
        "<<", "<", "=", "==",
        "2024-01-01", "2024-1-1", "2024-01-01T10:00:00", "2024-1-1t1:00:00", "2024-01-01 10:00:00",
        "2024-01-01  10:00:00.123", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00 Z", "2024-01-01T10:00:00+01",
        "2024-01-01T10:00:00-01:30", "2024-01-01T10:00:00+1:3", "2024-01-01T10:00", "2024-001-01", "20240-01-01",
        "2024-01-01T10:00:00.", "2024-01-01 10:00:00 ",
        "https://example.com", "{tenant}.example.com", "openid", "S256", "client_secret_basic", "ünïcode", "1.2.3",
    ]

    @Test(arguments: samples)
    func sameTagAsTheDefaultResolver(_ text: String) {
        #expect(ScalarTyping.resolve(text) == Self.regexTag(text), "\(text)")
    }

    @Test func randomScalarsGetTheSameTagAsTheDefaultResolver() {
        // Scalars built from the characters the rules care about, so most of them come close to a rule.
        let alphabet = Array("0123456789_:.-+eExXoObBTtZ nNaAiIfF")
        var generator = SystemRandomNumberGenerator()
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...12, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if ScalarTyping.resolve(text) != Self.regexTag(text) { disagreements.append(text) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
    }

    @Test func quotedAndExplicitlyTaggedScalarsKeepTheirTags() throws {
        let root = try #require(try YAMLTree.compose("a: 'yes'\nb: !!str 12\nc: !!int '7'\nd: yes\ne: ! 12\nyes: 1\n\"no\": 2\n12: 3\n")?.root)
        #expect(root.pairs.map(\.value.tag) == [.str, .str, .int, .bool, .str, .int, .int, .int])
        #expect(root.pairs.map(\.key.tag) == [.str, .str, .str, .str, .str, .bool, .str, .int])
    }

    /// A boolean's value read from its bytes is the one Yams constructs, and only booleans have one,
    /// whatever mix of cases the word is written in.
    @Test(arguments: samples + ["yES", "YeS", "YEs", "nO", "oN", "oFF", "OfF", "TRUe", "fALSE", "FaLSE", "Yess", "ye", "nul", "NUll"])
    func booleanValuesAreYams(_ text: String) {
        var bytes = text
        let value = bytes.withUTF8 { ScalarTyping.bool(bytes: $0) }
        if Self.regexTag(text) == .bool {
            #expect(value == Bool.construct(from: Node.Scalar(text, Yams.Tag(.bool))), "\(text)")
            #expect(value != nil, "\(text)")
        } else {
            #expect(value == nil, "\(text)")
        }
    }

    private static func regexTag(_ text: String) -> Yams.Tag.Name {
        Resolver.default.resolveTag(of: Node(text, Yams.Tag(.implicit)))
    }
}
