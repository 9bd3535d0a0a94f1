import Foundation
import Hummingbird
import Logging
import MCP
import OAuthFlow
import OAuthFlowMCP
import OAuthFlowMCPHummingbird
import OAuthFlowTestSupport
import OAuthFlowTesting
import ServiceLifecycle
import Testing

/// The official Python MCP SDK's OAuth client (Tests/MCPPythonClient/client.py, from the virtualenv `scripts/test.sh`
/// installs the Python test peers into) against a protected Swift MCP server served by Hummingbird on 127.0.0.1: it
/// meets the 401, finds the authorization server through the RFC 9728 metadata, signs in with `resource`, lists and calls tools,
/// and steps up when a tool's scope is missing. The authorization server is the simulated provider, served over HTTP on
/// 127.0.0.1 beside it by `SimulatedProviderServer` (the user consents at once).
@Suite(.enabled(if: PythonMCPClient.shouldRun, "needs the Python MCP SDK's virtualenv: run `bash scripts/test.sh`"))
struct ProtectedMCPServerPythonClientTests {
    static let python = PythonMCPClient.python
    static let clientID = "python-mcp-client"

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func thePythonSDKsOAuthClientCallsToolsOnAProtectedSwiftServer() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `bash scripts/test.sh`")
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let authorizationServer = try await SimulatedProviderServer.start(
            settings: settings, clients: [.public(id: Self.clientID, redirectURIs: [SimulatedProvider.appRedirectURI])])
        let provider = authorizationServer.provider
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let app = try await LoopbackApplication.start(label: "mcp-python-client-test") { mcpPort in
            let endpoint = try #require(URL(string: "http://127.0.0.1:\(mcpPort)/mcp"))
            let api = try ProtectedResource(
                providers: [try provider.provider(options)], settings: .mcpServer(at: endpoint, scopesSupported: ["mcp:read", "notes:write"]),
                environment: provider.environment)
            let mcp = try ProtectedMCPServer(
                api, configuration: .init(scopes: ["mcp:read"], toolScopes: ["add_note": ["notes:write"]]), makeServer: ProtectedServerWorld.makeServer)
            let mcpRouter = Router()
            mcpRouter.addMCPServer(mcp)
            return mcpRouter
        }
        let endpoint = try app.url("/mcp")

        let redirect = "http://127.0.0.1:\(try unusedPort())/callback"
        let script = repositoryRoot.appendingPathComponent("Tests/MCPPythonClient/client.py")
        let result = try await ChildProcess.run(Self.python, [script.path, endpoint.absoluteString, Self.clientID, redirect])
        await app.stop()
        await authorizationServer.stop()
        #expect(result.status == 0, "\(result.stderr.suffix(3000))")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(answer["tools"] as? [String] == ["whoami", "add_note", "request_view"])
        // The first sign-in asks for the challenge's scope; `add_note`'s 403 makes the SDK sign in again with `notes:write`.
        #expect((answer["whoami"] as? [String: Any])?["texts"] as? [String] == ["you are user-1 (mcp:read offline_access)"], "\(answer)")
        let added = answer["add_note"] as? [String: Any]
        #expect(added?["texts"] as? [String] == ["added from python for user-1"] && added?["isError"] as? Bool == false, "\(answer)")
        let authorizations = answer["authorizations"] as? [[String: String]] ?? []
        #expect(authorizations.count == 2 && authorizations.allSatisfy { $0["resource"] == endpoint.absoluteString }, "\(authorizations)")
        #expect(authorizations.first?["scope"]?.split(separator: " ").contains("mcp:read") == true, "\(authorizations)")
        #expect(authorizations.last?["scope"]?.split(separator: " ").contains("notes:write") == true, "the step-up: \(authorizations)")
    }
}

/// The Python of the virtualenv `scripts/test.sh` installs the pinned `mcp` into (with every other Python test peer's
/// requirements; scripts/servers.sh); CI always has it.
enum PythonMCPClient {
    static let python = repositoryRoot.appendingPathComponent(".build/python/venv/bin/python")
    static var shouldRun: Bool {
        FileManager.default.isExecutableFile(atPath: python.path) || ProcessInfo.processInfo.environment["CI"] != nil
    }
}
