import Foundation
import OAuthFlow
import Testing

/// Upstream's broken-client tests (`src/scenarios/client/auth/index.test.ts` at `c321dd3`, "Negative tests"), run
/// against the reproduced scenario mocks with ``MCPBrokenClient``: each must draw the FAILURE or WARNING upstream
/// expects for its check ids (upstream's helper takes either), and a control run must draw none. Named as upstream
/// names them. Docs/conformance.md lists which of upstream's 29 runs are reproduced here.
@Suite struct MCPConformanceNegativeTests {
    typealias Scenarios = MCPConformanceTests

    /// The servers of a default scenario, with no client of OAuthFlow's.
    static func servers(_ run: ConformanceRun, mcp: MockMCPServerOptions = MockMCPServerOptions(), auth: MockAuthServerOptions = MockAuthServerOptions())
        -> MockMCPServer
    {
        _ = MockAuthServer(run: run, origin: Scenarios.authOrigin, options: auth)
        return MockMCPServer(run: run, origin: Scenarios.mcpOrigin, options: mcp) { [Scenarios.authOrigin] }
    }

    /// Runs `fault` against the servers and requires each of `ids` recorded as FAILURE or WARNING.
    static func expectFlagged(_ run: ConformanceRun, _ server: MockMCPServer, _ fault: MCPBrokenClient.Fault, _ ids: [String]) async {
        _ = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: fault).runEverything()
        for id in ids {
            let statuses = run.checks(id).map(\.status)
            #expect(statuses.contains(.failure) || statuses.contains(.warning), "\(fault): \(id) is \(statuses)")
        }
    }

    @Test("bad client requests root PRM location")
    func badClientRequestsRootPRMLocation() async {
        let run = ConformanceRun(version: .v20251125)
        let server = Self.servers(run, mcp: Scenarios.metadataDefaultServer(run))
        await Self.expectFlagged(run, server, .rootMetadataOnly, ["prm-priority-order"])
    }

    @Test("client ignores scope from WWW-Authenticate header")
    func clientIgnoresScopeFromWWWAuthenticateHeader() async {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth) = Scenarios.scopeFromWWWAuthenticateServers(run)
        await Self.expectFlagged(run, Self.servers(run, mcp: mcp, auth: auth), .ignoresChallengeScope, ["scope-from-www-authenticate"])
    }

    @Test("client only requests subset of scopes_supported")
    func clientOnlyRequestsSubsetOfScopesSupported() async {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth) = Scenarios.scopeFromScopesSupportedServers(run)
        await Self.expectFlagged(run, Self.servers(run, mcp: mcp, auth: auth), .fixedScope("mcp:basic"), ["scope-from-scopes-supported"])
    }

    @Test("client requests scope even if scopes_supported is empty")
    func clientRequestsScopeEvenIfScopesSupportedIsEmpty() async {
        let run = ConformanceRun(version: .v20251125)
        let server = Self.servers(run, auth: Scenarios.scopeOmittedWhenUndefinedServer(run))
        await Self.expectFlagged(run, server, .fixedScope("mcp:basic"), ["scope-omitted-when-undefined"])
    }

    @Test("client only responds to 401, not 403")
    func clientOnlyRespondsTo401() async {
        let run = ConformanceRun(version: .v20260728)
        let (mcp, auth) = Scenarios.scopeStepUpServers(run)
        _ = await MCPBrokenClient(run: run, endpoint: Self.servers(run, mcp: mcp, auth: auth).endpoint, fault: .ignores403).runEverything()
        Scenarios.recordStepUp(run)
        for id in ["scope-step-up-escalation", "sep-2350-scope-union-on-reauth"] {
            #expect(run.checks(id).map(\.status) == [.failure], "\(id): \(run.checks(id))")
        }
    }

    @Test("client echoes challenge scope without accumulating prior grant (SEP-2350) at draft")
    func clientEchoesChallengeScopeAtDraft() async {
        let run = ConformanceRun(version: .v20260728)
        let (mcp, auth) = Scenarios.scopeStepUpServers(run)
        _ = await MCPBrokenClient(run: run, endpoint: Self.servers(run, mcp: mcp, auth: auth).endpoint, fault: .echoesChallengeScope).runEverything()
        Scenarios.recordStepUp(run)
        #expect(run.checks("sep-2350-scope-union-on-reauth").map(\.status) == [.warning], "\(run.checks("sep-2350-scope-union-on-reauth"))")
    }

    /// The control run: before the draft the union is not graded, so the same client draws nothing.
    @Test("client echoes challenge scope without accumulating prior grant (SEP-2350) at 2025-11-25")
    func clientEchoesChallengeScopeAt20251125() async {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth) = Scenarios.scopeStepUpServers(run)
        let error = await MCPBrokenClient(run: run, endpoint: Self.servers(run, mcp: mcp, auth: auth).endpoint, fault: .echoesChallengeScope)
            .runEverything()
        Scenarios.recordStepUp(run)
        #expect(error == nil, "\(String(describing: error))")
        #expect(run.checks.allSatisfy { $0.status != .failure && $0.status != .warning }, "\(run.checks)")
    }

    @Test("client retries auth infinitely without limit")
    func clientRetriesAuthInfinitely() async {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth) = Scenarios.scopeRetryLimitServers(run)
        _ = await MCPBrokenClient(run: run, endpoint: Self.servers(run, mcp: mcp, auth: auth).endpoint, fault: .noRetryLimit).runEverything()
        Scenarios.recordRetryLimit(run)
        #expect(run.checks("scope-retry-limit").map(\.status) == [.failure], "\(run.checks("scope-retry-limit"))")
    }

    @Test("client omits application_type during DCR (SEP-837) at draft")
    func clientOmitsApplicationTypeAtDraft() async {
        let run = ConformanceRun(version: .v20260728)
        await Self.expectFlagged(run, Self.servers(run), .noApplicationType, ["sep-837-application-type-present"])
    }

    /// The control run: before the draft the check is not made, so the same client draws no failure.
    @Test("client omits application_type during DCR (SEP-837) at 2025-11-25")
    func clientOmitsApplicationTypeAt20251125() async {
        let run = ConformanceRun(version: .v20251125)
        let error = await MCPBrokenClient(run: run, endpoint: Self.servers(run).endpoint, fault: .noApplicationType).runEverything()
        #expect(error == nil, "\(String(describing: error))")
        #expect(run.checks.allSatisfy { $0.status != .failure && $0.status != .warning }, "\(run.checks)")
    }

    @Test("client does not use PKCE")
    func clientDoesNotUsePKCE() async {
        let run = ConformanceRun(version: .v20251125)
        await Self.expectFlagged(
            run, Self.servers(run), .noPKCE,
            ["pkce-code-challenge-sent", "pkce-s256-method-used", "pkce-code-verifier-sent", "pkce-verifier-matches-challenge"])
    }

    @Test(arguments: [
        ("client does not reject missing iss when server requires it", "auth/iss-supported-missing"),
        ("client does not reject mismatched iss", "auth/iss-wrong-issuer"),
        ("client does not reject unexpected iss", "auth/iss-unexpected"),
        ("client normalizes iss before comparison and accepts a trailing-slash variant", "auth/iss-normalized"),
    ])
    func issChecks(_ name: String, _ scenario: String) async throws {
        let issCase = try #require(Scenarios.issCases.first { $0.name == scenario })
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.issParameterSupported = issCase.supported
        auth.issInRedirect = issCase.redirect
        let server = Self.servers(run, auth: auth)
        let fault: MCPBrokenClient.Fault = scenario == "auth/iss-normalized" ? .normalizesIss : .ignoresIss
        _ = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: fault).runEverything()
        Scenarios.recordIss(issCase, run)
        #expect(run.checks(issCase.check).map(\.status) == [.failure], "\(name): \(run.checks(issCase.check))")
    }

    @Test("client uses AS metadata whose issuer does not match the well-known URL")
    func clientUsesMismatchedMetadataIssuer() async {
        let run = ConformanceRun(version: .v20260728)
        let server = Self.servers(run, auth: Scenarios.metadataIssuerMismatchServer())
        _ = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: .trustsMetadataIssuer).runEverything()
        Scenarios.recordMetadataIssuer(run)
        #expect(run.checks("sep-2468-client-validate-metadata-issuer").map(\.status) == [.failure])
    }

    /// The same scenarios with a client that gets nothing wrong draw no failure: the broken runs fail for their fault.
    @Test func aClientThatGetsNothingWrongIsNotFlagged() async throws {
        let run = ConformanceRun(version: .v20260728)
        let server = Self.servers(run, mcp: Scenarios.metadataDefaultServer(run))
        let error = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: .none).runEverything()
        #expect(error == nil, "\(String(describing: error))")
        #expect(run.checks.allSatisfy { $0.status != .failure && $0.status != .warning }, "\(run.checks)")
    }
}
