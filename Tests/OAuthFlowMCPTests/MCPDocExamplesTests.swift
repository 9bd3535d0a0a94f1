import Foundation
import Hummingbird
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP
import OAuthFlowMCPHummingbird
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plays the user's browser: follows each redirect (the simulated provider consents at once) back to the loopback.
struct StandInBrowser: BrowserOpener {
    func open(_ url: URL) async throws {
        Task {   // the sign-in waits for the redirect: never wait for it inside open(_:)
            var next: URL? = url
            for _ in 0..<5 {
                guard let target = next, let answer = try? await DefaultHTTPTransport(timeout: 30).send(TransportRequest(method: .get, url: target)) else { return }
                next = (300..<400).contains(answer.status) ? answer.header("Location").flatMap(URL.init(string:)) : nil
            }
        }
    }
}

/// Docs/mcp.md's "Both sides on one machine", run as written (on a free port instead of 8080): the simulated provider
/// served on 127.0.0.1, a protected MCP server, and a client that signs in, steps up and gets the tool's answer.
@Suite struct MCPDocExamplesTests {
    /// The example's one line that this test replaces with a free port.
    func examplePort() -> Int {
        let port = 8080
        return port
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func bothSidesOnOneMachine() async throws {
        let printed = try await oneMachine(port: try unusedPort())
        #expect(printed == ["add_note for user-1"])
    }

    /// The example; `print` is replaced by collecting what it prints.
    @available(macOS 14, iOS 17, tvOS 17, *)
    func oneMachine(port: Int) async throws -> [String] {
        var printed: [String] = []
        func print(_ text: String) { printed.append(text) }

        // The authorization server, with the client registered there.
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let authorizationServer = try await SimulatedProviderServer.start(
            settings: settings, clients: [.public(id: "my-agent", redirectURIs: [URL(string: "http://127.0.0.1/callback")!])])
        let provider = authorizationServer.provider

        // The MCP server: its URI names the port it listens on.
        let endpoint = URL(string: "http://127.0.0.1:\(port)/mcp")!
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let api = try ProtectedResource(
            providers: [try provider.provider(options)], settings: .mcpServer(at: endpoint, scopesSupported: ["notes:read", "notes:write"]),
            environment: provider.environment)
        let configuration = ProtectedMCPServer.Configuration(scopes: ["notes:read"], toolScopes: ["add_note": ["notes:write"]], sessions: .stateless)
        let mcp = try ProtectedMCPServer(api, configuration: configuration) { principal in
            let server = Server(name: "notes", version: "1.0.0", capabilities: .init(tools: .init()))
            await server.withMethodHandler(CallTool.self) { call in
                CallTool.Result(content: [.text(text: "\(call.name) for \(principal.subject ?? "-")", annotations: nil, _meta: nil)])
            }
            return server
        }
        let router = Router()
        router.addMCPServer(mcp)
        let (listening, started) = AsyncStream<Void>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), onServerRunning: { _ in started.yield() })
        let serving = Task {
            defer { started.finish() }   // a run that ends (a port already taken) ends the wait too
            try await app.runService()
        }
        for await _ in listening { break }   // the server is listening

        // The client.
        var clientConfiguration = MCPAuthorizer.Configuration(store: InMemoryTokenStore(), browser: StandInBrowser())
        clientConfiguration.clients = [provider.issuer.absoluteString: ClientSettings(clientID: "my-agent")]
        let authorizer = MCPAuthorizer(clientConfiguration)
        let transport = HTTPClientTransport(endpoint: endpoint, streaming: false, authorizer: authorizer, requestModifier: authorizer.requestModifier)
        let client = Client(name: "my-agent", version: "1.0.0")
        _ = try await client.connect(transport: transport)   // 401, discovery, the sign-in for notes:read
        let (answer, _) = try await client.callTool(name: "add_note", arguments: ["text": "hello"])   // 403, a sign-in for notes:write too
        if case let .text(text, _, _) = answer.first { print(text) }   // add_note for user-1

        await client.disconnect()
        serving.cancel()
        await authorizationServer.stop()
        return printed
    }
}
