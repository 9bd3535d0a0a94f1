import Foundation
import OAuthFlow
import OAuthFlowMCPAuth
import Testing

/// The MCP conformance suite's client auth scenarios (`modelcontextprotocol/conformance` at `c321dd3`,
/// `src/scenarios/client/auth/`), one test per scenario, named after it: each builds the servers the scenario's
/// TypeScript builds, runs the suite's client sequence through ``MCPAuthorization``, and asserts the checks the scenario
/// records. Tier-1 scenarios run at both wires (2025-11-25, and 2026-07-28 as `requirements/2026-07-28.yaml` runs them);
/// the draft ones at 2026-07-28, the back-compat ones at 2025-11-25.
@Suite struct MCPConformanceTests {
    static let mcpOrigin = "http://localhost:41001"
    static let authOrigin = "http://localhost:41002"
    static let secondAuthOrigin = "http://localhost:41003"
    static let bothWires: [ConformanceSpecVersion] = [.v20251125, .v20260728]

    /// The five ids metadata-default and metadata-var1 expect (`Expected Check Missing` otherwise).
    static let flowChecks = [
        "prm-pathbased-requested", "authorization-server-metadata", "client-registration", "authorization-request", "token-request",
    ]

    /// A default MCP server (path-based metadata naming `authorizationServers`) and a client of it.
    static func world(
        _ run: ConformanceRun, mcp: MockMCPServerOptions = MockMCPServerOptions(), auth: MockAuthServerOptions = MockAuthServerOptions(),
        authorizationServer: String = authOrigin, clock: (any DateClock)? = nil,
        client change: (inout MCPAuthorization.Configuration) -> Void = { _ in }
    ) -> (MockMCPServer, MockAuthServer, ConformanceClient) {
        let authServer = MockAuthServer(run: run, origin: authOrigin, options: auth)
        let server = MockMCPServer(run: run, origin: mcpOrigin, options: mcp) { [authorizationServer] }
        return (server, authServer, ConformanceClient(run: run, endpoint: server.endpoint, clock: clock, change))
    }

    /// The scopes of the authorization request's `scope`.
    static func scopes(_ query: [String: String]) -> [String] {
        (query["scope"] ?? "").split(separator: " ").map(String.init)
    }

    // MARK: - Tier 1

    /// metadata-default's MCP server: a trap at the root metadata location, which a client must not read first.
    static func metadataDefaultServer(_ run: ConformanceRun) -> MockMCPServerOptions {
        var mcp = MockMCPServerOptions()
        mcp.extraRoutes = { [run] request in
            guard request.method == .get, request.url.path == "/.well-known/oauth-protected-resource" else { return nil }
            run.record("prm-priority-order", .failure, "the root metadata was asked for before the path-based one")
            return ConformanceRun.json(
                ["error": .string("not_found"), "error_description": .string("PRM metadata not available at root location")], status: 404)
        }
        return mcp
    }

    @Test("auth/metadata-default", arguments: bothWires)
    func metadataDefault(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (_, _, client) = Self.world(run, mcp: Self.metadataDefaultServer(run))
        let error = await client.runEverything()
        run.requireRecorded(Self.flowChecks)
        run.expectPassed(
            Self.flowChecks + ["pkce-code-challenge-sent", "pkce-s256-method-used", "pkce-verifier-matches-challenge", "valid-bearer-token"],
            clientError: error)
        if version.isStateless { #expect(run.checks("sep-837-application-type-present").map(\.status) == [.success]) }
    }

    @Test("auth/metadata-var1", arguments: bothWires)
    func metadataVar1(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        var mcp = MockMCPServerOptions()
        mcp.includePrmInWwwAuth = false
        var auth = MockAuthServerOptions()
        auth.metadataPath = "/.well-known/openid-configuration"
        auth.isOpenIDConfiguration = true
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        run.requireRecorded(Self.flowChecks)
        run.expectPassed(Self.flowChecks, clientError: error)
    }

    /// The trap var2 and var3 set at the root RFC 8414 location of an issuer with a path.
    static func wrongPathTrap(_ run: ConformanceRun) -> @Sendable (TransportRequest) -> TransportResponse? {
        { [run] request in
            guard request.method == .get, request.url.path == "/.well-known/oauth-authorization-server" else { return nil }
            run.record("authorization-server-metadata-wrong-path", .failure, "the metadata of an issuer with a path was asked for at the root")
            return TransportResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data("Not Found".utf8))
        }
    }

    @Test("auth/metadata-var2", arguments: bothWires)
    func metadataVar2(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        var mcp = MockMCPServerOptions()
        mcp.prmPath = "/.well-known/oauth-protected-resource"
        mcp.includePrmInWwwAuth = false
        var auth = MockAuthServerOptions()
        auth.routePrefix = "/tenant1"
        auth.metadataPath = "/.well-known/oauth-authorization-server/tenant1"
        auth.extraRoutes = Self.wrongPathTrap(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth, authorizationServer: Self.authOrigin + "/tenant1")
        let error = await client.runEverything()
        let expected = ["authorization-server-metadata", "client-registration", "authorization-request", "token-request"]
        run.requireRecorded(expected)
        run.expectPassed(expected, clientError: error)
    }

    @Test("auth/metadata-var3", arguments: bothWires)
    func metadataVar3(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        var mcp = MockMCPServerOptions()
        mcp.prmPath = "/custom/metadata/location.json"
        var auth = MockAuthServerOptions()
        auth.routePrefix = "/tenant1"
        auth.metadataPath = "/tenant1/.well-known/openid-configuration"
        auth.isOpenIDConfiguration = true
        auth.extraRoutes = Self.wrongPathTrap(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth, authorizationServer: Self.authOrigin + "/tenant1")
        let error = await client.runEverything()
        let expected = ["authorization-server-metadata", "client-registration", "authorization-request", "token-request"]
        run.requireRecorded(expected)
        run.expectPassed(expected, clientError: error)
    }

    /// basic-cimd's authorization server: it takes client ID metadata documents, and the client must use its own.
    static func basicCIMDServer(_ run: ConformanceRun) -> MockAuthServerOptions {
        var auth = MockAuthServerOptions()
        auth.clientIDMetadataDocumentSupported = true
        auth.onAuthorizationRequest = { [run] query in
            let expected = ConformanceClient.clientMetadataDocument.absoluteString
            run.record("cimd-client-id-used", query["client_id"] == expected ? .success : .warning, "client_id \(query["client_id"] ?? "absent")")
        }
        return auth
    }

    @Test("auth/basic-cimd", arguments: bothWires)
    func basicCIMD(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (_, _, client) = Self.world(run, auth: Self.basicCIMDServer(run))
        let error = await client.runEverything()
        if run.checks("cimd-client-id-used").isEmpty { run.record("cimd-client-id-used", .failure, "no authorization request") }
        run.expectPassed(["cimd-client-id-used", "token-request"], clientError: error)
        #expect(run.checks("client-registration").isEmpty)
    }

    /// scope-from-www-authenticate's servers: the challenge names `mcp:basic`, and the authorization request must ask it.
    static func scopeFromWWWAuthenticateServers(_ run: ConformanceRun) -> (MockMCPServerOptions, MockAuthServerOptions) {
        var mcp = MockMCPServerOptions()
        mcp.requiredScopes = ["mcp:basic"]
        mcp.includeScopeInWwwAuth = true
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { [run] query in
            run.record("scope-from-www-authenticate", Self.scopes(query).contains("mcp:basic") ? .success : .warning, query["scope"] ?? "")
        }
        return (mcp, auth)
    }

    @Test("auth/scope-from-www-authenticate", arguments: bothWires)
    func scopeFromWWWAuthenticate(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (mcp, auth) = Self.scopeFromWWWAuthenticateServers(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        if run.checks("scope-from-www-authenticate").isEmpty {
            run.record("scope-from-www-authenticate", .failure, "did not complete authorization flow")
        }
        run.expectPassed(["scope-from-www-authenticate", "valid-bearer-token"], clientError: error)
    }

    /// scope-from-scopes-supported's servers: the metadata lists three scopes, and the request must ask them all.
    static func scopeFromScopesSupportedServers(_ run: ConformanceRun) -> (MockMCPServerOptions, MockAuthServerOptions) {
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:basic", "mcp:read", "mcp:write"]
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { [run] query in
            let missing = ["mcp:basic", "mcp:read", "mcp:write"].filter { !Self.scopes(query).contains($0) }
            run.record("scope-from-scopes-supported", missing.isEmpty ? .success : .warning, "missing \(missing)")
        }
        return (mcp, auth)
    }

    @Test("auth/scope-from-scopes-supported", arguments: bothWires)
    func scopeFromScopesSupported(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (mcp, auth) = Self.scopeFromScopesSupportedServers(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        if run.checks("scope-from-scopes-supported").isEmpty {
            run.record("scope-from-scopes-supported", .failure, "did not complete authorization flow")
        }
        run.expectPassed(["scope-from-scopes-supported"], clientError: error)
    }

    /// scope-omitted-when-undefined's authorization server: with no scope named anywhere, the request must ask none.
    static func scopeOmittedWhenUndefinedServer(_ run: ConformanceRun) -> MockAuthServerOptions {
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { [run] query in
            let omitted = (query["scope"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
            run.record("scope-omitted-when-undefined", omitted ? .success : .warning, query["scope"] ?? "absent")
        }
        return auth
    }

    @Test("auth/scope-omitted-when-undefined", arguments: bothWires)
    func scopeOmittedWhenUndefined(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (_, _, client) = Self.world(run, auth: Self.scopeOmittedWhenUndefinedServer(run))
        let error = await client.runEverything()
        if run.checks("scope-omitted-when-undefined").isEmpty {
            run.record("scope-omitted-when-undefined", .failure, "did not complete authorization flow")
        }
        run.expectPassed(["scope-omitted-when-undefined"], clientError: error)
    }

    /// scope-step-up's servers: `mcp:basic` for everything, `mcp:write` for `tools/call` (a 403 naming it); the first two
    /// authorization requests are graded.
    static func scopeStepUpServers(_ run: ConformanceRun) -> (MockMCPServerOptions, MockAuthServerOptions) {
        let prm = Self.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:profile"]
        mcp.authMiddleware = { [run] request, method in
            if method == "initialize" || method?.hasPrefix("notifications/") == true { return nil }
            guard let header = ConformanceRun.header(request, "Authorization"), header.hasPrefix("Bearer ") else {
                return ConformanceRun.json(
                    ["error": .string("invalid_token"), "error_description": .string("Missing Authorization header")], status: 401,
                    headers: ["WWW-Authenticate": "Bearer scope=\"mcp:basic\", resource_metadata=\"\(prm)\""])
            }
            guard let granted = run.verify(String(header.dropFirst(7))) else {
                return TransportResponse(status: 500, body: Data("Internal Server Error".utf8))
            }
            let required = method == "tools/call" ? "mcp:write" : "mcp:basic"
            guard granted.contains(required) else {
                return ConformanceRun.json(
                    ["error": .string("insufficient_scope"), "error_description": .string("Token has insufficient scope")], status: 403,
                    headers: ["WWW-Authenticate": "Bearer scope=\"mcp:write\", resource_metadata=\"\(prm)\", error=\"insufficient_scope\""])
            }
            return nil
        }
        let count = Log<Int>()
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { [run] query in
            count.add(1)
            let scopes = Self.scopes(query)
            switch count.values.count {
            case 1: run.record("scope-step-up-initial", scopes.contains("mcp:basic") ? .success : .warning, query["scope"] ?? "")
            case 2:
                run.record("scope-step-up-escalation", scopes.contains("mcp:write") ? .success : .warning, query["scope"] ?? "")
                if run.version.isStateless {
                    run.record("sep-2350-scope-union-on-reauth", scopes.contains("mcp:basic") ? .success : .warning, query["scope"] ?? "")
                }
            default: break
            }
        }
        return (mcp, auth)
    }

    /// scope-step-up's checks for the requests that never came (`getChecks`).
    static func recordStepUp(_ run: ConformanceRun) {
        if run.checks("scope-step-up-initial").isEmpty { run.record("scope-step-up-initial", .failure, "no authorization request") }
        if run.checks("scope-step-up-escalation").isEmpty {
            run.record("scope-step-up-escalation", .failure, "no second authorization request")
            if run.version.isStateless { run.record("sep-2350-scope-union-on-reauth", .failure, "no second authorization request") }
        }
    }

    @Test("auth/scope-step-up", arguments: bothWires)
    func scopeStepUp(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (mcp, auth) = Self.scopeStepUpServers(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        Self.recordStepUp(run)
        run.expectPassed(
            ["scope-step-up-initial", "scope-step-up-escalation"] + (version.isStateless ? ["sep-2350-scope-union-on-reauth"] : []),
            clientError: error)
    }

    /// scope-retry-limit's servers: every `mcp:admin` token is refused with 403 for `mcp:admin`; after three requests the
    /// server answers 410.
    static func scopeRetryLimitServers(_ run: ConformanceRun) -> (MockMCPServerOptions, MockAuthServerOptions) {
        let prm = Self.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let counter = Log<Int>()
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:admin"]
        mcp.authMiddleware = { request, method in
            if method == "initialize" || method?.hasPrefix("notifications/") == true { return nil }
            guard ConformanceRun.header(request, "Authorization")?.hasPrefix("Bearer ") == true else {
                return ConformanceRun.json(
                    ["error": .string("invalid_token"), "error_description": .string("Missing Authorization header")], status: 401,
                    headers: ["WWW-Authenticate": "Bearer scope=\"mcp:admin\", resource_metadata=\"\(prm)\""])
            }
            counter.add(1)
            guard counter.values.count <= 3 else {
                return ConformanceRun.json(
                    [
                        "error": .string("test_complete"),
                        "error_description": .string("Test is over - client exceeded maximum retry attempts"),
                    ], status: 410)
            }
            return ConformanceRun.json(
                ["error": .string("insufficient_scope"), "error_description": .string("Scope upgrade will never succeed")], status: 403,
                headers: [
                    "WWW-Authenticate":
                        "Bearer error=\"insufficient_scope\", scope=\"mcp:admin\", resource_metadata=\"\(prm)\", error_description=\"Scope upgrade will never succeed\""
                ])
        }
        var auth = MockAuthServerOptions()
        auth.onAuthorizationRequest = { [run] query in
            run.record("scope-retry-auth-attempt", .info, query["scope"] ?? "")
        }
        return (mcp, auth)
    }

    /// scope-retry-limit's check: at most three authorization requests.
    static func recordRetryLimit(_ run: ConformanceRun) {
        let attempts = run.checks("scope-retry-auth-attempt").count
        run.record("scope-retry-limit", (1...3).contains(attempts) ? .success : .failure, "\(attempts) authorization requests")
    }

    @Test("auth/scope-retry-limit", arguments: bothWires)
    func scopeRetryLimit(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let (mcp, auth) = Self.scopeRetryLimitServers(run)
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        Self.recordRetryLimit(run)
        run.expectPassed(["scope-retry-limit"], clientError: error, allowClientError: true)
        // The client gives up with a sentence, not by looping.
        #expect((error as? MCPAuthorizationError)?.code == .refusedAgain, "\(String(describing: error))")
    }

    /// token-endpoint-auth-basic, -post and -none: which method the client used at the token endpoint, and `resource`.
    func tokenEndpointAuth(_ method: String, version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        let resources = Log<(String, String)>()
        var auth = MockAuthServerOptions()
        auth.tokenEndpointAuthMethodsSupported = [method]
        auth.onRegistrationRequest = { [run] _ in
            let now = run.milliseconds()
            return MockRegistration(
                clientID: "test-client-\(now)", clientSecret: method == "none" ? nil : "test-secret-\(now)", tokenEndpointAuthMethod: method)
        }
        auth.onAuthorizationRequest = { query in resources.add(("authorization", query["resource"] ?? "")) }
        auth.onTokenRequest = { [run] body, authorization in
            var used = "none"
            var formatError = false
            if let authorization, authorization.hasPrefix("Basic ") {
                used = "client_secret_basic"
                let decoded = Base64URL.decode(String(authorization.dropFirst(6))) ?? Data(base64Encoded: String(authorization.dropFirst(6)))
                formatError = !(decoded.map { String(decoding: $0, as: UTF8.self).contains(":") } ?? false)
            } else if body["client_secret"] != nil {
                used = "client_secret_post"
            }
            run.record(
                "token-endpoint-auth-method", used == method && !formatError ? .success : .failure,
                "Client used \(used) but server only supports \(method)")
            resources.add(("token", body["resource"] ?? ""))
            return .token("test-token-\(run.milliseconds())", scopes: [])
        }
        let (_, _, client) = Self.world(run, auth: auth)
        let error = await client.runEverything()
        if run.checks("token-endpoint-auth-method").isEmpty { run.record("token-endpoint-auth-method", .failure, "no token request") }
        let authorizationResource = resources.values.last { $0.0 == "authorization" }?.1 ?? ""
        let tokenResource = resources.values.last { $0.0 == "token" }?.1 ?? ""
        run.record("resource-parameter-in-authorization", authorizationResource.isEmpty ? .failure : .success, authorizationResource)
        run.record("resource-parameter-in-token", tokenResource.isEmpty ? .failure : .success, tokenResource)
        if let value = [authorizationResource, tokenResource].first(where: { !$0.isEmpty }) {
            let url = URL(string: value)
            run.record("resource-parameter-valid-uri", url?.scheme != nil && url?.host != nil && url?.fragment == nil ? .success : .failure, value)
        }
        if !authorizationResource.isEmpty, !tokenResource.isEmpty {
            run.record("resource-parameter-consistency", authorizationResource == tokenResource ? .success : .failure)
        }
        run.expectPassed(
            [
                "token-endpoint-auth-method", "resource-parameter-in-authorization", "resource-parameter-in-token", "resource-parameter-valid-uri",
                "resource-parameter-consistency",
            ], clientError: error)
        #expect(authorizationResource == Self.mcpOrigin + "/mcp")
    }

    @Test("auth/token-endpoint-auth-basic", arguments: bothWires)
    func tokenEndpointAuthBasic(_ version: ConformanceSpecVersion) async { await tokenEndpointAuth("client_secret_basic", version: version) }

    @Test("auth/token-endpoint-auth-post", arguments: bothWires)
    func tokenEndpointAuthPost(_ version: ConformanceSpecVersion) async { await tokenEndpointAuth("client_secret_post", version: version) }

    @Test("auth/token-endpoint-auth-none", arguments: bothWires)
    func tokenEndpointAuthNone(_ version: ConformanceSpecVersion) async { await tokenEndpointAuth("none", version: version) }

    @Test("auth/pre-registration", arguments: bothWires)
    func preRegistration(_ version: ConformanceSpecVersion) async {
        let run = ConformanceRun(version: version)
        var auth = MockAuthServerOptions()
        auth.disableDynamicRegistration = true
        auth.tokenEndpointAuthMethodsSupported = ["client_secret_basic"]
        auth.onTokenRequest = { [run] _, authorization in
            guard let authorization, authorization.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) })
            else {
                run.record("pre-registration-auth", .failure, "no Basic header")
                return .error("invalid_client", "Missing or invalid Authorization header", status: 401)
            }
            let parts = decoded.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == "pre-registered-client", parts[1] == "pre-registered-secret" else {
                run.record("pre-registration-auth", .failure, "expected pre-registered-client, got \(parts.first ?? "")")
                return .error("invalid_client", "Invalid pre-registered credentials", status: 401)
            }
            run.record("pre-registration-auth", .success)
            return .token("test-token-prereg-\(run.milliseconds())", scopes: [])
        }
        let (_, _, client) = Self.world(run, auth: auth) {
            $0.clients = [Self.authOrigin: ClientSettings(clientID: "pre-registered-client", secret: Secret("pre-registered-secret"))]
        }
        let error = await client.runEverything()
        if run.checks("pre-registration-auth").isEmpty { run.record("pre-registration-auth", .failure, "no token request") }
        run.expectPassed(["pre-registration-auth", "valid-bearer-token"], clientError: error)
    }

    // MARK: - Draft (2026-07-28)

    @Test("auth/resource-mismatch")
    func resourceMismatch() async {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.prmResourceOverride = "https://evil.example.com/mcp"
        var auth = MockAuthServerOptions()
        auth.onRegistrationRequest = { [run] _ in
            MockRegistration(clientID: "test-client-\(run.milliseconds())", clientSecret: nil, tokenEndpointAuthMethod: "none")
        }
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        run.record("resource-mismatch-rejected", run.checks("authorization-request").isEmpty ? .success : .failure)
        run.expectPassed(["resource-mismatch-rejected"], clientError: error, allowClientError: true)
        #expect((error as? MCPAuthorizationError)?.code == .resourceMismatch)
    }

    @Test("auth/offline-access-scope")
    func offlineAccessScope() async {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:basic"]
        let registered = Log<[String: JSONValue]>()
        var auth = MockAuthServerOptions()
        auth.scopesSupported = ["mcp:basic", "offline_access"]
        auth.clientIDMetadataDocumentSupported = true
        auth.onRegistrationRequest = { [run] body in
            registered.add(body)
            return MockRegistration(clientID: "test-client-\(run.milliseconds())", clientSecret: nil, tokenEndpointAuthMethod: "none")
        }
        auth.onAuthorizationRequest = { [run] query in
            run.record("sep-2207-offline-access-requested", Self.scopes(query).contains("offline_access") ? .success : .info, query["scope"] ?? "")
        }
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        if run.checks("sep-2207-offline-access-requested").isEmpty {
            run.record("sep-2207-offline-access-requested", .failure, "no authorization request")
        }
        // The client used its CIMD URL (an http client_id): the suite cannot fetch it before it writes the checks, so INFO.
        if let body = registered.values.last {
            let grants = body["grant_types"].flatMap { value -> [String]? in
                if case let .array(items) = value { return items.compactMap(\.stringValue) }
                return nil
            }
            run.record("sep-2207-client-metadata-grant-types", grants?.contains("refresh_token") == true ? .success : .warning)
        } else {
            run.record("sep-2207-client-metadata-grant-types", .info, "client metadata could not be inspected")
        }
        run.expectPassed(["sep-2207-offline-access-requested", "sep-2207-client-metadata-grant-types"], clientError: error)
        #expect(run.checks("sep-2207-offline-access-requested").map(\.status) == [.success])
    }

    /// The same over Dynamic Client Registration (no CIMD URL): the registration asks for `refresh_token`.
    @Test("auth/offline-access-scope, registered with DCR")
    func offlineAccessScopeRegistered() async {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:basic"]
        let registered = Log<[String: JSONValue]>()
        var auth = MockAuthServerOptions()
        auth.scopesSupported = ["mcp:basic", "offline_access"]
        auth.onRegistrationRequest = { [run] body in
            registered.add(body)
            return MockRegistration(clientID: "test-client-\(run.milliseconds())", clientSecret: nil, tokenEndpointAuthMethod: "none")
        }
        auth.onAuthorizationRequest = { [run] query in
            run.record("sep-2207-offline-access-requested", Self.scopes(query).contains("offline_access") ? .success : .info, query["scope"] ?? "")
        }
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth) { $0.clientMetadataDocument = nil }
        let error = await client.runEverything()
        let grants = registered.values.last?["grant_types"].flatMap { value -> [String]? in
            if case let .array(items) = value { return items.compactMap(\.stringValue) }
            return nil
        }
        run.record("sep-2207-client-metadata-grant-types", grants?.contains("refresh_token") == true ? .success : .warning)
        run.expectPassed(["sep-2207-offline-access-requested", "sep-2207-client-metadata-grant-types"], clientError: error)
        #expect(run.checks("sep-2207-offline-access-requested").map(\.status) == [.success])
    }

    @Test("auth/offline-access-not-supported")
    func offlineAccessNotSupported() async {
        let run = ConformanceRun(version: .v20260728)
        var mcp = MockMCPServerOptions()
        mcp.scopesSupported = ["mcp:basic", "mcp:read"]
        var auth = MockAuthServerOptions()
        auth.scopesSupported = ["mcp:basic", "mcp:read"]
        auth.onAuthorizationRequest = { [run] query in
            run.record(
                "sep-2207-offline-access-not-requested", Self.scopes(query).contains("offline_access") ? .failure : .success, query["scope"] ?? "")
        }
        let (_, _, client) = Self.world(run, mcp: mcp, auth: auth)
        let error = await client.runEverything()
        if run.checks("sep-2207-offline-access-not-requested").isEmpty {
            run.record("sep-2207-offline-access-not-requested", .failure, "no authorization request")
        }
        run.expectPassed(["sep-2207-offline-access-not-requested"], clientError: error)
    }

    /// authorization-server-migration's servers: the MCP server's metadata names a second authorization server once its
    /// first token was used, and refuses the first server's tokens from then on; the grading, once the client stopped.
    static func migrationServers(_ run: ConformanceRun) -> (server: MockMCPServer, grade: @Sendable () -> Void) {
        let leaked = "as1-client-id-LEAKED-IF-SEEN-AT-AS2"
        let prm = Self.mcpOrigin + "/.well-known/oauth-protected-resource/mcp"
        let migrated = Log<Bool>()
        let secondRegistered = Log<Bool>()
        let seenAtAuthorize = Log<Bool>()
        let seenAtToken = Log<Bool>()
        var first = MockAuthServerOptions()
        first.onRegistrationRequest = { _ in MockRegistration(clientID: leaked, clientSecret: "as1-client-secret") }
        _ = MockAuthServer(run: run, origin: Self.authOrigin, options: first)
        var second = MockAuthServerOptions()
        second.onRegistrationRequest = { _ in
            secondRegistered.add(true)
            return MockRegistration(clientID: "as2-client-id", clientSecret: "as2-client-secret")
        }
        second.onAuthorizationRequest = { query in if query["client_id"] == leaked { seenAtAuthorize.add(true) } }
        second.onTokenRequest = { [run] body, authorization in
            var id = body["client_id"]
            if id == nil, let authorization, authorization.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) })
            {
                id = decoded.split(separator: ":", maxSplits: 1).first.map { String($0).removingPercentEncoding ?? String($0) }
            }
            if id == leaked { seenAtToken.add(true) }
            let scopes = body["scope"].map { $0.split(separator: " ").map(String.init) } ?? ["mcp:basic"]
            return .token("test-token-as2-\(run.milliseconds())", scopes: scopes)
        }
        _ = MockAuthServer(run: run, origin: Self.secondAuthOrigin, options: second)
        var mcp = MockMCPServerOptions()
        mcp.authMiddleware = { [run] request, method in
            if method == "initialize" || method?.hasPrefix("notifications/") == true { return nil }
            let challenge = ["WWW-Authenticate": "Bearer scope=\"mcp:basic\", resource_metadata=\"\(prm)\""]
            guard let header = ConformanceRun.header(request, "Authorization"), header.hasPrefix("Bearer ") else {
                return ConformanceRun.json(["error": .string("invalid_token")], status: 401, headers: challenge)
            }
            let token = String(header.dropFirst(7))
            guard run.verify(token) != nil else { return TransportResponse(status: 500, body: Data("Internal Server Error".utf8)) }
            if migrated.values.isEmpty {
                migrated.add(true)
                return nil
            }
            guard token.hasPrefix("test-token-as2-") else {
                return ConformanceRun.json(
                    ["error": .string("invalid_token"), "error_description": .string("authorization server has changed")], status: 401,
                    headers: challenge)
            }
            return nil
        }
        let server = MockMCPServer(run: run, origin: Self.mcpOrigin, options: mcp) {
            migrated.values.isEmpty ? [Self.authOrigin] : [Self.secondAuthOrigin]
        }
        let grade: @Sendable () -> Void = { [run] in
            run.record("sep-2352-reregister-on-as-change", secondRegistered.values.isEmpty ? .failure : .success)
            let reused = !seenAtAuthorize.values.isEmpty || !seenAtToken.values.isEmpty
            let detail = "seenAtAuthorize \(!seenAtAuthorize.values.isEmpty), seenAtToken \(!seenAtToken.values.isEmpty)"
            run.record("sep-2352-no-reuse-on-as-change", reused ? .failure : .success, detail)
            run.record("sep-2352-no-cross-as-credential-reuse", reused ? .failure : .success, detail)
        }
        return (server, grade)
    }

    @Test("auth/authorization-server-migration")
    func authorizationServerMigration() async {
        let run = ConformanceRun(version: .v20260728)
        let (server, grade) = Self.migrationServers(run)
        let client = ConformanceClient(run: run, endpoint: server.endpoint)
        let error = await client.runEverything()
        grade()
        run.expectPassed(
            ["sep-2352-reregister-on-as-change", "sep-2352-no-reuse-on-as-change", "sep-2352-no-cross-as-credential-reuse"], clientError: error)
    }

    /// The seven RFC 9207 scenarios: the metadata's `authorization_response_iss_parameter_supported`, the redirect's `iss`,
    /// and whether the code may be spent.
    struct IssCase: Sendable, CustomStringConvertible {
        let name: String
        let check: String
        let supported: Bool?
        let redirect: MockAuthServerOptions.IssInRedirect
        /// Whether the client must exchange the code (else: reach the authorization endpoint and stop there).
        let proceeds: Bool
        var description: String { name }
    }

    static let issCases: [IssCase] = [
        IssCase(name: "auth/iss-supported", check: "sep-2468-client-compare-iss-supported", supported: true, redirect: .correct, proceeds: true),
        IssCase(name: "auth/iss-not-advertised", check: "sep-2468-client-proceed-no-iss", supported: nil, redirect: .omit, proceeds: true),
        IssCase(
            name: "auth/iss-supported-missing", check: "sep-2468-client-reject-missing-iss", supported: true, redirect: .omit, proceeds: false),
        IssCase(name: "auth/iss-wrong-issuer", check: "sep-2468-client-compare-iss-supported", supported: true, redirect: .wrong, proceeds: false),
        IssCase(name: "auth/iss-unexpected", check: "sep-2468-client-compare-iss-unadvertised", supported: nil, redirect: .wrong, proceeds: false),
        IssCase(name: "auth/iss-normalized", check: "sep-2468-client-no-normalization", supported: true, redirect: .normalized, proceeds: false),
    ]

    @Test(arguments: issCases)
    func issScenario(_ scenario: IssCase) async {
        let run = ConformanceRun(version: .v20260728)
        var auth = MockAuthServerOptions()
        auth.issParameterSupported = scenario.supported
        auth.issInRedirect = scenario.redirect
        let (_, _, client) = Self.world(run, auth: auth)
        let error = await client.runEverything()
        Self.recordIss(scenario, run)
        run.expectPassed([scenario.check], clientError: error, allowClientError: !scenario.proceeds)
        if !scenario.proceeds {
            #expect(error != nil)
            #expect(!"\(String(describing: error))".contains("evil.example.com/"), "the server's text is not shown")
        }
    }

    /// An RFC 9207 scenario's check, once the client stopped: whether it exchanged the code, or stopped at the redirect.
    static func recordIss(_ scenario: IssCase, _ run: ConformanceRun) {
        let authorized = !run.checks("authorization-request").isEmpty
        let exchanged = !run.checks("token-request").isEmpty
        let passed = scenario.proceeds ? exchanged : authorized && !exchanged
        run.record(scenario.check, passed ? .success : .failure, "authorized \(authorized), exchanged \(exchanged)")
    }

    /// metadata-issuer-mismatch's authorization server: its metadata names another issuer than the one it is fetched for.
    static func metadataIssuerMismatchServer() -> MockAuthServerOptions {
        var auth = MockAuthServerOptions()
        auth.metadataIssuer = "https://attacker.example.com"
        auth.routePrefix = "/mismatched-as"
        return auth
    }

    /// metadata-issuer-mismatch's check, once the client stopped: the metadata read, nothing of it used.
    static func recordMetadataIssuer(_ run: ConformanceRun) {
        let used = ["client-registration", "authorization-request", "token-request"].filter { !run.checks($0).isEmpty }
        let fetched = !run.checks("authorization-server-metadata").isEmpty
        run.record("sep-2468-client-validate-metadata-issuer", fetched && used.isEmpty ? .success : .failure, "used \(used)")
    }

    @Test("auth/metadata-issuer-mismatch")
    func metadataIssuerMismatch() async {
        let run = ConformanceRun(version: .v20260728)
        let (_, _, client) = Self.world(run, auth: Self.metadataIssuerMismatchServer())
        let error = await client.runEverything()
        Self.recordMetadataIssuer(run)
        run.expectPassed(["sep-2468-client-validate-metadata-issuer"], clientError: error, allowClientError: true)
        #expect((error as? MCPAuthorizationError)?.code == .issuerMismatch)
    }
}
