import Foundation
import OAuthFlow
import Testing

import OAuthFlowMCPAuth

/// The suite's DPoP extension scenarios (`io.modelcontextprotocol/auth/dpop`, SEP-1932; `auth/dpop`, `auth/dpop-nonce`):
/// the authorization server offers ES256 DPoP (and, in the nonce posture, demands `conformance-as-dpop-nonce`), and the
/// MCP server's judge checks every request's proof (and demands `conformance-rs-dpop-nonce`).
@Suite struct MCPConformanceDPoPTests {
    typealias Scenarios = MCPConformanceTests

    /// The scenario's servers: the MCP server's judge of every proof, and an authorization server that offers DPoP (and
    /// demands its nonce with `nonce`).
    static func servers(nonce: Bool) -> (MockMCPServerOptions, MockAuthServerOptions, MockDPoPJudge) {
        let prm = Scenarios.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let judge = MockDPoPJudge(endpoint: Scenarios.mcpOrigin + "/mcp", prm: prm, requireNonce: nonce)
        var mcp = MockMCPServerOptions()
        mcp.authMiddleware = { request, _ in judge.judge(request) }
        var auth = MockAuthServerOptions()
        auth.dpop = nonce ? .proofsAndNonce : .proofs
        return (mcp, auth, judge)
    }

    func play(nonce: Bool) async {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth, judge) = Self.servers(nonce: nonce)
        let (_, authServer, client) = Scenarios.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        let expected = Self.grade(run, judge: judge, observed: authServer.observations(), nonce: nonce)
        run.expectPassed(expected, clientError: error)
    }

    /// The scenario's checks, once the client stopped: the ids graded.
    static func grade(_ run: ConformanceRun, judge: MockDPoPJudge, observed: MockDPoPObservations, nonce: Bool) -> [String] {
        run.record(
            "sep-1932-client-token-request-proof", observed.requests > 0 && observed.allValid ? .success : .failure,
            observed.firstFailure ?? "\(observed.requests) authorization_code requests")
        run.record(
            "sep-1932-client-dpop-auth-scheme",
            judge.authenticated > 0 && judge.schemes.allSatisfy { $0.lowercased() == "dpop" } ? .success : .failure, "\(judge.schemes)")
        run.record(
            "sep-1932-client-fresh-proof", judge.authenticated > 0 && judge.proofProblems.isEmpty && judge.replays == 0 ? .success : .failure,
            "problems \(judge.proofProblems), replays \(judge.replays)")
        var expected = ["sep-1932-client-token-request-proof", "sep-1932-client-dpop-auth-scheme", "sep-1932-client-fresh-proof"]
        if nonce {
            run.record("sep-1932-client-as-nonce", observed.nonceChallenged && observed.nonceHonoured ? .success : .failure)
            run.record("sep-1932-client-rs-nonce", judge.nonceChallenged && judge.nonceHonoured ? .success : .failure)
            expected += ["sep-1932-client-as-nonce", "sep-1932-client-rs-nonce"]
        }
        return expected
    }

    @Test("auth/dpop") func dpop() async { await play(nonce: false) }

    @Test("auth/dpop-nonce") func dpopNonce() async { await play(nonce: true) }
}
