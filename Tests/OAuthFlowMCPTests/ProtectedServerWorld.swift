import Foundation
import MCP
import OAuthFlow
import OAuthFlowMCP
import OAuthFlowTesting

/// A protected MCP server at https://mcp.example.com/mcp with three tools, and the authorization server its tokens come
/// from (a ``SimulatedProvider`` at https://auth.example.com issuing RFC 9068 JWTs), in process.
///
/// Tools: `whoami` (any accepted token) answers the caller's subject; `add_note` needs `notes:write`; `request_view`
/// answers which headers of the request the SDK was handed, and whether ``ProtectedMCPServer/Access/current`` builds a
/// token exchange whose subject token is the caller's.
struct ProtectedServerWorld {
    static let endpoint = URL(string: "https://mcp.example.com/mcp")!
    static let issuer = URL(string: "https://auth.example.com")!

    let provider: SimulatedProvider

    init(dpop: Bool = false) throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        provider = try SimulatedProvider(issuer: Self.issuer, settings: settings)
        self.dpop = dpop
    }

    let dpop: Bool

    var descriptorOptions: SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        options.bindsTokensWithDPoP = dpop
        options.scopes = ["mcp:read"]
        return options
    }

    /// The API's token checks: this server's URI as resource and audience.
    func api() throws -> ProtectedResource {
        try ProtectedResource(
            providers: [try provider.provider(descriptorOptions)],
            settings: .mcpServer(at: Self.endpoint, scopesSupported: ["mcp:read", "notes:write"], resourceName: "Notes MCP"),
            environment: provider.environment)
    }

    static let configuration = ProtectedMCPServer.Configuration(scopes: ["mcp:read"], toolScopes: ["add_note": ["notes:write"]])

    func server(_ configuration: ProtectedMCPServer.Configuration = Self.configuration) throws -> ProtectedMCPServer {
        try ProtectedMCPServer(try api(), configuration: configuration, makeServer: Self.makeServer)
    }

    /// The `Server` of a session: three tools.
    @Sendable static func makeServer(_ principal: ProtectedResource.Principal) async throws -> Server {
        let server = Server(name: "notes", version: "1.0.0", capabilities: .init(tools: .init()))
        let schema: Value = ["type": "object"]
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: [
                Tool(name: "whoami", description: "Who is calling", inputSchema: schema),
                Tool(name: "add_note", description: "Adds a note", inputSchema: schema),
                Tool(name: "request_view", description: "What the server was handed", inputSchema: schema),
            ])
        }
        await server.withMethodHandler(CallTool.self) { call in
            guard let access = ProtectedMCPServer.Access.current else { return CallTool.Result(content: [.text(text: "no access", annotations: nil, _meta: nil)], isError: true) }
            let subject = access.principal.subject ?? "-"
            switch call.name {
            case "whoami":
                return CallTool.Result(content: [.text(text: "you are \(subject) (\(access.principal.scopes.joined(separator: " ")))", annotations: nil, _meta: nil)])
            case "add_note":
                let text = call.arguments?["text"]?.stringValue ?? ""
                return CallTool.Result(content: [.text(text: "added \(text) for \(subject)", annotations: nil, _meta: nil)])
            case "request_view":
                let names = Server.currentHandlerContext?.httpContext?.headers.keys.map { $0.lowercased() }.sorted() ?? []
                let exchange = access.tokenExchange(for: OAuthClient.ServiceTokenRequest(audiences: ["upstream-api"]))
                let subjectToken = exchange.subjectToken.value
                return CallTool.Result(content: [.text(text: names.joined(separator: ","), annotations: nil, _meta: nil), .text(text: subjectToken, annotations: nil, _meta: nil)])
            default:
                throw MCPError.invalidParams("unknown tool \(call.name)")
            }
        }
        return server
    }

    /// A user's access token: signed in with the code flow, for `resource` (this server unless given another; none
    /// for the provider's default audience), with `scopes`.
    func signIn(
        subject: String = "user-1", scopes: [String] = ["mcp:read"], resource: URL? = Self.endpoint, clientID: String = SimulatedProvider.appClientID
    ) async throws -> TokenSet {
        if clientID != SimulatedProvider.appClientID {
            await provider.register(.public(id: clientID, redirectURIs: [SimulatedProvider.appRedirectURI]))
        }
        var configuration = ClientConfiguration(clientID: clientID, redirectURI: SimulatedProvider.appRedirectURI, scopes: scopes, requestOfflineAccess: false)
        configuration.resources = resource.map { [$0] } ?? []
        let client = OAuthClient(provider: try provider.provider(descriptorOptions), configuration: configuration, environment: provider.environment)
        let pending = try await client.startAuthorization()
        return try await client.finishSignIn(.callback(try await provider.approve(pending.url, subject: subject)), pending: pending).tokens
    }

    // MARK: - Messages

    static func initialize(id: Int = 1) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tests","version":"1"}}}"#
    }

    static let initialized = #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#

    static func listTools(id: Int = 2) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/list","params":{}}"# }

    static func callTool(_ name: String, id: Int = 3, arguments: String = "{}") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(name)","arguments":\#(arguments)}}"#
    }

    /// The JSON-RPC messages of an answer: the body itself (JSON), or each SSE event's `data` that is not empty.
    static func messages(_ body: Data) -> [[String: Any]] {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] { return [object] }
        let text = String(decoding: body, as: UTF8.self)
        return text.components(separatedBy: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The texts of a `tools/call` result.
    static func texts(_ message: [String: Any]?) -> [String] {
        let content = (message?["result"] as? [String: Any])?["content"] as? [[String: Any]] ?? []
        return content.compactMap { $0["text"] as? String }
    }

    /// The names of a `tools/list` result.
    static func toolNames(_ message: [String: Any]?) -> [String] {
        ((message?["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }
}
