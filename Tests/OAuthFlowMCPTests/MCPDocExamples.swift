import Foundation
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Docs/mcp.md's Swift lines, compiled here (DocExampleTests checks that each one appears in this file).
struct MCPDocExamples {
    static let page = "Docs/mcp.md"

    func client() async throws {
        let store = FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/mcp-sessions"))
        let authorizer = MCPAuthorizer(MCPAuthorizer.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment)))
        let transport = HTTPClientTransport(endpoint: URL(string: "https://mcp.example.com/mcp")!, streaming: false, authorizer: authorizer)
        let client = Client(name: "my-agent", version: "1.0.0")
        _ = try await client.connect(transport: transport)
        let (tools, _) = try await client.listTools()
        _ = tools
    }

    func configured(store: any TokenStore) {
        var configuration = MCPAuthorizer.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
        configuration.clients = ["https://auth.example.com": ClientSettings(clientID: "my-agent")]
        configuration.clientMetadataDocument = URL(string: "https://agent.example.com/oauth/client.json")
        _ = MCPAuthorizer(configuration)
    }
}
