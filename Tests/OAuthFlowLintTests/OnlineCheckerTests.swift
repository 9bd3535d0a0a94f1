import Foundation
import OAuthFlow
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlowLint

/// Serves one discovery document for every request.
private struct DocumentServer: HTTPTransport {
    let document: String

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
    }
}

@Suite struct OnlineCheckerTests {
    private func file(_ text: String) -> LintFile {
        LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: "example.yaml"))
    }

    /// A minimal descriptor: issuer and discovery, everything else default (`iss_parameter: if_present`).
    let minimal = """
        schema_version: 1
        id: example
        display_name: Example
        protocol: oidc
        issuer: https://auth.example.com
        discovery:
          mode: oidc
        scopes:
          default: [openid]
        """

    let supportsRFC9207 = """
        {"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize",
         "token_endpoint": "https://auth.example.com/token", "jwks_uri": "https://auth.example.com/jwks",
         "code_challenge_methods_supported": ["S256"], "scopes_supported": ["openid"],
         "authorization_response_iss_parameter_supported": true}
        """

    @Test func aServerSupportingRFC9207IsAdviceNotAFailureUnderStrict() async throws {
        let diagnostics = await OnlineChecker(transport: DocumentServer(document: supportsRFC9207)).check(file(minimal))
        let iss = try #require(diagnostics.first { $0.ruleID == "online_iss_parameter" })
        #expect(iss.severity == .info)
        // What `lint --strict` fails on: errors and warnings, never advice.
        #expect(diagnostics.allSatisfy { $0.severity == .info }, "\(diagnostics)")
        #expect(GitHubReporter().report([iss]).hasPrefix("::notice "))
    }

    @Test func requiringWhatTheServerDoesNotAdvertiseStaysAWarning() async throws {
        let document = supportsRFC9207.replacingOccurrences(of: "true", with: "false")
        let diagnostics = await OnlineChecker(transport: DocumentServer(document: document))
            .check(file(minimal + "\nsecurity:\n  iss_parameter: required\n"))
        #expect(diagnostics.first { $0.ruleID == "online_iss_parameter" }?.severity == .warning, "\(diagnostics)")
    }

    @Test func severitiesOrderAdviceBelowWarnings() {
        #expect(Severity.info < .warning && Severity.warning < .error)
    }
}

@Suite struct IssuerOnlyDescriptorTests {
    @Test func lintSaysDiscoveryIsMissing() {
        let text = "schema_version: 1\nid: example\ndisplay_name: Example\nprotocol: oidc\nissuer: https://auth.example.com\nscopes:\n  default: [openid]\n"
        let diagnostics = Linter().lint([LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: "example.yaml"))])
        let finding = diagnostics.first { $0.ruleID == "endpoints_or_discovery" }
        #expect(finding?.severity == .error)
        #expect(finding?.message.contains("`discovery` is missing") == true, "\(diagnostics)")
    }
}
