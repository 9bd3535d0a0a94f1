import Foundation
import MCP
import OAuthFlow
import OAuthFlowTesting
import Testing

@testable import OAuthFlowMCP

/// `ProtectedMCPServer` without a framework: what it refuses to be set up with, how it reads the tool a body names,
/// and the answers it builds.
@Suite struct ProtectedMCPServerTests {
    func api(resource: URL, audience: String?) throws -> ProtectedResource {
        let world = try ProtectedServerWorld()
        return try ProtectedResource(
            providers: [try world.provider.provider(world.descriptorOptions)], settings: .init(resource: resource, audience: audience),
            environment: world.provider.environment)
    }

    @Test(arguments: [
        ("https://MCP.example.com/mcp", "https://MCP.example.com/mcp"),  // not lowercase
        ("https://mcp.example.com/mcp/", "https://mcp.example.com/mcp/"),  // a trailing slash
        ("https://mcp.example.com:443/mcp", "https://mcp.example.com:443/mcp"),  // the default port
        ("https://mcp.example.com/mcp?tenant=1", "https://mcp.example.com/mcp?tenant=1"),  // a query
        ("https://mcp.example.com/mcp", "https://mcp.example.com"),  // another audience
    ])
    func aServerWhoseResourceOrAudienceIsNotItsCanonicalURIIsRefused(resource: String, audience: String) throws {
        let api = try api(resource: try #require(URL(string: resource)), audience: audience)
        #expect(throws: MCPServerConfigurationError.self) {
            try ProtectedMCPServer(api, makeServer: ProtectedServerWorld.makeServer)
        }
    }

    @Test func anAudienceLeftToTheDescriptorIsRefused() throws {
        let api = try api(resource: ProtectedServerWorld.endpoint, audience: nil)
        let error = #expect(throws: MCPServerConfigurationError.self) { try ProtectedMCPServer(api, makeServer: ProtectedServerWorld.makeServer) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("ProtectedResource.Settings.mcpServer(at:)") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["", "two words", "quo\"te", "back\\slash", "caf\u{E9}"])
    func aScopeThatIsNotAScopeTokenIsRefused(scope: String) throws {
        let world = try ProtectedServerWorld()
        #expect(throws: MCPServerConfigurationError.self) {
            try ProtectedMCPServer(
                try world.api(), configuration: .init(toolScopes: ["tool": [scope]]), makeServer: ProtectedServerWorld.makeServer)
        }
    }

    @Test func aServerAtTheRootServesOneMetadataPath() throws {
        let world = try ProtectedServerWorld()
        let api = try ProtectedResource(
            providers: [try world.provider.provider(world.descriptorOptions)], settings: .mcpServer(at: URL(string: "https://mcp.example.com")!),
            environment: world.provider.environment)
        let server = try ProtectedMCPServer(api, makeServer: ProtectedServerWorld.makeServer)
        #expect(server.endpointPath == "/")
        #expect(server.metadataPaths == ["/.well-known/oauth-protected-resource"])
        var configuration = ProtectedMCPServer.Configuration()
        configuration.servesRootMetadata = false
        #expect(try world.server(configuration).metadataPaths == ["/.well-known/oauth-protected-resource/mcp"])
    }

    /// The tool is read as the SDK reads it; anything that is not a `tools/call` names no tool.
    @Test func theProbeReadsTheToolACallNames() {
        func probe(_ text: String) -> JSONRPCProbe { JSONRPCProbe(Data(text.utf8)) }
        #expect(probe(ProtectedServerWorld.callTool("add_note")).toolName == "add_note")
        #expect(probe(ProtectedServerWorld.callTool("add_note")).method == "tools/call")
        #expect(probe(ProtectedServerWorld.initialize()).isInitialize)
        #expect(probe(ProtectedServerWorld.listTools()).toolName == nil)
        #expect(probe(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#).toolName == nil)
        #expect(probe(#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"add_note"}}"#).toolName == nil)
        #expect(probe("  [\(ProtectedServerWorld.callTool("add_note"))]").isBatch)
        #expect(probe("not json").method == nil)
    }

    @Test func theScopesARequestNeedsAreTheServersAndItsToolsOnce() throws {
        let world = try ProtectedServerWorld()
        let server = try world.server(.init(scopes: ["mcp:read"], toolScopes: ["add_note": ["notes:write", "mcp:read"]]))
        #expect(server.requiredScopes(tool: nil) == ["mcp:read"])
        #expect(server.requiredScopes(tool: "whoami") == ["mcp:read"])
        #expect(server.requiredScopes(tool: "add_note") == ["mcp:read", "notes:write"])
    }

    /// A server the host's factory cannot make is a 500 (and, stateful, no session is kept), whichever transport runs.
    @Test(arguments: [ProtectedMCPServer.SessionMode.stateless, .stateful])
    func aServerThatCannotBeMadeIsAnswered500(_ mode: ProtectedMCPServer.SessionMode) async throws {
        let world = try ProtectedServerWorld()
        var configuration = ProtectedServerWorld.configuration
        configuration.sessions = mode
        let server = try ProtectedMCPServer(try world.api(), configuration: configuration) { _ in throw MCPError.internalError("no server today") }
        let token = try await world.signIn().accessToken.value
        let answer = await server.handle(
            .init(
                method: "POST", path: "/mcp",
                headers: [
                    ("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"), ("Authorization", "Bearer \(token)"),
                ],
                body: Data(ProtectedServerWorld.initialize().utf8)))
        #expect(answer.status == 500)
        #expect(await server.openSessions == 0)
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeTheToken() async throws {
        let world = try ProtectedServerWorld()
        var configuration = ProtectedServerWorld.configuration
        configuration.maximumBodySize = 16
        let server = try world.server(configuration)
        let answer = await server.handle(
            .init(method: "POST", path: "/mcp", headers: [("Content-Type", "application/json")], body: Data(ProtectedServerWorld.initialize().utf8)))
        #expect(answer.status == 413)
    }
}
