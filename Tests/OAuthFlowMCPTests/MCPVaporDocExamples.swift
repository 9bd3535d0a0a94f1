import OAuthFlowMCP
import OAuthFlowMCPVapor
import Vapor

/// Docs/mcp.md's Vapor lines, compiled here: Vapor's `Application` and `Server` would clash with Hummingbird's and the MCP
/// SDK's names in MCPDocExamples.
struct MCPVaporDocExamples {
    static let page = "Docs/mcp.md"

    func vapor(app: Application, mcp: ProtectedMCPServer) {
        app.addMCPServer(mcp)
    }
}
