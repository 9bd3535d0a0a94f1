import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    @Test func appendixBVector() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test func generatedVerifiersAreLongUnreservedAndDistinct() throws {
        var seen: Set<String> = []
        for _ in 0..<200 {
            let pkce = PKCE.generate()
            let verifier = pkce.verifier.value
            #expect(verifier.utf8.count == 43)
            #expect(verifier.utf8.allSatisfy(PKCE.unreserved.contains))
            #expect(try PKCE(verifier: verifier).challenge == pkce.challenge)
            seen.insert(verifier)
        }
        #expect(seen.count == 200)
    }

    @Test(arguments: ["short", String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+", String(repeating: "é", count: 43)])
    func invalidVerifiersAreRejected(_ verifier: String) {
        #expect(throws: FlowError.self) { try PKCE(verifier: verifier) }
    }

    @Test func verifierNeverPrints() {
        let pkce = PKCE.generate()
        #expect(!"\(pkce)".contains(pkce.verifier.value))
        #expect(!String(reflecting: pkce.verifier).contains(pkce.verifier.value))
    }

    @Test(arguments: [("abc", "abc", true), ("abc", "abd", false), ("abc", "abcd", false), ("", "", true), ("a", "", false)])
    func constantTimeEquality(a: String, b: String, equal: Bool) {
        #expect(ConstantTime.equals(a, b) == equal)
    }
}
