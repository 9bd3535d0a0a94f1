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

    /// RFC 9700 §2.1.1: a public client must use PKCE. A provider that takes none (`pkce: unsupported`) signs in only a
    /// confidential client; a public one is refused before anything is sent (a newcomer's `authorize-url` had printed
    /// a URL with no `code_challenge`).
    @Test func aPublicClientOfAProviderThatTakesNoPKCEIsRefused() async throws {
        let recorder = RecordingTransport(CannedTransport(body: "{}"))
        let provider = try TestDescriptor(extra: "security:\n  pkce: unsupported\nclient_auth:\n  methods: [none, client_secret_basic]\n")
            .descriptor().resolve([:])
        let redirect = URL(string: "http://127.0.0.1:9/callback")!
        let publicClient = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: redirect),
            environment: OAuthEnvironment(transport: recorder))
        let error = await #expect(throws: FlowError.self) { _ = try await publicClient.startAuthorization() }
        #expect(error?.code == .clientAuthentication && error?.message.contains("RFC 9700") == true, "\(String(describing: error))")
        #expect(recorder.requests.isEmpty)
        let confidential = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: redirect, clientSecret: Secret("s")),
            environment: OAuthEnvironment(transport: recorder))
        let pending = try await confidential.startAuthorization()
        #expect(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "code_challenge" } == false)
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
