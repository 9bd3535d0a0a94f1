import Testing
import OAuthFlowTestSupport
import OAuthFlow

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
