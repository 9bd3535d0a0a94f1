import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowTesting
import Testing

@testable import OAuthFlowMCP
@testable import OAuthFlowMCPAuth

/// A descriptor that pins a discovered authorization server: signed in to as it says, a pin required, DPoP used where
/// requests carry proofs and refused where they do not.
@Suite struct MCPPinnedProviderTests {
    let world: MCPWorld
    let store = InMemoryTokenStore()

    init() throws {
        world = try MCPWorld()
    }

    /// A reviewed descriptor for the world's authorization server: no pushed requests, its own default scope.
    static func pin(_ extra: String = "", id: String = "corp-mcp", issuer: String = MCPWorld.issuer.absoluteString) throws -> Provider {
        let text = """
            schema_version: 1
            id: \(id)
            display_name: Corp MCP
            protocol: oauth2
            issuer: \(issuer)
            discovery:
              mode: rfc8414
            client_auth:
              methods: [none]
            authorization:
              pushed: never
            \(extra)
            """
        let document = DescriptorDocument.parse(Data(text.utf8), path: "\(id).yaml")
        let descriptor = try #require(document.descriptor, "\(document.problems.map(\.message))")
        return try descriptor.resolve([:])
    }

    func authorizer(_ change: (inout MCPAuthorizer.Configuration) -> Void) -> (MCPAuthorizer, ApprovingUser) {
        world.authorizer(store: store, registrations: InMemoryClientRegistrationStore(), change)
    }

    @Test func signsInToAPinnedServerAsItsDescriptorSays() async throws {
        let pinned = try Self.pin()
        let (authorizer, user) = authorizer {
            $0.pinnedProviders = [pinned]
            $0.requiresPinnedProvider = true
        }
        #expect(try await world.call(authorizer).status == 200)
        #expect(user.opened.values.count == 1)
        // The drafted provider pushes (the server has a PAR endpoint); the pin says never.
        #expect(world.requests(to: "auth.example", "/tenant/par").isEmpty)
        let authorization = try #require(world.authorizationParameters().first)
        #expect(MCPAuthorizerTests.values("resource", in: authorization) == ["https://mcp.example/mcp"])
        // The session is kept under the descriptor's id.
        #expect(await store.load(SessionKey(providerID: "corp-mcp", account: "https://mcp.example/mcp")) != nil)
        let found = try await authorizer.authorization.inspect(URL(string: "https://mcp.example/mcp")!)
        #expect(found.pinnedProvider == "corp-mcp")
        #expect(found.pushedAuthorizationRequests == false)
    }

    @Test func refusesAnUnpinnedServerWhenAPinIsRequired() async throws {
        let elsewhere = try Self.pin(id: "elsewhere", issuer: "https://auth.example/other")
        let (authorizer, user) = authorizer {
            $0.pinnedProviders = [elsewhere]
            $0.requiresPinnedProvider = true
        }
        await #expect {
            _ = try await world.call(authorizer)
        } throws: { error in
            (error as? MCPAuthorizationError)?.code == .unpinnedServer
                && (error as? MCPAuthorizationError)?.message.contains("https://auth.example/tenant") == true
        }
        #expect(user.opened.values.isEmpty)
        #expect(world.requests(to: "auth.example", "/tenant/register").isEmpty)
    }

    @Test func signsInToAPinThatAsksForDPoPWithProofs() async throws {
        let pinned = try Self.pin("security:\n  dpop: required")
        let (authorizer, user) = authorizer { $0.pinnedProviders = [pinned] }
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        #expect(user.opened.values.count == 1)
        let session = try #require(await store.load(SessionKey(providerID: "corp-mcp", account: "https://mcp.example/mcp")))
        #expect(session.tokens.proofKey != nil)
        let sent = try #require(world.requests(to: "mcp.example", "/mcp").last)
        #expect(sent.headers["Authorization"]?.hasPrefix("DPoP ") == true && sent.headers["DPoP"] != nil)
    }

    @Test func refusesAPinThatAsksForDPoPWithoutProofs() async throws {
        let pinned = try Self.pin("security:\n  dpop: required")
        let (authorizer, user) = authorizer { $0.pinnedProviders = [pinned] }
        await #expect {
            _ = try await world.call(authorizer)
        } throws: { error in
            (error as? MCPAuthorizationError)?.code == .unsupportedServer
                && (error as? MCPAuthorizationError)?.message.contains("dpop: required") == true
        }
        #expect(user.opened.values.isEmpty)
    }
}
