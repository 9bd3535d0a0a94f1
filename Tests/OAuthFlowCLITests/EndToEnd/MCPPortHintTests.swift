import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// `oauthflow mcp login` against an authorization server that compares loopback redirect URIs with their port (the
/// Python MCP SDK's, as FastMCP's in-memory one; against RFC 8252 §7.3), issue 61 item 13: without `--port` the client
/// registers the port-less URI, the server shows an error page, and the timeout says that the port can be fixed.
@Suite(.enabled(if: TestMCPServer.shouldRun, TestMCPServer.skipReason), .serialized)
struct MCPPortHintTests {
    @Test func aTimeoutAfterAPortComparingServerNamesThePortFlag() async throws {
        let server = try TestMCPServer.require()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let browser = "\(try MCPCommandEndToEndTests.python()) \(repositoryRoot.appendingPathComponent("Tests/MCPServer/browser.py").path)"
        let environment = ["XDG_STATE_HOME": directory.url.path, "BROWSER": browser]
        let url = server.mcp.absoluteString
        let login = try await CLI.run(["mcp", "login", url, "--timeout", "5"], environment: environment)
        #expect(login.status == 2, "\(login.stderr)")
        #expect(login.stderr.contains("hint: if the browser showed an error about the redirect URI, the authorization server compares loopback ports"), "\(login.stderr)")
        #expect(login.stderr.contains("`oauthflow mcp login \(url) --port 8765`"), "\(login.stderr)")

        // With the port fixed, the hint is not given: the port is what was registered.
        let fixed = try await CLI.run(["mcp", "login", url, "--timeout", "1", "--port", "\(try unusedPort())", "--no-browser"], environment: environment)
        #expect(fixed.status == 2, "\(fixed.stderr)")
        #expect(!fixed.stderr.contains("compares loopback ports"), "\(fixed.stderr)")
    }
}
