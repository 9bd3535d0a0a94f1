import Foundation
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlowMCP
@testable import OAuthFlowMCPAuth

/// The conformance scenarios played from the other side: where a scenario's mock MCP server does what the spec asks of
/// a server (the challenge, the metadata, the audience), OAuthFlow's `ProtectedMCPServer` is put in its place (the
/// notes server of ``ProtectedServerWorld``, stateless, its tokens from a simulated authorization server) and held to
/// what the scenario's client relies on; the suite's client, played by `MCPAuthorization`, then signs in and calls it.
@Suite struct MCPConformanceServerSideTests {
    static let endpoint = ProtectedServerWorld.endpoint
    static let pathMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

    /// The protected server at https://mcp.example.com, its authorization server, and the suite's client of it.
    struct Side {
        let run: ConformanceRun
        let world: ProtectedServerWorld
        let server: ProtectedMCPServer
        let client: ConformanceClient
    }

    static func side() throws -> Side {
        let world = try ProtectedServerWorld()
        var configuration = ProtectedServerWorld.configuration
        configuration.sessions = .stateless
        let server = try world.server(configuration)
        let run = ConformanceRun(version: .v20251125)
        run.serve("https://mcp.example.com") { request in
            if request.method == .get, server.metadataPaths.contains(request.url.path) {
                run.record("prm-pathbased-requested", .success, request.url.absoluteString)
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: server.metadataDocument)
            }
            guard request.url.path == server.endpointPath else { return nil }
            var headers = request.headers.map { (name: $0.key, value: $0.value) }
            headers.append((name: "Host", value: "mcp.example.com"))
            let answer = await server.handle(
                .init(method: request.method.rawValue, path: request.url.path, headers: headers, body: request.body ?? Data()))
            var body = Data()
            switch answer.body {
            case let .bytes(data): body = data
            case let .stream(stream):
                do {
                    for try await chunk in stream { body.append(chunk) }
                } catch {}
            }
            var flat: [String: String] = [:]
            for (name, value) in answer.headers { flat[name] = flat[name].map { $0 + ", " + value } ?? value }
            return TransportResponse(status: answer.status, headers: flat, body: body)
        }
        run.serve("https://auth.example.com") { try await world.provider.transport.send($0) }
        let client = ConformanceClient(run: run, endpoint: endpoint) {
            $0.clients = [ProtectedServerWorld.issuer.absoluteString: ClientSettings(clientID: SimulatedProvider.appClientID)]
            $0.browser = ApprovingUser(provider: world.provider)
        }
        return Side(run: run, world: world, server: server, client: client)
    }

    /// The unauthenticated request's answer.
    static func challenge(_ side: Side, body: String = ProtectedServerWorld.listTools()) async throws -> TransportResponse {
        try await side.run.transport.send(
            TransportRequest(
                method: .post, url: endpoint,
                headers: ["Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"],
                body: Data(body.utf8)))
    }

    /// auth/metadata-default and auth/metadata-var2 from the server's side: the 401 names the path-based metadata (the
    /// location a client tries first), and both it and the root document name the server's canonical URI and its
    /// authorization server; the suite's client then signs in and lists the tools.
    @Test("auth/metadata-default, the server's side")
    func metadataDefault() async throws {
        let side = try Self.side()
        let answer = try await Self.challenge(side)
        #expect(answer.status == 401)
        let challenge = try #require(MCPAuthorization.challenge(in: answer.headers))
        #expect(challenge.scheme.lowercased() == "bearer")
        #expect(challenge.resourceMetadata?.absoluteString == Self.pathMetadata)
        #expect(side.server.metadataPaths == ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
        for path in side.server.metadataPaths {
            let document = try await side.run.transport.send(TransportRequest(method: .get, url: URL(string: "https://mcp.example.com" + path)!))
            let object = try #require(ConformanceRun.jsonBody(TransportRequest(method: .get, url: Self.endpoint, body: document.body)))
            #expect(object["resource"] == .string(Self.endpoint.absoluteString), "\(path)")
            #expect(object["authorization_servers"] == .array([.string(ProtectedServerWorld.issuer.absoluteString)]), "\(path)")
        }
        try await side.client.connect()
        let tools = try await side.client.request("tools/list")
        #expect(tools.status == 200)
        #expect(ProtectedServerWorld.toolNames(ProtectedServerWorld.messages(tools.body).first).contains("whoami"))
    }

    /// auth/scope-from-www-authenticate from the server's side: the 401 names the scope every request needs.
    @Test("auth/scope-from-www-authenticate, the server's side")
    func scopeFromWWWAuthenticate() async throws {
        let side = try Self.side()
        let challenge = try #require(MCPAuthorization.challenge(in: try await Self.challenge(side).headers))
        #expect(challenge.scopes == ["mcp:read"])
    }

    /// auth/scope-step-up from the server's side: a tool that needs more is answered 403 `insufficient_scope` naming
    /// every scope the call needs and the metadata, before the SDK sees the call; the client steps up and the call goes
    /// through.
    @Test("auth/scope-step-up, the server's side")
    func scopeStepUp() async throws {
        let side = try Self.side()
        try await side.client.connect()
        let token = try await side.world.signIn(scopes: ["mcp:read"])
        let refused = try await side.run.transport.send(
            TransportRequest(
                method: .post, url: Self.endpoint,
                headers: [
                    "Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
                    "Authorization": "Bearer " + token.accessToken.value,
                ], body: Data(ProtectedServerWorld.callTool("add_note").utf8)))
        #expect(refused.status == 403)
        let challenge = try #require(MCPAuthorization.challenge(in: refused.headers))
        #expect(challenge.error == "insufficient_scope")
        #expect(Set(challenge.scopes) == ["mcp:read", "notes:write"])
        #expect(challenge.resourceMetadata?.absoluteString == Self.pathMetadata)
        let call = try await side.client.request("tools/call", params: ["name": .string("add_note"), "arguments": .object(["text": .string("hi")])])
        #expect(call.status == 200)
        #expect(ProtectedServerWorld.texts(ProtectedServerWorld.messages(call.body).first).first?.hasPrefix("added hi") == true)
    }

    /// auth/resource-mismatch from the server's side (RFC 8707, MCP "Token Handling"): a token its authorization server
    /// issued for another resource is refused 401, as is one for the bare origin.
    @Test("auth/resource-mismatch, the server's side", arguments: ["https://evil.example.com/mcp", "https://mcp.example.com"])
    func resourceMismatch(_ other: String) async throws {
        let side = try Self.side()
        let token = try await side.world.signIn(scopes: ["mcp:read"], resource: URL(string: other))
        let refused = try await side.run.transport.send(
            TransportRequest(
                method: .post, url: Self.endpoint,
                headers: [
                    "Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
                    "Authorization": "Bearer " + token.accessToken.value,
                ], body: Data(ProtectedServerWorld.initialize().utf8)))
        #expect(refused.status == 401)
        #expect(MCPAuthorization.challenge(in: refused.headers)?.error == "invalid_token")
    }
}
