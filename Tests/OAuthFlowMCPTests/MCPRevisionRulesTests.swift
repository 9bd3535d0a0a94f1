import Foundation
import OAuthFlow
import OAuthFlowMCPAuth
import OAuthFlowTesting
import Testing

/// The client rules MCP authorization 2026-07-28 made MUSTs, where the conformance scenarios do not reach them: the
/// RFC 9207 table applied to error responses, and the step-up's union of the scopes asked for before.
@Suite struct MCPRevisionRulesTests {
    typealias Scenarios = MCPConformanceTests

    /// An error redirect without `iss` from a server whose metadata says it sends one is rejected, and neither its
    /// `error` nor its `error_description` reaches the host (the engine alone reports them, marked unauthenticated).
    @Test func anErrorResponseWithoutIssIsRejectedUnread() async throws {
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.issInRedirect = .omit
        auth.errorRedirect = ("access_denied", "CALL-THIS-NUMBER")
        let (_, _, client) = Scenarios.world(run, auth: auth)
        let error = try #require(await client.runEverything() as? MCPAuthorizationError)
        #expect(error.code == .issuerMismatch)
        #expect(!error.message.contains("CALL-THIS-NUMBER") && !error.message.contains("access_denied"), "\(error)")
        #expect(run.checks("token-request").isEmpty)
    }

    /// The same error naming another issuer: rejected, nothing of it shown, the `iss` it named neither.
    @Test(arguments: [MockAuthServerOptions.IssInRedirect.wrong, .normalized])
    func anErrorResponseFromAnotherIssuerIsRejectedUnread(_ iss: MockAuthServerOptions.IssInRedirect) async throws {
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.issParameterSupported = nil
        auth.issInRedirect = iss
        auth.errorRedirect = ("access_denied", "CALL-THIS-NUMBER")
        let (_, _, client) = Scenarios.world(run, auth: auth)
        let error = try #require(await client.runEverything() as? MCPAuthorizationError)
        #expect(error.code == .issuerMismatch)
        #expect(!error.message.contains("CALL-THIS-NUMBER") && !error.message.contains("evil.example.com"), "\(error)")
    }

    /// Without `iss` and without the metadata's promise, an error response is the server's to report (the table's
    /// last row: proceed).
    @Test func anErrorResponseFromAServerThatNeverSendsIssIsReported() async throws {
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.issParameterSupported = nil
        auth.issInRedirect = .omit
        auth.errorRedirect = ("access_denied", "the user said no")
        let (_, _, client) = Scenarios.world(run, auth: auth)
        let error = try #require(await client.runEverything() as? AuthorizationServerError)
        #expect(error.error == "access_denied")
    }

    /// The MCP server's middleware of the step-up tests: 401 with `challenge` without a token (or with one in `refused`),
    /// 403 `insufficient_scope` for `mcp:write` to a `tools/call` whose token lacks it.
    static func writeNeededForTools(
        _ run: ConformanceRun, metadata prm: String, challenge: String, refused: Log<String> = Log<String>()
    ) -> @Sendable (TransportRequest, String?) -> TransportResponse? {
        { [run] request, method in
            guard let header = ConformanceRun.header(request, "Authorization"), header.hasPrefix("Bearer "),
                !refused.values.contains(String(header.dropFirst(7)))
            else { return ConformanceRun.json(["error": .string("invalid_token")], status: 401, headers: ["WWW-Authenticate": challenge]) }
            let granted = run.verify(String(header.dropFirst(7))) ?? []
            guard method != "tools/call" || granted.contains("mcp:write") else {
                return ConformanceRun.json(
                    ["error": .string("insufficient_scope")], status: 403,
                    headers: ["WWW-Authenticate": "Bearer error=\"insufficient_scope\", scope=\"mcp:write\", resource_metadata=\"\(prm)\""])
            }
            return nil
        }
    }

    /// A step-up asks for the scopes asked for before and those the 403 demands, even when the token answer granted
    /// fewer than were asked for (MCP authorization, "Step-Up Authorization Flow": the previously requested scope set).
    @Test func aStepUpAsksForTheScopesAskedForBefore() async throws {
        let run = ConformanceRun(version: .v20260728)
        let prm = Scenarios.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:basic", "mcp:extra"]
        mcp.authMiddleware = Self.writeNeededForTools(run, metadata: prm, challenge: "Bearer resource_metadata=\"\(prm)\"")
        let asked = Log<String>()
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { query in asked.add(query["scope"] ?? "") }
        // The token answer grants only the first scope asked for.
        auth.onTokenRequest = { [run] _, _ in
            let first = asked.values.last?.split(separator: " ").first.map(String.init) ?? ""
            return .token(
                "test-token-\(run.milliseconds())",
                scopes: asked.values.count > 1 ? asked.values.last?.split(separator: " ").map(String.init) ?? [] : [first])
        }
        let (_, _, client) = Scenarios.world(run, mcp: mcp, auth: auth)
        let stopped = await client.runEverything()
        #expect(stopped == nil, "\(stopped.map { "\($0)" } ?? "")")
        #expect(asked.values.count == 2)
        #expect(Set(asked.values.last?.split(separator: " ").map(String.init) ?? []) == ["mcp:basic", "mcp:extra", "mcp:write"])
    }

    /// `inspect` says what a sign-in would send and check: the resource, whether `offline_access` would be asked for,
    /// how `iss` is checked, which metadata was read.
    @Test func inspectionSaysWhatASignInWouldSendAndCheck() async throws {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.prmPath = "/.well-known/oauth-protected-resource"
        mcp.includePrmInWwwAuth = false
        var auth = MockAuthServerOptions()
        auth.scopesSupported = ["mcp:basic", "offline_access"]
        let (server, _, client) = Scenarios.world(run, mcp: mcp, auth: auth)
        let found = try await client.authorization.inspect(server.endpoint)
        #expect(found.resource == Scenarios.mcpOrigin)
        #expect(found.resourceSent == Scenarios.mcpOrigin + "/mcp")
        #expect(found.offlineAccess)
        #expect(found.issParameter == "required")
        #expect(found.authorizationServerMetadata.absoluteString == Scenarios.authOrigin + "/.well-known/oauth-authorization-server")
        #expect(found.registration.route == "dynamic_registration")
        #expect(!found.legacyDiscovery && !found.defaultEndpoints)
        #expect(run.checks("client-registration").isEmpty && run.checks("authorization-request").isEmpty)

        let quiet = ConformanceRun(version: .v20260728)
        var plain = MockAuthServerOptions()
        plain.issParameterSupported = nil
        plain.scopesSupported = ["mcp:basic"]
        let (other, _, otherClient) = Scenarios.world(quiet, auth: plain)
        let second = try await otherClient.authorization.inspect(other.endpoint)
        #expect(!second.offlineAccess)
        #expect(second.issParameter == "compared_when_present")
    }

    /// A client the host registered at the first authorization server is not swapped silently for a registration at the
    /// one the server moves to: the move is surfaced (`no_client`), and nothing is sent to the new server.
    @Test func aPreRegisteredClientIsNotSwappedSilentlyWhenTheServerMoves() async throws {
        let run = ConformanceRun(version: .v20260728)
        let prm = Scenarios.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let moved = Log<Bool>()
        _ = MockAuthServer(run: run, origin: Scenarios.authOrigin)
        var second = MockAuthServerOptions()
        second.onRegistrationRequest = { _ in
            moved.add(false)
            return MockRegistration()
        }
        _ = MockAuthServer(run: run, origin: Scenarios.secondAuthOrigin, options: second)
        var mcp = MockMCPServerOptions()
        mcp.authMiddleware = { request, _ in
            let challenge = ["WWW-Authenticate": "Bearer resource_metadata=\"\(prm)\""]
            guard ConformanceRun.header(request, "Authorization") != nil else {
                return ConformanceRun.json(["error": .string("invalid_token")], status: 401, headers: challenge)
            }
            guard moved.values.isEmpty else { return ConformanceRun.json(["error": .string("invalid_token")], status: 401, headers: challenge) }
            moved.add(true)
            return nil
        }
        let server = MockMCPServer(run: run, origin: Scenarios.mcpOrigin, options: mcp) {
            moved.values.isEmpty ? [Scenarios.authOrigin] : [Scenarios.secondAuthOrigin]
        }
        let client = ConformanceClient(run: run, endpoint: server.endpoint) {
            $0.clients = [Scenarios.authOrigin: ClientSettings(clientID: "given-at-as1")]
        }
        let error = try #require(await client.runEverything() as? MCPAuthorizationError)
        #expect(error.code == .noClient, "\(error)")
        #expect(error.message.contains(Scenarios.secondAuthOrigin))
        #expect(moved.values == [true])
        #expect(run.requests.values.allSatisfy { !($0.url.absoluteString.hasPrefix(Scenarios.secondAuthOrigin) && $0.method == .post) })
    }

    /// An authorization server that serves only client credentials names no authorization endpoint and no PKCE: the
    /// client that acts on its own behalf gets its token there (issue 63 item 3; before, discovery refused the server
    /// for lacking `code_challenge_methods_supported`), and a client that would sign a user in is refused with the reason.
    @Test func machineGrantsAreNotHeldToTheAuthorizationCodeRules() async throws {
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.servesAuthorizationCode = false
        auth.grantTypesSupported = ["client_credentials"]
        auth.tokenEndpointAuthMethodsSupported = ["client_secret_basic"]
        auth.onTokenRequest = { body, authorization in
            guard body["grant_type"] == "client_credentials", authorization?.hasPrefix("Basic ") == true else {
                return .error("unsupported_grant_type", "client credentials only")
            }
            return .token("cc-token-machine", scopes: [])
        }
        let (_, _, client) = Scenarios.world(run, auth: auth) {
            $0.clients = [Scenarios.authOrigin: ClientSettings(clientID: "machine", secret: Secret("machine-secret"))]
            $0.clientCredentials = true
        }
        let error = await client.runEverything()
        #expect(error == nil, "\(String(describing: error))")
        #expect(!run.checks("token-request").isEmpty)
        #expect(client.browser.opened.values.isEmpty)

        let userRun = ConformanceRun(version: .v20260728)
        var codeless = MockAuthServerOptions()
        codeless.servesAuthorizationCode = false
        let (_, _, userClient) = Scenarios.world(userRun, auth: codeless)
        let refused = try #require(await userClient.runEverything() as? MCPAuthorizationError)
        #expect(refused.code == .unsupportedServer)
        #expect(refused.message.contains("authorization_endpoint"), "\(refused)")
        #expect(userClient.browser.opened.values.isEmpty && userRun.checks("client-registration").isEmpty)
    }

    /// The product's own first request (`signIn(to:)` and `inspect(_:)`, what `oauthflow mcp login` and `inspect` run)
    /// carries what MCP 2026-07-28 says every POST carries, so a server that checks the revision before the
    /// authorization answers it with its challenge, and the scope that challenge names is the scope asked for (issue
    /// 63 item 1: without the headers the server answered 400, the challenge was lost, and the metadata's
    /// `mcp:read mcp:write` was asked for).
    @Test func theFirstRequestCarriesTheRevisionsHeaders() async throws {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.checksRevisionFirst = ["2026-07-28"]
        mcp.requiredScopes = ["mcp:read"]
        mcp.includeScopeInWwwAuth = true
        mcp.scopesSupported = ["mcp:read", "mcp:write"]
        let asked = Log<[String]>()
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { query in asked.add(Scenarios.scopes(query)) }
        let (server, _, client) = Scenarios.world(run, mcp: mcp, auth: auth)
        let found = try await client.authorization.inspect(server.endpoint)
        #expect(found.challenge?.scopes == ["mcp:read"] && found.scopes == ["mcp:read"])
        try await client.authorization.signIn(to: server.endpoint)
        #expect(asked.values == [["mcp:read"]])
        #expect(run.checks("revision-refused").isEmpty, "\(run.checks("revision-refused"))")
        let first = try #require(run.requests.values.first { $0.method == .post && $0.url.path == "/mcp" })
        #expect(ConformanceRun.header(first, "MCP-Protocol-Version") == "2026-07-28")
        #expect(ConformanceRun.header(first, "Mcp-Method") == "server/discover")
    }

    /// A sign-in again without scopes named (`oauthflow mcp login URL` after a failed refresh) keeps what the stored
    /// session was granted, with what the challenge asks (MCP 2026-07-28 scope selection: a re-authorization keeps what
    /// was granted before unless the user narrows it); scopes named narrow it (seen failing with the challenge's scope
    /// alone asked the second time).
    @Test func aSignInAgainKeepsTheStoredSessionsScopes() async throws {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.requiredScopes = ["mcp:read"]
        mcp.includeScopeInWwwAuth = true
        mcp.scopesSupported = ["mcp:read", "mcp:write"]
        let asked = Log<[String]>()
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { query in asked.add(Scenarios.scopes(query)) }
        let (server, _, client) = Scenarios.world(run, mcp: mcp, auth: auth)
        try await client.authorization.signIn(to: server.endpoint, scopes: ["mcp:read", "mcp:write"])
        try await client.authorization.signIn(to: server.endpoint)
        try await client.authorization.signIn(to: server.endpoint, scopes: ["mcp:read"])
        #expect(asked.values == [["mcp:read", "mcp:write"], ["mcp:read", "mcp:write"], ["mcp:read"]])
    }

    /// A server of an earlier revision that refuses 2026-07-28 before its authorization gets that revision's first
    /// request, `initialize`, for the newest revision it lists, and answers it with its challenge.
    @Test func aServerOfAnEarlierRevisionIsProbedInItsOwn() async throws {
        let run = ConformanceRun(version: .v20251125)
        var mcp = MockMCPServerOptions()
        mcp.checksRevisionFirst = ["2025-11-25", "2025-06-18"]
        mcp.requiredScopes = ["mcp:read"]
        mcp.includeScopeInWwwAuth = true
        mcp.scopesSupported = ["mcp:read", "mcp:write"]
        let (server, _, client) = Scenarios.world(run, mcp: mcp)
        let found = try await client.authorization.inspect(server.endpoint)
        #expect(found.challenge?.scopes == ["mcp:read"])
        #expect(run.checks("revision-refused").map(\.detail) == ["server/discover"])
        let initialize = try #require(run.requests.values.last { $0.method == .post && $0.url.path == "/mcp" })
        #expect(ConformanceRun.jsonBody(initialize)?["params"]?.objectValue?["protocolVersion"]?.stringValue == "2025-11-25")
    }

    /// MCP 2026-07-28: a client must use protected-resource metadata. A server without any is not taken as its own
    /// authorization server (the 2025-03-26 fallback) unless the host asks for it or the server says it speaks that
    /// revision (issue 63 item 2: before, the fallback was always on, and a blocked metadata fetch sent the sign-in to
    /// the MCP server's origin). Nothing is registered or asked for there.
    @Test func theEarliestRevisionsFallbackIsGated() async throws {
        typealias Backcompat = MCPConformanceBackcompatTests
        let refused = ConformanceRun(version: .v20251125)
        let (server, client) = Backcompat.world(refused, revisions: nil, legacy: false)
        let error = try #require(await client.runEverything() as? MCPAuthorizationError)
        #expect(error.code == .metadataUnavailable && error.message.contains("--legacy-discovery"), "\(error)")
        await #expect(throws: MCPAuthorizationError.self) { try await client.authorization.signIn(to: server.endpoint) }
        #expect(refused.checks("client-registration").isEmpty && refused.checks("authorization-request").isEmpty)

        // The server says it speaks 2025-03-26 only: the probe hears it, and the fallback is taken.
        let spoken = ConformanceRun(version: .v20251125)
        let (older, olderClient) = Backcompat.world(spoken, revisions: ["2025-03-26"], legacy: false)
        try await olderClient.authorization.signIn(to: older.endpoint)
        #expect(!spoken.checks("token-request").isEmpty)

        // The host asks for it.
        let asked = ConformanceRun(version: .v20251125)
        let (_, askedClient) = Backcompat.world(asked, revisions: nil, legacy: true)
        let outcome = await askedClient.runEverything()
        #expect(outcome == nil, "\(String(describing: outcome))")
    }

    /// A sign-in that a 401 starts keeps the scopes asked for and granted before, with those the challenge names (issue
    /// 63 item 7; the TypeScript SDK keeps the union too): a token the server stops taking after a step-up to
    /// `mcp:write` is replaced by one for `mcp:basic mcp:write`, not for the challenge's `mcp:basic` alone, which
    /// would cost the user a second step-up. Seen failing without it: the third authorization asked for `mcp:basic`.
    @Test func aSignInAfterA401KeepsTheScopesGrantedBefore() async throws {
        let run = ConformanceRun(version: .v20260728)
        let prm = Scenarios.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let refused = Log<String>()
        var mcp = MockMCPServerOptions()
        mcp.authMiddleware = Self.writeNeededForTools(
            run, metadata: prm, challenge: "Bearer scope=\"mcp:basic\", resource_metadata=\"\(prm)\"", refused: refused)
        let asked = Log<String>()
        let issued = Log<String>()
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { query in asked.add(query["scope"] ?? "") }
        auth.onTokenRequest = { [run] _, _ in
            let token = "test-token-\(run.milliseconds())"
            issued.add(token)
            return .token(token, scopes: asked.values.last?.split(separator: " ").map(String.init) ?? [])
        }
        let clock = MovableClock()
        let (_, _, client) = Scenarios.world(run, mcp: mcp, auth: auth, clock: clock)
        let stopped = await client.runEverything()
        #expect(stopped == nil, "\(stopped.map { "\($0)" } ?? "")")
        #expect(asked.values == ["mcp:basic", "mcp:basic mcp:write"])
        // The server stops taking every token issued so far; a minute later (not a token just issued), the 401 signs in again.
        for token in issued.values { refused.add(token) }
        clock.advance(60)
        _ = try await client.request("tools/list")
        #expect(asked.values.count == 3)
        #expect(Set(asked.values.last?.split(separator: " ").map(String.init) ?? []) == ["mcp:basic", "mcp:write"], "\(asked.values)")
    }

    /// An authorization server that forgot the client it registered (`invalid_client` at its token endpoint) gets a new
    /// registration, once, and the sign-in goes on with it; the forgotten one is dropped from `registrations` (issue 63
    /// item 4: before, every sign-in failed until the user found and deleted the stored registration).
    @Test func aForgottenRegistrationIsRegisteredAgainOnce() async throws {
        let run = ConformanceRun(version: .v20260728)
        let prm = Scenarios.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let refused = Log<String>()
        let registrations = Log<String>()
        let forgotten = Log<String>()
        let exchanges = Log<String>()
        var mcp = MockMCPServerOptions()
        mcp.authMiddleware = { [run] request, _ in
            guard let header = ConformanceRun.header(request, "Authorization"), header.hasPrefix("Bearer "),
                !refused.values.contains(String(header.dropFirst(7))), run.verify(String(header.dropFirst(7))) != nil
            else {
                return ConformanceRun.json(
                    ["error": .string("invalid_token")], status: 401, headers: ["WWW-Authenticate": "Bearer resource_metadata=\"\(prm)\""])
            }
            return nil
        }
        var auth = MockAuthServerOptions()
        auth.onRegistrationRequest = { _ in
            let id = "client-\(registrations.values.count + 1)"
            registrations.add(id)
            return MockRegistration(clientID: id, clientSecret: nil, tokenEndpointAuthMethod: "none")
        }
        auth.onTokenRequest = { [run] body, _ in
            let client = body["client_id"] ?? ""
            exchanges.add(client)
            if forgotten.values.contains(client) { return .error("invalid_client", "unknown client", status: 401) }
            let token = "test-token-\(run.milliseconds())"
            return .token(token, scopes: [])
        }
        let clock = MovableClock()
        let (_, _, client) = Scenarios.world(run, mcp: mcp, auth: auth, clock: clock)
        let stopped = await client.runEverything()
        #expect(stopped == nil, "\(stopped.map { "\($0)" } ?? "")")
        #expect(registrations.values == ["client-1"])

        // The server forgets client-1 and every token it issued; a minute later the next request signs in again.
        forgotten.add("client-1")
        for token in run.requests.values.compactMap({ ConformanceRun.header($0, "Authorization")?.dropFirst(7) }) { refused.add(String(token)) }
        clock.advance(60)
        let answer = try await client.request("tools/list")
        #expect(answer.status == 200)
        #expect(registrations.values == ["client-1", "client-2"])
        #expect(exchanges.values.suffix(2) == ["client-1", "client-2"], "\(exchanges.values)")
        let kept = try await client.authorization.configuration.registrations.client(for: try #require(URL(string: Scenarios.authOrigin)))
        #expect(kept?.clientID == "client-2")
    }
}
