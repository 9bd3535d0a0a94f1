import Foundation
import OAuthFlowTestSupport
import Testing

/// `oauthflow providers add ISSUER` against a discovery document served on 127.0.0.1, run as a user runs it.
@Suite struct ProvidersAddCommandTests {
    /// A server answering every request with a discovery document whose issuer is its own address (`issuer(port)`).
    static func server(_ document: @escaping @Sendable (_ issuer: String) -> String) throws -> HostileServer {
        try HostileServer(
            .fixedForPort { port in
                let body = document("http://127.0.0.1:\(port)")
                return Data(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8
                )
            })
    }

    static func document(_ issuer: String) -> String {
        #"""
        {"issuer":"\#(issuer)","authorization_endpoint":"\#(issuer)/authorize","token_endpoint":"\#(issuer)/token",
         "userinfo_endpoint":"\#(issuer)/userinfo","jwks_uri":"\#(issuer)/jwks","end_session_endpoint":"\#(issuer)/logout",
         "revocation_endpoint":"\#(issuer)/revoke","grant_types_supported":["authorization_code","refresh_token","implicit"],
         "code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none","client_secret_basic"],
         "id_token_signing_alg_values_supported":["RS256"],"scopes_supported":["openid","profile","email","offline_access"],
         "authorization_response_iss_parameter_supported":true}
        """#
    }

    @Test func aDescriptorIsWrittenToTheUserDirectoryThenLintsCleanOnlineAndResolves() async throws {
        let server = try Self.server(Self.document)
        defer { server.stop() }
        let config = try TemporaryDirectory()
        defer { config.cleanUp() }
        let environment = ["XDG_CONFIG_HOME": config.url.path]
        let issuer = "http://127.0.0.1:\(server.port)"
        let added = try await runProduct("oauthflow", ["providers", "add", issuer, "--id", "home-sso"], environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        let file = config.url.appendingPathComponent("oauthflow/providers/home-sso.yaml")
        #expect(added.stdout == file.path + "\n")
        #expect(added.stderr.contains("wrote \(file.path) (lint --strict: clean)"), "\(added.stderr)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("#   \(issuer)\n"))
        #expect(text.contains("issuer: \"\(issuer)\"\n"))

        let lint = try await runProduct("oauthflow", ["lint", "--strict", "--online", file.path], environment: environment)
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
        #expect(lint.stderr.contains("1 file checked: 0 errors, 0 warnings"), "\(lint.stderr)")
        let show = try await runProduct("oauthflow", ["providers", "show", "home-sso"], environment: environment)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("  issuer: \(issuer)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("iss required"), "\(show.stdout)")

        // A second add leaves the file alone unless --force.
        let again = try await runProduct("oauthflow", ["providers", "add", issuer, "--id", "home-sso"], environment: environment)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")
        let forced = try await runProduct(
            "oauthflow", ["providers", "add", issuer, "--id", "home-sso", "--force", "--output", config.url.path], environment: environment)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout == config.url.appendingPathComponent("home-sso.yaml").path + "\n")
    }

    /// What LemonLDAP::NG 2.16 showed (its document lists no offline_access, and an introspection endpoint): a file
    /// written with --output is signed in to and out of with --providers-dir, as printed; the note's rewrite command runs
    /// as printed; the refresh-token advice does not say none is asked for; `format: both` is suggested for JWT access
    /// tokens (seen failing before: no --providers-dir, no issuer in the note's command, which exited 64).
    @Test func theAdviceForAFileWrittenElsewhereRunsAsPrinted() async throws {
        let server = try Self.server { issuer in
            #"{"issuer":"\#(issuer)","authorization_endpoint":"\#(issuer)/authorize","token_endpoint":"\#(issuer)/token","jwks_uri":"\#(issuer)/jwks","#
                + #""end_session_endpoint":"\#(issuer)/logout","introspection_endpoint":"\#(issuer)/introspect","#
                + #""grant_types_supported":["authorization_code","refresh_token"],"code_challenge_methods_supported":["S256"],"#
                + #""token_endpoint_auth_methods_supported":["none","client_secret_basic"],"id_token_signing_alg_values_supported":["RS256"],"#
                + #""scopes_supported":["openid","profile","email"],"authorization_response_iss_parameter_supported":true}"#
        }
        defer { server.stop() }
        let config = try TemporaryDirectory()
        defer { config.cleanUp() }
        let environment = [
            "XDG_CONFIG_HOME": config.url.path, "XDG_STATE_HOME": config.url.appendingPathComponent("state").path, "BROWSER": "/bin/false",
        ]
        let issuer = "http://127.0.0.1:\(server.port)"
        let elsewhere = config.url.appendingPathComponent("elsewhere").path
        let added = try await runProduct("oauthflow", ["providers", "add", issuer, "--id", "lemon", "--output", elsewhere], environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("`oauthflow login lemon --providers-dir \(elsewhere) --client-id CLIENT_ID`"), "\(added.stderr)")
        #expect(added.stderr.contains("`oauthflow logout lemon --providers-dir \(elsewhere) --end-session`"), "\(added.stderr)")
        #expect(added.stderr.contains("`format: both`"), "\(added.stderr)")
        #expect(!added.stderr.contains("ask for no refresh token"), "\(added.stderr)")
        #expect(added.stderr.contains("a refresh token comes only if the server issues one unasked"), "\(added.stderr)")

        // The login line as printed finds the provider (and waits for a browser that never comes).
        let login = try await runProduct(
            "oauthflow", ["login", "lemon", "--providers-dir", elsewhere, "--client-id", "cli", "--no-browser", "--timeout", "1"],
            environment: environment)
        #expect(login.status == 2 && !login.stderr.contains("no provider named"), "\(login.stderr)")

        // The note's command as printed writes the file again.
        let note = try #require(added.stderr.split(separator: "\n").first { $0.contains("note: The server does not list offline_access") })
        let start = try #require(note.range(of: "write this file again with `"))
        let command = note[start.upperBound...].prefix { $0 != "`" }
        let words = command.split(separator: " ").map(String.init)
        #expect(words.first == "oauthflow" && words.contains(issuer), "\(command)")
        let rewritten = try await runProduct("oauthflow", Array(words.dropFirst()), environment: environment)
        #expect(rewritten.status == 0, "\(command): \(rewritten.stderr)")
    }

    @Test func aHostileDocumentWritesNothingAndItsTextArrivesEscaped() async throws {
        let server = try Self.server { issuer in
            // The issuer alone carries the escapes (URLs with control characters are no URLs at all).
            Self.document(issuer).replacingOccurrences(of: #""issuer":"\#(issuer)""#, with: #""issuer":"\#(issuer)\u001b]0;owned\u0007\u001b[2J""#)
        }
        defer { server.stop() }
        let config = try TemporaryDirectory()
        defer { config.cleanUp() }
        let result = try await runProduct(
            "oauthflow", ["providers", "add", "http://127.0.0.1:\(server.port)"], environment: ["XDG_CONFIG_HOME": config.url.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: "), "\(result.stderr)")
        #expect(result.stderr.contains(#"\x1B]0;owned\x07\x1B[2J"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!FileManager.default.fileExists(atPath: config.url.appendingPathComponent("oauthflow/providers").path))
    }

    @Test func aMalformedIDIsAUsageError() async throws {
        let result = try await runProduct("oauthflow", ["providers", "add", "https://sso.example.com", "--id", "Bad/ID"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--id takes lowercase letters"), "\(result.stderr)")
    }
}
