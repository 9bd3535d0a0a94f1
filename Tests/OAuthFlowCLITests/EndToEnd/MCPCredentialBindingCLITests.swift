import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// Issue 61 item 1 against the built binary: `oauthflow mcp login|token URL --assertion-file F --client-id ID
/// --client-secret-env VAR` sends the workload's JWT and the client's secret only to the authorization server `--issuer`
/// names. A real MCP server on 127.0.0.1 whose metadata names another server E (which answers every request with its
/// metadata, and would take a token request) gets a refusal naming both issuers, and E receives nothing at all.
@Suite struct MCPCredentialBindingCLITests {
    static let secret = "workload-secret-0123456789abcdef"

    /// An HTTP/1.1 200 answer with a JSON body, then the connection closed.
    static func answer(_ json: String) -> Data {
        Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)".utf8)
    }

    /// A JWT (unsigned: the client only reads its claims) whose `aud` is `audience`.
    static func jwt(audience: String) -> String {
        func part(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let expiry = Int(Date().timeIntervalSince1970) + 600
        return part(#"{"alg":"ES256"}"#) + "." + part(#"{"iss":"https://platform.example","sub":"job","aud":"\#(audience)","exp":\#(expiry)}"#) + ".c2ln"
    }

    /// E: every request answered with authorization server metadata naming its own address, the JWT bearer grant and
    /// `client_secret_basic`.
    static func hostileAuthorizationServer() throws -> HostileServer {
        try HostileServer(
            .fixedForPort { port in
                let base = "http://127.0.0.1:\(port)"
                return answer(
                    #"{"issuer":"\#(base)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","response_types_supported":["code"],"grant_types_supported":["authorization_code","urn:ietf:params:oauth:grant-type:jwt-bearer"],"code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["client_secret_basic"]}"#
                )
            })
    }

    /// The MCP server: every request (its probe, its metadata) answered with protected-resource metadata naming `issuer`.
    static func mcpServer(naming issuer: String) throws -> HostileServer {
        try HostileServer(
            .fixedForPort { port in
                answer(#"{"resource":"http://127.0.0.1:\#(port)/mcp","authorization_servers":["\#(issuer)"]}"#)
            })
    }

    @Test func theClientsCredentialsNeedTheIssuerTheyAreFor() async throws {
        let result = try await CLI.run(["mcp", "login", "https://mcp.example.com/mcp", "--assertion-file", "/nonexistent", "--client-id", "job"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--issuer URL"), "\(result.stderr)")
        let notAnIssuer = try await CLI.run(
            ["mcp", "token", "https://mcp.example.com/mcp", "--assertion-file", "/nonexistent", "--client-id", "job", "--issuer", "http://evil.example"])
        #expect(notAnIssuer.status == 64, "\(notAnIssuer.stderr)")
    }

    /// `--issuer` names H (a look-alike of E's address: a trailing slash, `localhost`, another port); the MCP server's
    /// metadata names E. `mcp login` and `mcp token` both refuse, saying both issuers and the flag, and E gets nothing.
    @Test(arguments: ["trailing slash", "localhost", "another port"])
    func aServerNamingAnotherAuthorizationServerGetsNothing(_ lookalike: String) async throws {
        let evil = try Self.hostileAuthorizationServer()
        defer { evil.stop() }
        let named = "http://127.0.0.1:\(evil.port)"
        let mcp = try Self.mcpServer(naming: named)
        defer { mcp.stop() }
        let home =
            lookalike == "trailing slash" ? named + "/" : lookalike == "localhost" ? "http://localhost:\(evil.port)" : "http://127.0.0.1:\(evil.port == 1 ? 2 : 1)"
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        let assertion = Self.jwt(audience: home)
        let file = try files.write("token", assertion)
        chmod(file.path, 0o600)
        let environment = ["XDG_STATE_HOME": files.url.appendingPathComponent("state").path, "WORKLOAD_SECRET": Self.secret, "BROWSER": "/bin/false"]
        for command in ["login", "token"] {
            let result = try await CLI.run(
                [
                    "mcp", command, "http://127.0.0.1:\(mcp.port)/mcp", "--assertion-file", file.path, "--client-id", "reports-job",
                    "--client-secret-env", "WORKLOAD_SECRET", "--issuer", home,
                ] + (command == "login" ? ["--no-browser", "--timeout", "5"] : []), environment: environment)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(named) && result.stderr.contains(home) && result.stderr.contains("--issuer"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains(Self.secret) && !result.stderr.contains(assertion) && result.stdout.isEmpty)
        }
        #expect(evil.received.isEmpty, "E received: \(evil.received)")
        #expect(!mcp.received.contains { $0.contains(Self.secret) || $0.contains(assertion) || $0.contains("Basic ") })
    }
}
