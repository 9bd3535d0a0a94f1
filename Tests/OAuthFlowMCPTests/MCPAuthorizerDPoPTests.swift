import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

@testable import OAuthFlowMCP
@testable import OAuthFlowMCPAuth

/// DPoP (RFC 9449) through the authorizer, against the MCP server and authorization server of ``MCPWorld`` (which offers
/// DPoP): bound sessions only when requests carry proofs, one proof per request for its method, URL, token and nonce,
/// the resource's nonce answered without a sign-in, and hostile nonce demands refused or ended.
@Suite struct MCPAuthorizerDPoPTests {
    let world: MCPWorld
    let store = InMemoryTokenStore()
    let registrations = InMemoryClientRegistrationStore()

    init() throws {
        world = try MCPWorld()
    }

    func authorizer(_ change: (inout MCPAuthorizer.Configuration) -> Void = { _ in }) -> (MCPAuthorizer, ApprovingUser) {
        world.authorizer(store: store, registrations: registrations, change)
    }

    /// The claims of a DPoP proof.
    static func proofClaims(_ request: TransportRequest) -> [String: JSONValue]? {
        request.headers["DPoP"].flatMap(MCPWorld.claims(of:))
    }

    var mcpRequests: [TransportRequest] { world.requests(to: "mcp.example", "/mcp") }

    @Test func bindsTheSessionWhenRequestsCarryProofs() async throws {
        let (authorizer, _) = authorizer()
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        // The token request carried a proof: the session is DPoP-bound.
        let token = try #require(world.requests(to: "auth.example", "/tenant/token").first)
        #expect(token.headers["DPoP"] != nil)
        let stored = try #require(await store.load(SessionKey(providerID: DescriptorDraft.exactID(prefix: "mcp-", for: MCPWorld.issuer), account: "https://mcp.example/mcp")))
        let key = try #require(stored.tokens.proofKey)
        // The accepted request: `DPoP` and the token, and a proof of its own for POST to the server, with `ath`.
        let accepted = try #require(mcpRequests.last)
        #expect(accepted.headers["Authorization"] == "DPoP " + stored.tokens.accessToken.value)
        let claims = try #require(Self.proofClaims(accepted))
        #expect(claims["htm"] == .string("POST"))
        #expect(claims["htu"] == .string("https://mcp.example/mcp"))
        // `ath` is BASE64URL(SHA-256(token)), the S256 transform of PKCE.
        let hash = PKCE.challenge(for: stored.tokens.accessToken.value)
        #expect(claims["ath"] == .string(hash))
        #expect(key.algorithm == .es256 || key.algorithm == .ps256 || key.algorithm == .eddsa)
        // A second call sends a new proof, never the same one twice.
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        let proofs = mcpRequests.compactMap { $0.headers["DPoP"] }
        #expect(proofs.count >= 2 && Set(proofs).count == proofs.count)
    }

    @Test func staysWithBearerTokensWithoutProofsOrWhenTurnedOff() async throws {
        let (plain, _) = authorizer()
        #expect(try await world.call(plain).status == 200)
        #expect(mcpRequests.last?.headers["Authorization"]?.hasPrefix("Bearer ") == true)
        #expect(mcpRequests.allSatisfy { $0.headers["DPoP"] == nil })

        let other = try MCPWorld()
        let (off, _) = other.authorizer(store: InMemoryTokenStore(), registrations: InMemoryClientRegistrationStore()) { $0.dpop = false }
        #expect(try await other.call(off, proofs: true).status == 200)
        #expect(other.requests(to: "mcp.example", "/mcp").last?.headers["Authorization"]?.hasPrefix("Bearer ") == true)
        #expect(other.requests(to: "auth.example", "/tenant/token").allSatisfy { $0.headers["DPoP"] == nil })
    }

    @Test func answersTheResourcesNonceWithoutSigningInAgain() async throws {
        let (authorizer, user) = authorizer()
        world.nonceDemands = 1
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        #expect(user.opened.values.count == 1)
        let claims = try #require(mcpRequests.last.flatMap(Self.proofClaims))
        #expect(claims["nonce"] == .string("resource-nonce-0"))
    }

    @Test func refusesANonceDemandWithoutANonce() async throws {
        let (authorizer, _) = authorizer()
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        world.nonceDemands = 1
        world.withholdsNonce = true
        do {
            _ = try await world.call(authorizer, proofs: true)
            Issue.record("a nonce demand without a nonce was taken")
        } catch let error as MCPAuthorizationError {
            #expect(error.code == .refusedAgain)
            #expect(error.message.contains("DPoP-Nonce"))
        }
    }

    @Test func endlessNonceDemandsEndWithTheServersAnswer() async throws {
        let (authorizer, user) = authorizer()
        #expect(try await world.call(authorizer, proofs: true).status == 200)
        world.nonceDemands = 1000
        let answer = try await world.call(authorizer, proofs: true)
        #expect(answer.status == 401)
        #expect(user.opened.values.count == 1, "a nonce demand is not answered with a sign-in")
    }

    @Test func aBoundSessionIsNotSentWithoutProofs() async throws {
        let (binding, _) = authorizer()
        #expect(try await world.call(binding, proofs: true).status == 200)
        let (plain, user) = authorizer()
        do {
            _ = try await world.call(plain)
            Issue.record("a DPoP-bound session was sent without a proof")
        } catch let error as MCPAuthorizationError {
            #expect(error.code == .dpopProofsMissing)
            #expect(error.message.contains("requestModifier"))
        }
        #expect(user.opened.values.isEmpty)
        #expect(!mcpRequests.contains { $0.headers["Authorization"]?.hasPrefix("Bearer ") == true })
    }

    @Test func aProofIsTakenOnceForItsMethodURLAndTokenWhileYoung() {
        let proofs = PreparedProofs()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let target = "https://mcp.example/mcp"
        proofs.add(PreparedProofs.Proof(method: "POST", token: "t1", value: "p1", made: now), target: target)
        #expect(proofs.take(method: "GET", target: target, token: "t1", now: now) == nil)
        #expect(proofs.take(method: "POST", target: target, token: "t2", now: now) == nil)
        #expect(proofs.take(method: "POST", target: "https://other.example/mcp", token: "t1", now: now) == nil)
        #expect(proofs.take(method: "POST", target: target, token: "t1", now: now) == "p1")
        #expect(proofs.take(method: "POST", target: target, token: "t1", now: now) == nil, "taken once")
        proofs.add(PreparedProofs.Proof(method: "POST", token: "t1", value: "p2", made: now), target: target)
        #expect(proofs.take(method: "POST", target: target, token: "t1", now: now.addingTimeInterval(PreparedProofs.lifetime)) == nil, "too old")
        #expect(proofs.takeMissed(target: target))
        #expect(!proofs.takeMissed(target: target))
        for index in 0..<(PreparedProofs.capacity + 10) {
            proofs.add(PreparedProofs.Proof(method: "POST", token: "t1", value: "q\(index)", made: now), target: target)
        }
        var taken = 0
        while proofs.take(method: "POST", target: target, token: "t1", now: now) != nil { taken += 1 }
        #expect(taken == PreparedProofs.capacity)
        #expect(PreparedProofs.target(of: URL(string: "https://u:p@mcp.example/mcp?x=1#f")!) == "https://mcp.example/mcp")
    }
}
