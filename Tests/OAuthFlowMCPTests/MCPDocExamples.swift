import Foundation
import Hummingbird
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP
import OAuthFlowMCPHummingbird

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Docs/mcp.md's Swift lines, compiled here (DocExampleTests checks that each one appears in this file).
struct MCPDocExamples {
    static let page = "Docs/mcp.md"

    func client() async throws {
        let store = FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/mcp-sessions"))
        let authorizer = MCPAuthorizer(MCPAuthorizer.Configuration(store: store, browser: SystemBrowser(environment: ProcessInfo.processInfo.environment)))
        let transport = HTTPClientTransport(
            endpoint: URL(string: "https://mcp.example.com/mcp")!, streaming: false, authorizer: authorizer, requestModifier: authorizer.requestModifier)
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

// The server section of Docs/mcp.md: a protected MCP server on Hummingbird (on Vapor: MCPVaporDocExamples), and an
// upstream call through a token exchange. ProtectedMCPServerHummingbirdTests and ProtectedMCPServerVaporTests run the same calls in process.
extension MCPDocExamples {
    @available(macOS 14, iOS 17, tvOS 17, *)
    func protectedServer() async throws {
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [URL(fileURLWithPath: "/etc/notes/providers")]))
        let api = try oauth.protectedResource(
            trusting: ["notes-idp"], settings: .mcpServer(at: URL(string: "https://mcp.example.com/mcp")!, scopesSupported: ["notes:read", "notes:write"]))
        let mcp = try ProtectedMCPServer(api, configuration: .init(scopes: ["notes:read"], toolScopes: ["add_note": ["notes:write"]])) { principal in
            let server = Server(name: "notes", version: "1.0.0", capabilities: .init(tools: .init()))
            await server.withMethodHandler(ListTools.self) { _ in
                ListTools.Result(tools: [Tool(name: "add_note", description: "Adds a note", inputSchema: ["type": "object"])])
            }
            await server.withMethodHandler(CallTool.self) { call in
                let caller = ProtectedMCPServer.Access.current?.principal.subject ?? "-"
                return CallTool.Result(content: [.text(text: "\(call.name) for \(caller)", annotations: nil, _meta: nil)])
            }
            return server
        }
        let router = Router()
        router.addMCPServer(mcp)
        let app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
        try await app.runService()
    }

    /// The doc's stand-in for the host's call to its upstream API.
    @Sendable func callStorage(with token: Secret) async throws {}

    func upstream(oauth: OAuth, server: Server) async {
        await server.withMethodHandler(CallTool.self) { call in
            guard let access = ProtectedMCPServer.Access.current else { throw MCPError.invalidRequest("no caller") }
            let storage = try await oauth.serviceTokens(for: "notes-idp").exchangedToken(access.tokenExchange(for: .init(audiences: ["https://storage.example.com"])))
            try await callStorage(with: storage)   // the exchanged token, never the one the tool was called with
            return CallTool.Result(content: [.text(text: "\(call.name) done", annotations: nil, _meta: nil)])
        }
    }
}
