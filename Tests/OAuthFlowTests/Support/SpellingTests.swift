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

    /// A word that begins several candidates names them all, in their order, rather than the nearest by edits (which
    /// for `client_secret` was the rarest method, `client_secret_jwt`); one it begins alone is the nearest as before.
    @Test func aWordThatBeginsSeveralCandidatesNamesThemAll() {
        let methods = ["none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"]
        #expect(
            Spelling.didYouMean("client_secret", among: methods)
                == "did you mean `client_secret_basic`, `client_secret_post` or `client_secret_jwt`?")
        #expect(Spelling.didYouMean("Client_Secret_P", among: methods) == "did you mean `client_secret_post`?")
        #expect(Spelling.didYouMean("client_secret_bsic", among: methods) == "did you mean `client_secret_basic`?")
        #expect(Spelling.didYouMean("", among: methods) == nil)
        #expect(Spelling.didYouMean("zzzzzzzz", among: methods) == nil)
    }
}
