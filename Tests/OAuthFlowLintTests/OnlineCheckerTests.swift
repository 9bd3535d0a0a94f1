import Foundation
import OAuthFlow
import Testing
import OAuthFlowTestSupport
import OAuthFlowLint

/// Serves one discovery document for every request.
private struct DocumentServer: HTTPTransport {
    let document: String

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(document.utf8))
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

    /// A document whose endpoints every command refuses (plain http to another host) fails lint as it fails them.
    @Test(arguments: ["\"token_endpoint\": \"http://evil.example.net/token\"", "\"jwks_uri\": \"http://auth.example.com/jwks\""])
    func aPublishedEndpointTheClientRefusesIsAnError(_ member: String) async throws {
        let document = supportsRFC9207.replacingOccurrences(of: "\"code_challenge_methods_supported\"", with: member + ", \"code_challenge_methods_supported\"")
            .replacingOccurrences(of: "\"token_endpoint\": \"https://auth.example.com/token\", ", with: member.hasPrefix("\"token") ? "" : "\"token_endpoint\": \"https://auth.example.com/token\", ")
            .replacingOccurrences(of: "\"jwks_uri\": \"https://auth.example.com/jwks\",", with: member.hasPrefix("\"jwks") ? "" : "\"jwks_uri\": \"https://auth.example.com/jwks\",")
        let diagnostics = await OnlineChecker(transport: DocumentServer(document: document)).check(file(minimal))
        let refused = try #require(diagnostics.first { $0.ruleID == "online_endpoint" && $0.severity == .error }, "\(diagnostics)")
        #expect(refused.message.contains("only https"), "\(refused.message)")
    }

    @Test func requiringWhatTheServerDoesNotAdvertiseStaysAWarning() async throws {
        let document = supportsRFC9207.replacingOccurrences(of: "true", with: "false")
        let diagnostics = await OnlineChecker(transport: DocumentServer(document: document))
            .check(file(minimal + "\nsecurity:\n  iss_parameter: required\n"))
        #expect(diagnostics.first { $0.ruleID == "online_iss_parameter" }?.severity == .warning, "\(diagnostics)")
    }

    @Test func logoutIsComparedWithTheDocument() async throws {
        func findings(_ yaml: String, _ extra: String) async -> [Diagnostic] {
            let document = supportsRFC9207.replacingOccurrences(of: "\"authorization_response_iss_parameter_supported\": true", with: extra)
            return await OnlineChecker(transport: DocumentServer(document: document)).check(file(minimal + "\n" + yaml))
                .filter { $0.ruleID == "online_logout" }
        }
        let both = #""end_session_endpoint": "https://auth.example.com/logout", "backchannel_logout_supported": true, "backchannel_logout_session_supported": true"#
        // Declared and published: nothing to say.
        #expect(await findings("logout:\n  backchannel_logout_supported: true\n  backchannel_logout_session_supported: true\n", both).isEmpty)
        // Declared, not published: a warning at the key; published, not declared: advice.
        let missing = await findings("logout:\n  frontchannel_logout_supported: true\n", both)
        #expect(missing.contains { $0.severity == .warning && $0.message.contains("frontchannel_logout_supported") }, "\(missing)")
        #expect(missing.filter { $0.severity == .info }.count == 2, "\(missing)")
        // A custom logout URL where the standard endpoint is published, and a logout block with no endpoint anywhere.
        let custom = await findings(
            "endpoints:\n  end_session: https://auth.example.com/v2/logout\nlogout:\n  style: custom\n  redirect_parameter: returnTo\n", both)
        #expect(custom.contains { $0.severity == .warning && $0.message.contains("custom") }, "\(custom)")
        // (The document names each member once: the strict reader refuses a repeated one, so no `scopes_supported` here.)
        let nowhere = await findings("logout:\n  redirect_parameter: returnTo\n", #""response_modes_supported": ["query"]"#)
        #expect(nowhere.contains { $0.message.contains("no end_session_endpoint") }, "\(nowhere)")
    }

    @Test func pushedRequestsAndDPoPAreComparedWithTheDocument() async throws {
        func findings(_ yaml: String, _ extra: String) async -> [String: Severity] {
            let document = supportsRFC9207.replacingOccurrences(of: "\"authorization_response_iss_parameter_supported\": true", with: extra)
            let diagnostics = await OnlineChecker(transport: DocumentServer(document: document)).check(file(minimal + "\n" + yaml))
            return Dictionary(diagnostics.filter { ["online_pushed", "online_dpop"].contains($0.ruleID) }.map { ($0.ruleID, $0.severity) }) { first, _ in first }
        }
        // A server that requires pushed requests, and a descriptor that says never: a warning (the engine pushes anyway).
        #expect(await findings("authorization:\n  pushed: never\n", #""require_pushed_authorization_requests": true, "pushed_authorization_request_endpoint": "https://auth.example.com/par""#)["online_pushed"] == .warning)
        // `always` with no endpoint anywhere: a warning; with the server's endpoint: nothing.
        #expect(await findings("authorization:\n  pushed: always\n", #""token_endpoint_auth_methods_supported": ["none"]"#)["online_pushed"] == .warning)
        #expect(await findings("authorization:\n  pushed: always\n", #""pushed_authorization_request_endpoint": "https://auth.example.com/par""#)["online_pushed"] == nil)
        // DPoP required where the server lists no algorithms, or none in common: warnings.
        #expect(await findings("security:\n  dpop: required\n", #""token_endpoint_auth_methods_supported": ["none"]"#)["online_dpop"] == .warning)
        #expect(await findings("security:\n  dpop: required\n", #""dpop_signing_alg_values_supported": ["EdDSA"]"#)["online_dpop"] == .warning)
        #expect(await findings("security:\n  dpop: required\n", #""dpop_signing_alg_values_supported": ["ES256"]"#)["online_dpop"] == nil)
        // A server that supports DPoP, a descriptor that never uses it: advice.
        #expect(await findings("", #""dpop_signing_alg_values_supported": ["ES256"]"#)["online_dpop"] == .info)
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
