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

    /// The broken client has no metadata document, and registers where the server would take one.
    @Test("client uses DCR instead of CIMD when server supports it")
    func clientUsesDCRInsteadOfCIMD() async {
        let run = ConformanceRun(version: .v20251125)
        await Self.expectFlagged(run, Self.servers(run, auth: Scenarios.basicCIMDServer(run)), .none, ["cimd-client-id-used"])
    }

    @Test("client reuses credentials across authorization servers (SEP-2352)")
    func clientReusesCredentialsAcrossAuthorizationServers() async {
        let run = ConformanceRun(version: .v20260728)
        let (server, grade) = Scenarios.migrationServers(run)
        _ = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: .reusesCredentials).runEverything()
        grade()
        for id in ["sep-2352-reregister-on-as-change", "sep-2352-no-reuse-on-as-change", "sep-2352-no-cross-as-credential-reuse"] {
            #expect(run.checks(id).map(\.status) == [.failure], "\(id): \(run.checks(id))")
        }
    }

    /// The same scenario with a client that registers again at the new server draws no failure.
    @Test func aClientThatRegistersAgainPassesTheMigration() async {
        let run = ConformanceRun(version: .v20260728)
        let (server, grade) = Scenarios.migrationServers(run)
        let error = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: .none).runEverything()
        grade()
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

    // MARK: - WIF JWT-bearer negative tests (upstream's `wif-broken-clients.ts`)

    /// What a broken workload client sends: `requests`, each a token request's form, to `auth/wif-jwt-bearer`'s
    /// authorization server, in order (the second only after the first's refusal).
    static func workload(_ requests: (MCPConformanceWorkloadTests.Scenario) -> [[(String, String)]]) async throws -> ConformanceRun {
        let scenario = try MCPConformanceWorkloadTests.Scenario()
        defer { scenario.files.cleanUp() }
        let token = try #require(URL(string: scenario.auth.origin + "/token"))
        for form in requests(scenario) {
            let body = form.map { "\(FormEncoding.encode($0.0))=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
            _ = try await scenario.run.transport.send(
                TransportRequest(method: .post, url: token, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8)))
        }
        scenario.finish()
        return scenario.run
    }

    static func jwtBearer(_ assertion: String?, scope: String? = nil) -> [(String, String)] {
        var form = [("grant_type", GrantType.jwtBearer.rawValue), ("client_id", MCPConformanceWorkloadTests.clientID)]
        if let assertion { form.append(("assertion", assertion)) }
        if let scope { form.append(("scope", scope)) }
        return form
    }

    @Test(arguments: [
        ("client presents JWT with wrong audience", "wif-assertion-audience", ConformanceStatus.failure),
        ("client omits assertion from JWT-bearer request", "wif-assertion-missing", .failure),
        ("client presents expired JWT assertion", "wif-assertion-expired", .failure),
        ("client falls back to authorization_code after unauthorized_client", "wif-grant-fallback", .warning),
        ("client retries JWT-bearer after unauthorized_client", "wif-no-retry", .warning),
    ])
    func workloadClients(_ name: String, _ check: String, _ status: ConformanceStatus) async throws {
        let run = try await Self.workload { scenario in
            switch check {
            case "wif-assertion-audience": [Self.jwtBearer(scenario.jwt(audience: "https://wrong.example"))]
            case "wif-assertion-missing": [Self.jwtBearer(nil)]
            case "wif-assertion-expired": [Self.jwtBearer(scenario.jwt(expiresIn: -60))]
            case "wif-grant-fallback":
                [
                    Self.jwtBearer(scenario.jwt(), scope: "wif.trigger-unauthorized"),
                    [("grant_type", "authorization_code"), ("code", "made-up"), ("client_id", MCPConformanceWorkloadTests.clientID)],
                ]
            default: [Self.jwtBearer(scenario.jwt(), scope: "wif.trigger-unauthorized"), Self.jwtBearer(scenario.jwt())]
            }
        }
        #expect(run.checks(check).map(\.status) == [status], "\(name): \(run.checks(check))")
    }

    /// Beyond upstream's list: the workload mock holds `nbf` as jose does, seen refusing a JWT not valid yet (a client that
    /// presents one is broken: OAuthFlow's own refuses it before sending, RFC 7523 §3).
    @Test func aWorkloadJWTNotValidYetIsFlagged() async throws {
        let run = try await Self.workload { scenario in [Self.jwtBearer(scenario.jwt(validIn: 120))] }
        #expect(run.checks("wif-assertion-malformed").map(\.status) == [.failure], "\(run.checks)")
    }

    /// The enterprise identity provider's mock holds the ID token's `exp`: an expired one is not exchanged.
    @Test func anExpiredIDTokenIsNotExchanged() async throws {
        let scenario = MCPConformanceEnterpriseTests.Scenario()
        let expired = MockJWT.sign(
            header: ["alg": .string("ES256"), "typ": .string("JWT")],
            claims: [
                "iss": .string(scenario.idpOrigin), "aud": .string(MCPConformanceEnterpriseTests.idpClientID),
                "sub": .string(MCPConformanceEnterpriseTests.user), "iat": .number(Date().timeIntervalSince1970 - 7200),
                "exp": .number(Date().timeIntervalSince1970 - 3600),
            ], key: scenario.idpKey)
        let form = [
            ("grant_type", GrantType.tokenExchange.rawValue), ("subject_token", expired), ("subject_token_type", TokenTypeIdentifier.idToken),
            ("requested_token_type", TokenTypeIdentifier.idJAG), ("audience", "http://localhost:3102"), ("resource", "http://localhost:3100/mcp"),
        ].map { "\(FormEncoding.encode($0.0))=\(FormEncoding.encode($0.1))" }.joined(separator: "&")
        let answer = try await scenario.run.transport.send(
            TransportRequest(
                method: .post, url: try #require(URL(string: scenario.idpOrigin + "/token")),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8)))
        #expect(answer.status == 400)
        #expect(scenario.run.checks("complete-flow-token-exchange").map(\.status) == [.failure])
    }

    /// The control run: a scope the authorization server refuses, taken as refused (no retry), draws no failure.
    @Test("client requests a scope the AS rejects for JWT-bearer grant")
    func workloadScopeRejected() async throws {
        let run = try await Self.workload { scenario in [Self.jwtBearer(scenario.jwt(), scope: "wif.rejected")] }
        #expect(run.checks("wif-assertion-verified").map(\.status) == [.success])
        #expect(run.checks.allSatisfy { $0.status != .failure && $0.status != .warning }, "\(run.checks)")
    }

    // MARK: - DPoP client negative tests (SEP-1932)

    /// `fault` against `auth/dpop` (or `auth/dpop-nonce` with `nonce`), graded as the scenario grades.
    static func dpop(_ fault: MCPBrokenClient.DPoPFault, nonce: Bool) async -> ConformanceRun {
        let run = ConformanceRun(version: .v20251125)
        let (mcp, auth, judge) = MCPConformanceDPoPTests.servers(nonce: nonce)
        let authServer = MockAuthServer(run: run, origin: Scenarios.authOrigin, options: auth)
        let server = MockMCPServer(run: run, origin: Scenarios.mcpOrigin, options: mcp) { [Scenarios.authOrigin] }
        _ = await MCPBrokenClient(run: run, endpoint: server.endpoint, fault: .dpop(fault)).runEverything()
        _ = MCPConformanceDPoPTests.grade(run, judge: judge, observed: authServer.observations(), nonce: nonce)
        return run
    }

    @Test(arguments: [
        ("auth/dpop: client presents the token with the Bearer scheme", MCPBrokenClient.DPoPFault.bearerScheme, false,
         ["sep-1932-client-dpop-auth-scheme"], [String]()),
        ("auth/dpop: client reuses a DPoP proof across requests", .reusesProof, false, ["sep-1932-client-fresh-proof"], []),
        ("auth/dpop: client never requests a sender-constrained token", .noTokenProof, false,
         ["sep-1932-client-token-request-proof", "sep-1932-client-fresh-proof"], []),
        ("auth/dpop-nonce: client ignores the authorization-server nonce challenge", .ignoresServerNonce, true,
         ["sep-1932-client-as-nonce", "sep-1932-client-dpop-auth-scheme", "sep-1932-client-fresh-proof", "sep-1932-client-rs-nonce"],
         ["sep-1932-client-token-request-proof"]),
        ("auth/dpop-nonce: client ignores the MCP-server nonce challenge", .ignoresResourceNonce, true, ["sep-1932-client-rs-nonce"],
         ["sep-1932-client-token-request-proof", "sep-1932-client-dpop-auth-scheme", "sep-1932-client-fresh-proof", "sep-1932-client-as-nonce"]),
    ])
    func dpopClients(_ name: String, _ fault: MCPBrokenClient.DPoPFault, _ nonce: Bool, _ failing: [String], _ passing: [String]) async {
        let run = await Self.dpop(fault, nonce: nonce)
        for id in failing { #expect(run.checks(id).map(\.status) == [.failure], "\(name): \(id) is \(run.checks(id))") }
        for id in passing { #expect(run.checks(id).map(\.status) == [.success], "\(name): \(id) is \(run.checks(id))") }
    }

    /// The baseline: a DPoP client with nothing wrong passes every check of both scenarios.
    @Test(arguments: [false, true])
    func aDPoPClientWithNothingWrongPasses(_ nonce: Bool) async {
        let run = await Self.dpop(.none, nonce: nonce)
        #expect(run.checks.allSatisfy { $0.status != .failure && $0.status != .warning }, "\(run.checks)")
    }
}
