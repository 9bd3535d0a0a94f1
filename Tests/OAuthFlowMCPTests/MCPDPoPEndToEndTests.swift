import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP
import OAuthFlowMCPHummingbird
import OAuthFlowTestSupport
import OAuthFlowTesting
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift SDK's `HTTPClientTransport` with `MCPAuthorizer` and its `requestModifier`, against a Swift MCP server that
/// takes only DPoP-bound tokens (RFC 9449) and asks proofs for its nonce, both served on 127.0.0.1: the session is
/// DPoP-bound, every request carries a proof of its own, the resource's `use_dpop_nonce` is answered with the nonce it
/// gave, and a tool's 403 steps up to a new DPoP-bound session. Without the modifier, the stored DPoP session is refused
/// with a sentence rather than sent as a Bearer token.
@Suite struct MCPDPoPEndToEndTests {
    static let clientID = "swift-mcp-client"

    /// What the MCP server was sent and answered, request by request.
    struct Exchange: Sendable {
        let path: String
        let scheme: String?
        let proof: String?
        let status: Int
        let challenge: String
    }

    /// Records each request's `Authorization` scheme, its `DPoP` header, and the answer.
    struct Recorder: RouterMiddleware {
        typealias Context = BasicRequestContext
        let log: Log<Exchange>

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let response = try await next(request, context)
            let scheme = request.headers[.authorization]?.split(separator: " ").first.map(String.init)
            let proof = HTTPField.Name("DPoP").flatMap { request.headers[$0] }
            log.add(
                Exchange(
                    path: request.uri.path, scheme: scheme, proof: proof, status: Int(response.status.code),
                    challenge: response.headers[values: .wwwAuthenticate].joined(separator: " | ")))
            return response
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aSwiftClientSignsInWithDPoPAnswersTheNonceAndStepsUp() async throws {
        var providerSettings = SimulatedProvider.Settings()
        providerSettings.accessTokenFormat = .jwt
        let authorizationServer = try await SimulatedProviderServer.start(
            settings: providerSettings, clients: [.public(id: Self.clientID, redirectURIs: [try #require(URL(string: "http://127.0.0.1/callback"))])])
        let provider = authorizationServer.provider
        let issuer = provider.issuer
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        options.bindsTokensWithDPoP = true
        let exchanges = Log<Exchange>()
        let app = try await LoopbackApplication.start(label: "mcp-dpop-test") { mcpPort in
            let endpoint = try #require(URL(string: "http://127.0.0.1:\(mcpPort)/mcp"))
            var settings = ProtectedResource.Settings.mcpServer(at: endpoint, scopesSupported: ["mcp:read", "notes:write"])
            settings.dpop = .required
            settings.dpopNonces = ProtectedResource.DPoPNonceSource()
            let api = try ProtectedResource(providers: [try provider.provider(options)], settings: settings, environment: provider.environment)
            let mcp = try ProtectedMCPServer(
                api, configuration: .init(scopes: ["mcp:read"], toolScopes: ["add_note": ["notes:write"]], sessions: .stateless),
                makeServer: ProtectedServerWorld.makeServer)
            let mcpRouter = Router()
            mcpRouter.add(middleware: Recorder(log: exchanges))
            mcpRouter.addMCPServer(mcp)
            return mcpRouter
        }
        let endpoint = try app.url("/mcp")

        let store = InMemoryTokenStore()
        var configuration = MCPAuthorizer.Configuration(
            store: store, browser: FollowingBrowser(),
            environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 10), clock: provider.clock, nonces: DPoPNonces()))
        configuration.clients = [issuer.absoluteString: ClientSettings(clientID: Self.clientID)]
        configuration.signInTimeout = .seconds(90)  // against a hang, far above a sign-in on a loaded machine
        let authorizer = MCPAuthorizer(configuration)
        let transport = HTTPClientTransport(endpoint: endpoint, streaming: false, authorizer: authorizer, requestModifier: authorizer.requestModifier)
        let client = Client(name: "dpop-tests", version: "1.0.0")
        _ = try await client.connect(transport: transport)
        let (tools, _) = try await client.listTools()
        #expect(tools.map(\.name) == ["whoami", "add_note", "request_view"])
        let (who, _) = try await client.callTool(name: "whoami")
        #expect(Self.texts(who) == ["you are user-1 (mcp:read offline_access)"] || Self.texts(who).first?.hasPrefix("you are user-1 (mcp:read") == true)
        let (added, failed) = try await client.callTool(name: "add_note", arguments: ["text": "dpop"])
        #expect(failed != true && Self.texts(added) == ["added dpop for user-1"], "\(added)")
        await client.disconnect()

        // The session is DPoP-bound, and the step-up's session too.
        let key = SessionKey(providerID: DescriptorDraft.exactID(prefix: "mcp-", for: issuer), account: endpoint.absoluteString)
        let session = try #require(await store.load(key))
        #expect(session.tokens.proofKey != nil)
        #expect(session.tokens.scopes.contains("notes:write"))

        let seen = exchanges.values.filter { $0.path == "/mcp" }
        let accepted = seen.filter { $0.status == 200 }
        #expect(accepted.count >= 4, "\(seen.map(\.status))")
        #expect(accepted.allSatisfy { $0.scheme == "DPoP" && $0.proof != nil }, "every accepted request is DPoP with a proof")
        let proofs = seen.compactMap(\.proof)
        #expect(Set(proofs).count == proofs.count, "a proof is never sent twice")
        #expect(seen.contains { $0.status == 401 && $0.challenge.contains("use_dpop_nonce") }, "the resource asked for its nonce: \(seen.map(\.challenge))")
        #expect(seen.contains { $0.status == 403 && $0.challenge.contains("insufficient_scope") }, "\(seen.map(\.challenge))")
        #expect(!seen.contains { $0.scheme?.lowercased() == "bearer" }, "no token went as a Bearer token")

        // A transport without the modifier: the stored DPoP session is not sent bare.
        let bare = MCPAuthorizer(configuration)
        let plain = HTTPClientTransport(endpoint: endpoint, streaming: false, authorizer: bare)
        let second = Client(name: "dpop-tests", version: "1.0.0")
        await #expect {
            _ = try await second.connect(transport: plain)
        } throws: { error in
            "\(error)".contains("DPoP-bound") && "\(error)".contains("requestModifier")
        }
        #expect(!exchanges.values.contains { $0.scheme?.lowercased() == "bearer" })
        #expect(exchanges.values.filter { $0.path != "/mcp" }.allSatisfy { $0.path.hasPrefix("/.well-known/oauth-protected-resource") })
        await app.stop()
        await authorizationServer.stop()
    }

    static func texts(_ content: [Tool.Content]) -> [String] {
        content.compactMap {
            if case let .text(text, _, _) = $0 { return text }
            return nil
        }
    }
}
