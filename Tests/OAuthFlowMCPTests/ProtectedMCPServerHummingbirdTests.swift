import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MCP
import OAuthFlow
import OAuthFlowMCP
import OAuthFlowMCPHummingbird
import OAuthFlowTesting
import Testing

/// A protected MCP server on Hummingbird, driven by Hummingbird's in-process test client with tokens from a simulated
/// authorization server: the RFC 9728 document, the RFC 6750 challenges with `resource_metadata` and `scope`, tokens for
/// another audience refused, a tool's scopes demanded with 403 `insufficient_scope`, and a good token reaching the SDK
/// (initialize, tools/list, tools/call) without its `Authorization` header.
@Suite struct ProtectedMCPServerHummingbirdTests {
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func app(_ mcp: ProtectedMCPServer) -> some ApplicationProtocol {
        let router = Router()
        router.addMCPServer(mcp)
        return Application(router: router)
    }

    /// A POST of `body` to the endpoint, as the stateful transport wants it.
    static func post(
        _ client: some TestClientProtocol, _ body: String, token: String?, session: String? = nil, scheme: String = "Bearer", proof: String? = nil,
        json: Bool = false
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json", .accept: json ? "application/json" : "application/json, text/event-stream"]
        if let token { headers[.authorization] = "\(scheme) \(token)" }
        if let session, let name = HTTPField.Name("Mcp-Session-Id") { headers[name] = session }
        if let proof, let name = HTTPField.Name("DPoP") { headers[name] = proof }
        return try await client.execute(uri: "/mcp", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func challenge(_ response: TestResponse) -> String { response.headers[values: .wwwAuthenticate].joined(separator: " | ") }

    static func session(_ response: TestResponse) -> String? { HTTPField.Name("Mcp-Session-Id").flatMap { response.headers[$0] } }

    static func messages(_ response: TestResponse) -> [[String: Any]] { ProtectedServerWorld.messages(Data(buffer: response.body)) }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theMetadataDocumentNamesTheServerItsAuthorizationServerAndScopes() async throws {
        let world = try ProtectedServerWorld()
        let mcp = try world.server()
        #expect(mcp.metadataPaths == ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
        try await Self.app(mcp).test(.router) { client in
            for path in mcp.metadataPaths {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.contentType] == "application/json")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(document["resource"] as? String == "https://mcp.example.com/mcp")
                #expect(document["authorization_servers"] as? [String] == ["https://auth.example.com"])
                #expect(document["scopes_supported"] as? [String] == ["mcp:read", "notes:write"])
                #expect(document["bearer_methods_supported"] as? [String] == ["header"])
                #expect(document["resource_name"] as? String == "Notes MCP")
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aRequestWithoutATokenIsChallengedWithTheMetadataAndTheScopes() async throws {
        let world = try ProtectedServerWorld()
        try await Self.app(try world.server()).test(.router) { client in
            let response = try await Self.post(client, ProtectedServerWorld.initialize(), token: nil)
            #expect(response.status == .unauthorized)
            let challenge = Self.challenge(response)
            #expect(challenge.hasPrefix("Bearer "), "\(challenge)")
            #expect(challenge.contains(#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#), "\(challenge)")
            #expect(challenge.contains(#"scope="mcp:read""#), "\(challenge)")
            #expect(!challenge.contains("error="), "no token, no error code (RFC 6750 §3.1): \(challenge)")
            #expect(response.headers[.cacheControl] == "no-store")

            // A tools/call without a token is told the tool's scopes too.
            let call = try await Self.post(client, ProtectedServerWorld.callTool("add_note"), token: nil)
            #expect(call.status == .unauthorized && Self.challenge(call).contains(#"scope="mcp:read notes:write""#), "\(Self.challenge(call))")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aTokenForAnotherAudienceIsRefusedAsInvalid() async throws {
        let world = try ProtectedServerWorld()
        let elsewhere = try await world.signIn(resource: URL(string: "https://other-mcp.example.com/mcp")!)
        let unaddressed = try await world.signIn(resource: nil)   // the provider's default audience
        try await Self.app(try world.server()).test(.router) { client in
            for tokens in [elsewhere, unaddressed] {
                let response = try await Self.post(client, ProtectedServerWorld.initialize(), token: tokens.accessToken.value)
                #expect(response.status == .unauthorized)
                let challenge = Self.challenge(response)
                #expect(challenge.contains(#"error="invalid_token""#), "\(challenge)")
                #expect(challenge.contains(#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#))
                #expect(challenge.contains(#"scope="mcp:read""#))
                #expect(!challenge.contains(tokens.accessToken.value))
            }
            let garbage = try await Self.post(client, ProtectedServerWorld.initialize(), token: "not-a-token")
            #expect(garbage.status == .unauthorized && Self.challenge(garbage).contains(#"error="invalid_token""#))
        }
    }

    /// initialize, the initialized notification, tools/list and tools/call, in one session; a tool that needs a scope
    /// the token lacks is refused 403 with the scopes needed, and a token that has it is let through.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aGoodTokenReachesTheSDKAndAToolAnswers() async throws {
        let world = try ProtectedServerWorld()
        let reader = try await world.signIn(subject: "user-1", scopes: ["mcp:read"])
        let writer = try await world.signIn(subject: "user-1", scopes: ["mcp:read", "notes:write"])
        let token = reader.accessToken.value
        try await Self.app(try world.server()).test(.router) { client in
            let initialize = try await Self.post(client, ProtectedServerWorld.initialize(), token: token)
            #expect(initialize.status == .ok, "\(Self.challenge(initialize))")
            #expect(initialize.headers[.contentType] == "text/event-stream")
            let session = try #require(Self.session(initialize))
            let info = (Self.messages(initialize).first?["result"] as? [String: Any])?["serverInfo"] as? [String: Any]
            #expect(info?["name"] as? String == "notes")

            let initialized = try await Self.post(client, ProtectedServerWorld.initialized, token: token, session: session)
            #expect(initialized.status == .accepted)

            let list = try await Self.post(client, ProtectedServerWorld.listTools(), token: token, session: session)
            #expect(ProtectedServerWorld.toolNames(Self.messages(list).first) == ["whoami", "add_note", "request_view"])

            let whoami = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: token, session: session)
            #expect(ProtectedServerWorld.texts(Self.messages(whoami).first) == ["you are user-1 (mcp:read)"])

            let refused = try await Self.post(client, ProtectedServerWorld.callTool("add_note", id: 4), token: token, session: session)
            #expect(refused.status == .forbidden)
            let challenge = Self.challenge(refused)
            #expect(challenge.contains(#"error="insufficient_scope""#) && challenge.contains(#"scope="mcp:read notes:write""#), "\(challenge)")
            #expect(challenge.contains(#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#))

            // Stepped up: the same user's token with the scope, in the same session.
            let added = try await Self.post(
                client, ProtectedServerWorld.callTool("add_note", id: 5, arguments: #"{"text":"milk"}"#), token: writer.accessToken.value,
                session: session)
            #expect(added.status == .ok)
            #expect(ProtectedServerWorld.texts(Self.messages(added).first) == ["added milk for user-1"])
        }
    }

    /// The SDK is handed the request without `Authorization`: a tool cannot pass the token on, and gets it only inside
    /// a token exchange request.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theSDKNeverSeesTheTokenAndToolsExchangeIt() async throws {
        let world = try ProtectedServerWorld()
        let token = try await world.signIn().accessToken.value
        try await Self.app(try world.server()).test(.router) { client in
            let session = try #require(Self.session(try await Self.post(client, ProtectedServerWorld.initialize(), token: token)))
            var spoofed = HTTPFields()
            spoofed[.contentType] = "application/json"
            spoofed[.accept] = "application/json, text/event-stream"
            spoofed[.authorization] = "Bearer \(token)"
            if let name = HTTPField.Name("Mcp-Session-Id") { spoofed[name] = session }
            if let name = HTTPField.Name("OAuthFlow-MCP-Access") { spoofed[name] = "guessed-handle" }
            let response = try await client.execute(
                uri: "/mcp", method: .post, headers: spoofed, body: ByteBuffer(string: ProtectedServerWorld.callTool("request_view")))
            let texts = ProtectedServerWorld.texts(Self.messages(response).first)
            #expect(texts.count == 2)
            let headers = texts.first?.split(separator: ",").map(String.init) ?? []
            #expect(!headers.contains("authorization") && !headers.contains("dpop"), "\(headers)")
            #expect(headers.contains("mcp-session-id"))
            #expect(texts.last == token, "the exchange's subject token is the caller's")
        }
    }

    /// A session belongs to the user who opened it: another user's valid token naming it is answered as an unknown session.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anotherUsersTokenCannotUseASession() async throws {
        let world = try ProtectedServerWorld()
        let alice = try await world.signIn(subject: "alice").accessToken.value
        let mallory = try await world.signIn(subject: "mallory").accessToken.value
        let mcp = try world.server()
        try await Self.app(mcp).test(.router) { client in
            let session = try #require(Self.session(try await Self.post(client, ProtectedServerWorld.initialize(), token: alice)))
            let hijack = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: mallory, session: session)
            #expect(hijack.status == .notFound)
            let own = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: alice, session: session)
            #expect(ProtectedServerWorld.texts(Self.messages(own).first) == ["you are alice (mcp:read)"])

            let unknown = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: alice, session: "no-such-session")
            #expect(unknown.status == .notFound)
            let sessionless = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: alice)
            #expect(sessionless.status == .badRequest)

            var end = HTTPFields()
            end[.authorization] = "Bearer \(alice)"
            if let name = HTTPField.Name("Mcp-Session-Id") { end[name] = session }
            let deleted = try await client.execute(uri: "/mcp", method: .delete, headers: end)
            #expect(deleted.status == .ok)
            #expect(await mcp.openSessions == 0)
        }
    }

    /// A session is bound to the issuer, the subject and the client: another app of the same user has its own.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anotherClientOfTheSameUserCannotUseASession() async throws {
        let world = try ProtectedServerWorld()
        let app = try await world.signIn(subject: "alice").accessToken.value
        let otherApp = try await world.signIn(subject: "alice", clientID: "another-app").accessToken.value
        let mcp = try world.server()
        try await Self.app(mcp).test(.router) { client in
            let session = try #require(Self.session(try await Self.post(client, ProtectedServerWorld.initialize(), token: app)))
            let borrowed = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: otherApp, session: session)
            #expect(borrowed.status == .notFound)
            let own = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: app, session: session)
            #expect(ProtectedServerWorld.texts(Self.messages(own).first) == ["you are alice (mcp:read)"])
        }
    }

    /// A token that names no subject says nothing of whose a session would be: none is opened for it.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aTokenWithoutASubjectOpensNoSession() async throws {
        let world = try ProtectedServerWorld()
        let now = Date().timeIntervalSince1970
        let token = try await world.provider.signAuthorizationResponse([
            "iss": .string(ProtectedServerWorld.issuer.absoluteString), "aud": .string(ProtectedServerWorld.endpoint.absoluteString),
            "exp": .number(now + 600), "iat": .number(now), "scope": .string("mcp:read"), "jti": .string(UUID().uuidString),
        ])
        let mcp = try world.server()
        try await Self.app(mcp).test(.router) { client in
            let refused = try await Self.post(client, ProtectedServerWorld.initialize(), token: token)
            #expect(refused.status == .forbidden, "\(refused.status)")
            #expect(Self.session(refused) == nil)
            #expect(await mcp.openSessions == 0)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func batchesAreRefusedBeforeAnythingElse() async throws {
        let world = try ProtectedServerWorld()
        let token = try await world.signIn().accessToken.value
        try await Self.app(try world.server()).test(.router) { client in
            let batch = "[\(ProtectedServerWorld.callTool("add_note"))]"
            let response = try await Self.post(client, batch, token: token)
            #expect(response.status == .badRequest)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func statelessServersAnswerEachRequestWithJSON() async throws {
        let world = try ProtectedServerWorld()
        var configuration = ProtectedServerWorld.configuration
        configuration.sessions = .stateless
        let token = try await world.signIn(subject: "user-2").accessToken.value
        try await Self.app(try world.server(configuration)).test(.router) { client in
            let initialize = try await Self.post(client, ProtectedServerWorld.initialize(), token: token, json: true)
            #expect(initialize.status == .ok)
            #expect(initialize.headers[.contentType] == "application/json")
            #expect(Self.session(initialize) == nil)
            let whoami = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: token, json: true)
            #expect(ProtectedServerWorld.texts(Self.messages(whoami).first) == ["you are user-2 (mcp:read)"])
            let refused = try await Self.post(client, ProtectedServerWorld.callTool("add_note"), token: token, json: true)
            #expect(refused.status == .forbidden && Self.challenge(refused).contains(#"scope="mcp:read notes:write""#))
            let get = try await client.execute(uri: "/mcp", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(get.status == .methodNotAllowed)
        }
    }

    /// A DPoP-bound token is accepted with a proof of its key for the URL the client addressed, and refused without.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aDPoPBoundTokenNeedsItsProof() async throws {
        let world = try ProtectedServerWorld(dpop: true)
        let tokens = try await world.signIn()
        let key = try #require(tokens.proofKey)
        let token = tokens.accessToken.value
        try await Self.app(try world.server()).test(.router) { client in
            let proof = try await key.proof(method: .post, url: ProtectedServerWorld.endpoint, accessToken: tokens.accessToken)
            let accepted = try await Self.post(client, ProtectedServerWorld.initialize(), token: token, scheme: "DPoP", proof: proof)
            #expect(accepted.status == .ok, "\(Self.challenge(accepted))")
            let session = try #require(Self.session(accepted))

            let replayed = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: token, session: session, scheme: "DPoP", proof: proof)
            #expect(replayed.status == .unauthorized && Self.challenge(replayed).contains(#"error="invalid_dpop_proof""#), "\(Self.challenge(replayed))")

            let bare = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: token, session: session)
            #expect(bare.status == .unauthorized, "a bound token sent as Bearer, without its proof")

            let fresh = try await key.proof(method: .post, url: ProtectedServerWorld.endpoint, accessToken: tokens.accessToken)
            let whoami = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: token, session: session, scheme: "DPoP", proof: fresh)
            #expect(ProtectedServerWorld.texts(Self.messages(whoami).first) == ["you are user-1 (mcp:read)"])
        }
    }
}

extension ProtectedMCPServerHummingbirdTests {
    /// One user opening sessions closes their own oldest, never another user's.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aUsersSessionsAreCappedWithoutClosingAnotherUsers() async throws {
        let world = try ProtectedServerWorld()
        var configuration = ProtectedServerWorld.configuration
        configuration.maximumSessionsPerUser = 2
        let alice = try await world.signIn(subject: "alice").accessToken.value
        let bob = try await world.signIn(subject: "bob").accessToken.value
        let mcp = try world.server(configuration)
        try await Self.app(mcp).test(.router) { client in
            let bobs = try #require(Self.session(try await Self.post(client, ProtectedServerWorld.initialize(), token: bob)))
            var alices: [String] = []
            for _ in 0..<3 { alices.append(try #require(Self.session(try await Self.post(client, ProtectedServerWorld.initialize(), token: alice)))) }
            #expect(await mcp.openSessions == 3)
            let first = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: alice, session: alices[0])
            #expect(first.status == .notFound, "alice's oldest session was closed for her third")
            let last = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: alice, session: alices[2])
            #expect(ProtectedServerWorld.texts(Self.messages(last).first) == ["you are alice (mcp:read)"])
            let bobsCall = try await Self.post(client, ProtectedServerWorld.callTool("whoami"), token: bob, session: bobs)
            #expect(ProtectedServerWorld.texts(Self.messages(bobsCall).first) == ["you are bob (mcp:read)"])
        }
    }
}
