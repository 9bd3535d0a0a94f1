import Foundation
import MCP
import OAuthFlow
import OAuthFlowMCP
import OAuthFlowMCPVapor
import OAuthFlowTesting
import Testing
import VaporTesting

/// The same protected MCP server on Vapor, driven by Vapor's in-process tester: the metadata, the challenges, another
/// audience refused, a tool's scopes demanded, and a session from initialize to a tool's answer.
@Suite struct ProtectedMCPServerVaporTests {
    static func headers(token: String?, session: String? = nil, scheme: String = "Bearer", proof: String? = nil) -> HTTPHeaders {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        if let token { headers.add(name: .authorization, value: "\(scheme) \(token)") }
        if let session { headers.add(name: "Mcp-Session-Id", value: session) }
        if let proof { headers.add(name: "DPoP", value: proof) }
        return headers
    }

    static func post(
        _ tester: some TestingApplicationTester, _ body: String, token: String?, session: String? = nil, scheme: String = "Bearer", proof: String? = nil
    ) async throws -> TestingHTTPResponse {
        try await tester.sendRequest(
            .POST, "/mcp", headers: headers(token: token, session: session, scheme: scheme, proof: proof), body: ByteBuffer(string: body))
    }

    static func challenge(_ response: TestingHTTPResponse) -> String { response.headers["WWW-Authenticate"].joined(separator: " | ") }

    static func messages(_ response: TestingHTTPResponse) -> [[String: Any]] {
        ProtectedServerWorld.messages(Data(response.body.readableBytesView))
    }

    static func configure(_ mcp: ProtectedMCPServer) -> @Sendable (Application) async throws -> Void {
        { app in
            app.logger.logLevel = .warning
            app.addMCPServer(mcp)
        }
    }

    @Test func theMetadataIsServedAtThePathAndTheRoot() async throws {
        let world = try ProtectedServerWorld()
        try await withApp(configure: Self.configure(try world.server())) { app in
            let tester = try app.testing()
            for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
                let response = try await tester.sendRequest(.GET, path)
                #expect(response.status == .ok, "\(path)")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                #expect(document["resource"] as? String == "https://mcp.example.com/mcp")
                #expect(document["authorization_servers"] as? [String] == ["https://auth.example.com"])
                #expect(document["scopes_supported"] as? [String] == ["mcp:read", "notes:write"])
                #expect(document["bearer_methods_supported"] as? [String] == ["header"])
            }
        }
    }

    @Test func refusalsCarryTheChallengesOfRFC6750() async throws {
        let world = try ProtectedServerWorld()
        let elsewhere = try await world.signIn(resource: URL(string: "https://other-mcp.example.com/mcp")!).accessToken.value
        let reader = try await world.signIn().accessToken.value
        try await withApp(configure: Self.configure(try world.server())) { app in
            let tester = try app.testing()
            let none = try await Self.post(tester, ProtectedServerWorld.initialize(), token: nil)
            #expect(none.status == .unauthorized)
            #expect(Self.challenge(none).contains(#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#))
            #expect(Self.challenge(none).contains(#"scope="mcp:read""#) && !Self.challenge(none).contains("error="), "\(Self.challenge(none))")

            let wrong = try await Self.post(tester, ProtectedServerWorld.initialize(), token: elsewhere)
            #expect(wrong.status == .unauthorized && Self.challenge(wrong).contains(#"error="invalid_token""#), "\(Self.challenge(wrong))")

            let insufficient = try await Self.post(tester, ProtectedServerWorld.callTool("add_note"), token: reader)
            #expect(insufficient.status == .forbidden)
            #expect(Self.challenge(insufficient).contains(#"error="insufficient_scope""#))
            #expect(Self.challenge(insufficient).contains(#"scope="mcp:read notes:write""#), "\(Self.challenge(insufficient))")
        }
    }

    @Test func aGoodTokenReachesTheSDKAndAToolAnswers() async throws {
        let world = try ProtectedServerWorld()
        let token = try await world.signIn(subject: "user-3", scopes: ["mcp:read", "notes:write"]).accessToken.value
        try await withApp(configure: Self.configure(try world.server())) { app in
            let tester = try app.testing()
            let initialize = try await Self.post(tester, ProtectedServerWorld.initialize(), token: token)
            #expect(initialize.status == .ok, "\(Self.challenge(initialize))")
            let session = try #require(initialize.headers.first(name: "Mcp-Session-Id"))
            let initialized = try await Self.post(tester, ProtectedServerWorld.initialized, token: token, session: session)
            #expect(initialized.status == .accepted)
            let list = try await Self.post(tester, ProtectedServerWorld.listTools(), token: token, session: session)
            #expect(ProtectedServerWorld.toolNames(Self.messages(list).first) == ["whoami", "add_note", "request_view"])
            let added = try await Self.post(
                tester, ProtectedServerWorld.callTool("add_note", arguments: #"{"text":"bread"}"#), token: token, session: session)
            #expect(ProtectedServerWorld.texts(Self.messages(added).first) == ["added bread for user-3"])
        }
    }

    @Test func aDPoPBoundTokenNeedsItsProof() async throws {
        let world = try ProtectedServerWorld(dpop: true)
        let tokens = try await world.signIn()
        let key = try #require(tokens.proofKey)
        try await withApp(configure: Self.configure(try world.server())) { app in
            let tester = try app.testing()
            let proof = try await key.proof(method: .post, url: ProtectedServerWorld.endpoint, accessToken: tokens.accessToken)
            let accepted = try await Self.post(tester, ProtectedServerWorld.initialize(), token: tokens.accessToken.value, scheme: "DPoP", proof: proof)
            #expect(accepted.status == .ok, "\(Self.challenge(accepted))")
            let bare = try await Self.post(tester, ProtectedServerWorld.initialize(), token: tokens.accessToken.value)
            #expect(bare.status == .unauthorized)
        }
    }
}
