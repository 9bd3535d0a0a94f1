import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// The descriptor pattern engine: the same answers as ICU on the patterns descriptors use, in linear time.
@Suite struct PatternTests {
    static let cases: [(String, String, Bool)] = [
        ("^[a-z0-9][a-z0-9-]*$", "acme-1", true),
        ("^[a-z0-9][a-z0-9-]*$", "-acme", false),
        ("^[a-z]{2,8}$", "us", true),
        ("^[a-z]{2,8}$", "u", false),
        ("^[a-z]{2,8}$", "abcdefghi", false),
        (#"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"#, "example.us.auth0.com", true),
        (#"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"#, "example", false),
        (#"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"#, "example..com", false),
        ("^[A-Za-z0-9.-]+(:[0-9]{1,5})?$", "gitlab.example.com:8443", true),
        ("^[A-Za-z0-9.-]+(:[0-9]{1,5})?$", "gitlab.example.com:123456", false),
        ("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", "9188040d-6c67-4c5b-b112-36a304b66dad", true),
        ("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", "9188040d-6c67-4c5b-b112-36a304b66da", false),
        ("us|eu", "eu", true),
        ("us|eu", "useu", false),
        ("(?:ab)*c", "ababc", true),
        (#"\d+\.\d+"#, "10.25", true),
        (#"[^/?#]+"#, "host", true),
        (#"[^/?#]+"#, "ho/st", false),
        (#"[\w.-]+"#, "a_b.c-d", true),
        (#"\s?x"#, " x", true),
        ("a{3}", "aaa", true),
        ("a{3}", "aaaa", false),
        ("a{2,}", "aaaaa", true),
        ("é+", "ééé", true),
        ("^$", "", true),
        ("a|", "", true),
        // Text beyond ASCII is matched scalar by scalar, ASCII text byte by byte: both ways agree with ICU.
        ("^[a-z]+$", "acmé", false),
        ("a.c", "aéc", true),
        ("[^a]", "é", true),
        (".+", "日本", true),
        ("^[a-z0-9-]+$", "acme-東京", false),
        // A program of a thousand steps: the matcher's scratch tables outgrow the stack.
        ("a{1000}", String(repeating: "a", count: 1000), true),
        ("a{1000}", String(repeating: "a", count: 999), false),
    ]

    @Test(arguments: cases)
    func agreesWithICU(_ pattern: String, _ value: String, _ expected: Bool) throws {
        #expect(Pattern.matchesWhole(value, pattern: pattern) == expected)
        let icu = try NSRegularExpression(pattern: pattern)
        let range = NSRange(value.startIndex..., in: value)
        let whole = icu.firstMatch(in: value, options: [.anchored], range: range)?.range == range
        #expect(whole == expected, "ICU disagrees on \(pattern) / \(value)")
    }

    /// Where ICU differs: a lazy quantifier still lets the whole string match, and a brace that opens no count is a literal.
    @Test func lazyQuantifiersAndLiteralBraces() {
        #expect(Pattern.matchesWhole("aaa", pattern: "a+?"))
        #expect(Pattern.matchesWhole("x{", pattern: "x{"))
        #expect(Pattern.matchesWhole("x{1,a}", pattern: "x{1,a}"))
    }

    @Test(arguments: [
        (#"(a)\1"#, "backreferences"),
        ("(?=a)a", "lookaround"),
        (#"\bword"#, #"`\b`"#),
        ("a++", "possessive"),
        ("[a-z", "not closed"),
        ("(a", "not closed"),
        ("a)", "unbalanced"),
        ("*a", "nothing to repeat"),
        ("a{5,2}", "wrong way round"),
        ("a{100000}", "above 1000"),
        ("[z-a]", "backwards"),
        ("(a{1000}){1000}", "too large"),
    ])
    func refusesWhatItCannotRunFast(_ pattern: String, _ reason: String) {
        let problem = Pattern.problem(in: pattern)
        #expect(problem?.contains(reason) == true, "\(problem ?? "accepted")")
        #expect(!Pattern.matchesWhole("a", pattern: pattern))
    }

    /// `^(a+)+$` against "aaa…!" takes ICU exponential time (20 s for 30 characters); here it is one pass.
    @Test func catastrophicPatternsRunInLinearTime() {
        let hostile = String(repeating: "a", count: 50_000) + "!"
        for pattern in ["^(a+)+$", "^(a|a)*$", "^(a*)*b$", "^(.*a){12}$", #"^(\w+\s?)*$"#] {
            #expect(!Pattern.matchesWhole(hostile, pattern: pattern), "\(pattern)")
            #expect(Pattern.matchesWhole(String(repeating: "a", count: 50_000), pattern: pattern) == (pattern != "^(a*)*b$"))
        }
    }

    @Test func variableValuesAreCheckedWithTheLinearEngine() throws {
        let text = """
            schema_version: 1
            id: redos
            display_name: ReDoS
            protocol: oauth2
            variables:
              tenant:
                description: Tenant
                pattern: '^(a+)+$'
            endpoints:
              authorization: https://{tenant}.example.com/authorize
              token: https://{tenant}.example.com/token

            """
        let descriptor = try #require(DescriptorDocument.parse(Data(text.utf8), path: "redos.yaml").descriptor)
        let error = try #require(throws: ProviderError.self) { try descriptor.resolve(["tenant": String(repeating: "a", count: 5_000) + "!"]) }
        #expect(error.code == .invalidVariable)
        #expect(try descriptor.resolve(["tenant": "aaaa"]).endpoints.token?.host == "aaaa.example.com")
    }
}
