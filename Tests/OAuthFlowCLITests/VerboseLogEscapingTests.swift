import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// A discovery document whose endpoint's host decodes to control characters is refused, and what the command prints of
/// it is escaped: it once reached the terminal raw through `--verbose`'s log line (a forged line, colors, a window title).
@Suite struct VerboseLogEscapingTests {
    @Test func aDiscoveredHostWithControlCharactersIsLoggedEscaped() async throws {
        let server = try HostileServer(
            .fixedForPort { port in
                let base = "http://127.0.0.1:\(port)"
                let json =
                    #"{"issuer":"\#(base)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","jwks_uri":"\#(base)/jwks","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"],"code_challenge_methods_supported":["S256"],"userinfo_endpoint":"https://x%0AFORGED-LINE%1B%5B31mRED%1B%5D0;TITLE%07.example/ui"}"#
                return Data(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)".utf8)
            })
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try directory.write(
            "providers/evd.yaml",
            "schema_version: 1\nid: evd\ndisplay_name: Evd\nprotocol: oidc\nissuer: http://127.0.0.1:\(server.port)\ndiscovery:\n  mode: oidc\nclient_auth:\n  methods: [none]\n"
        )
        let result = try await runProduct(
            "oauthflow",
            ["authorize-url", "evd", "--client-id", "c", "--verbose", "--providers-dir", directory.url.appendingPathComponent("providers").path],
            environment: ["XDG_STATE_HOME": directory.url.appendingPathComponent("state").path, "XDG_CONFIG_HOME": directory.url.path])
        // Refused: a host with control characters is no host name; the message shows it escaped.
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("whose host is no host name") && result.stderr.lowercased().contains("forged-line"), "\(result.stderr)")
        #expect(!result.stderr.lowercased().contains("\nforged-line") && !result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{07}"), "\(result.stderr)")
    }
}
