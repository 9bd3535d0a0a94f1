import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlowMCPAuth

/// The conformance suite's `auth/wif-jwt-bearer` scenario (`modelcontextprotocol/conformance` at `c321dd3`,
/// `src/scenarios/client/auth/wif-jwt-bearer.ts`; extension `io.modelcontextprotocol/auth/wif`, SEP-1933): a workload's
/// platform-issued JWT presented as a JWT bearer grant with no user, read from a file as a projected token is mounted.
/// The authorization server's token endpoint is the scenario's state machine; the suite's negative contexts (another
/// audience, an expired JWT, a scope refused, an unauthorized client) are played too, and the client must surface the
/// error without retrying or falling back to another grant. Then the assertion source's own refusals.
@Suite struct MCPConformanceWorkloadTests {
    static let clientID = "conformance-wif-workload"

    final class Scenario: @unchecked Sendable {
        let run: ConformanceRun
        let key = P256.Signing.PrivateKey()
        var auth: MockAuthServer!
        var mcp: MockMCPServer!
        private let lock = NSLock()
        private var received = false
        private var failedOnce = false
        let files: TemporaryDirectory

        init(version: ConformanceSpecVersion = .v20251125, scopesSupported: [String]? = nil) throws {
            run = ConformanceRun(version: version)
            files = try TemporaryDirectory()
            var options = MockAuthServerOptions()
            options.grantTypesSupported = [GrantType.jwtBearer.rawValue]
            options.tokenEndpointAuthMethodsSupported = ["none"]
            options.disableDynamicRegistration = true
            options.onTokenRequest = { [unowned self] body, _ in token(body) }
            auth = MockAuthServer(run: run, origin: "http://localhost:3202", options: options)
            var serverOptions = MockMCPServerOptions()
            serverOptions.scopesSupported = scopesSupported
            mcp = MockMCPServer(run: run, origin: "http://localhost:3200", options: serverOptions) { ["http://localhost:3202"] }
        }

        /// A context JWT: header `{alg: ES256}` only, the workload's claims, `aud` and `exp` as given.
        func jwt(audience: String = "http://localhost:3202", expiresIn: TimeInterval = 300, validIn: TimeInterval? = nil) -> String {
            let now = Date().timeIntervalSince1970.rounded(.down)
            var claims: [String: JSONValue] = [
                "iss": .string("https://idp.conformance-test.local"), "sub": .string("conformance-workload"), "aud": .string(audience),
                "iat": .number(now), "exp": .number(now + expiresIn), "jti": .string(UUID().uuidString.lowercased()),
            ]
            if let validIn { claims["nbf"] = .number(now + validIn) }
            return MockJWT.sign(header: ["alg": .string("ES256")], claims: claims, key: key)
        }

        /// The token endpoint's state machine: after a failure, any request is a retry (or a fallback) and only warned of.
        private func token(_ body: [String: String]) -> MockTokenAnswer {
            let grant = body["grant_type"]
            let retrying = lock.withLock { () -> Bool in
                defer { received = true }
                return received && failedOnce
            }
            if retrying {
                if grant != GrantType.jwtBearer.rawValue {
                    run.record("wif-grant-fallback", .warning, "grant_type \(grant ?? "missing") after a failed JWT bearer request")
                    return .error("unsupported_grant_type", "Only JWT-bearer grant is supported")
                }
                run.record("wif-no-retry", .warning, "a JWT bearer request after a failed one")
                return .error("invalid_request", "Retry not allowed for JWT-bearer grant")
            }
            func fail(_ id: String, _ code: String, _ description: String) -> MockTokenAnswer {
                lock.withLock { failedOnce = true }
                if !id.isEmpty { run.record(id, .failure, description) }
                return .error(code, description)
            }
            guard grant == GrantType.jwtBearer.rawValue else {
                return fail("wif-grant-type", "unsupported_grant_type", "Only JWT-bearer grant is supported")
            }
            guard let assertion = body["assertion"], !assertion.isEmpty else {
                return fail("wif-assertion-missing", "invalid_request", "Missing assertion parameter")
            }
            // jose's jwtVerify: the signature, then the audience, then the expiry (5 s of tolerance).
            guard let decoded = MockJWT.decode(assertion), let signature = try? P256.Signing.ECDSASignature(rawRepresentation: decoded.signature),
                key.publicKey.isValidSignature(signature, for: decoded.input)
            else {
                return fail("wif-assertion-malformed", "invalid_grant", "JWT assertion verification failed: signature verification failed")
            }
            let audiences = MCPAuthorization.strings(decoded.claims["aud"])
            guard audiences.contains(where: { $0 == auth.origin || $0 == auth.origin + "/" }) else {
                return fail("wif-assertion-audience", "invalid_grant", "JWT assertion audience is invalid")
            }
            guard let expiry = decoded.claims["exp"]?.numberValue, expiry + 5 > Date().timeIntervalSince1970 else {
                return fail("wif-assertion-expired", "invalid_grant", "JWT assertion is expired")
            }
            // jose's jwtVerify also holds `nbf` (with the same tolerance); its failure is the scenario's "malformed".
            if let notBefore = decoded.claims["nbf"]?.numberValue, notBefore - 5 > Date().timeIntervalSince1970 {
                return fail("wif-assertion-malformed", "invalid_grant", "JWT assertion verification failed: \"nbf\" claim timestamp check failed")
            }
            run.record("wif-assertion-verified", .success)
            let scope = body["scope"] ?? ""
            if scope.contains("wif.trigger-unauthorized") {
                return fail("", "unauthorized_client", "Client not authorized for JWT-bearer grant")
            }
            if scope.contains("wif.rejected") { return fail("", "invalid_scope", "Requested scope is not permitted for this grant") }
            return .token("test-token-\(run.milliseconds())", scopes: scope.split(separator: " ").map(String.init))
        }

        /// End of run: no token request at all is a failure of `wif-assertion-verified`.
        func finish() {
            if !lock.withLock({ received }) { run.record("wif-assertion-verified", .failure, "did not make a JWT-bearer token request") }
        }

        /// Writes `jwt` where the platform would mount it (0600).
        func mount(_ jwt: String, mode: mode_t = 0o600) throws -> URL {
            let file = try files.write("token", jwt + "\n")
            chmod(file.path, mode)
            return file
        }

        /// The suite's client, with the workload's client for the authorization server and its assertion file.
        func client(_ source: AssertionSource) -> ConformanceClient {
            var settings = ClientSettings(clientID: MCPConformanceWorkloadTests.clientID)
            settings.assertion = source
            return ConformanceClient(run: run, endpoint: mcp.endpoint) { $0.clients = ["http://localhost:3202": settings] }
        }

        var tokenRequests: [[String: String]] {
            run.requests.values.filter { ConformanceRun.origin(of: $0.url) == auth.origin && $0.url.path == "/token" }.map(ConformanceRun.form)
        }
    }

    /// `auth/wif-jwt-bearer`: the valid JWT, read from its file, presented with the `resource`; no user, no browser, no
    /// registration; the token used for `tools/list` and `tools/call`.
    @Test("auth/wif-jwt-bearer", arguments: MCPConformanceTests.bothWires)
    func wifJwtBearer(_ version: ConformanceSpecVersion) async throws {
        let scenario = try Scenario(version: version)
        defer { scenario.files.cleanUp() }
        let valid = scenario.jwt()
        let client = scenario.client(.file(try scenario.mount(valid).path))
        let error = await client.runEverything()
        scenario.finish()
        scenario.run.expectPassed(["wif-assertion-verified", "valid-bearer-token", "prm-pathbased-requested"], clientError: error)
        let sent = try #require(scenario.tokenRequests.first)
        #expect(scenario.tokenRequests.count == 1)
        #expect(sent["grant_type"] == GrantType.jwtBearer.rawValue && sent["assertion"] == valid && sent["resource"] == scenario.mcp.origin + "/mcp")
        #expect(scenario.run.checks("authorization-request").isEmpty && client.browser.opened.values.isEmpty)
    }

    /// The platform rotates the file: when the token expires, the next one is had with what the file holds then.
    @Test func theFileIsReadAfreshEachTime() async throws {
        let scenario = try Scenario()
        defer { scenario.files.cleanUp() }
        let client = scenario.client(.file(try scenario.mount(scenario.jwt()).path))
        #expect(await client.runEverything() == nil)
        let rotated = scenario.jwt()
        _ = try scenario.mount(rotated)
        let key = try #require(await client.authorization.sessionKey(for: scenario.mcp.endpoint))
        let store = client.authorization.configuration.store
        var stored = try #require(try await store.load(key))
        stored.tokens.expiresAt = Date().addingTimeInterval(-10)
        try await store.save(stored)
        _ = try await client.authorization.validTokens(for: scenario.mcp.endpoint)
        #expect(scenario.tokenRequests.map { $0["assertion"] }.last == rotated)
        #expect(scenario.tokenRequests.count == 2)
    }

    /// A session a security event marked for a new sign-in gives no token, valid as it is: a new assertion replaces it
    /// (it was handed out as it stood).
    @Test func aMarkedSessionIsReplacedByANewAssertion() async throws {
        let scenario = try Scenario()
        defer { scenario.files.cleanUp() }
        let client = scenario.client(.file(try scenario.mount(scenario.jwt()).path))
        #expect(await client.runEverything() == nil)
        let key = try #require(await client.authorization.sessionKey(for: scenario.mcp.endpoint))
        let store = client.authorization.configuration.store
        var stored = try #require(try await store.load(key))
        stored.reauthenticationRequired = .init(event: "https://schemas.openid.net/secevent/caep/event-type/credential-change", markedAt: Date())
        try await store.save(stored)
        // Another process of the host: it reads the store afresh.
        let tokens = try await MCPAuthorization(client.authorization.configuration).validTokens(for: scenario.mcp.endpoint)
        #expect(tokens.accessToken != stored.tokens.accessToken)
        #expect(scenario.tokenRequests.count == 2)
        #expect(try await store.load(key)?.reauthenticationRequired == nil)
    }

    /// The suite's negative contexts: the client surfaces the server's error and neither retries the JWT bearer grant nor
    /// falls back to another (no `wif-no-retry`, no `wif-grant-fallback`). A JWT for another audience or an expired one
    /// is refused by the client itself before anything is sent (RFC 7523 §3): the server never sees it.
    @Test(arguments: [
        ("wrong audience", "wif-assertion-audience", "invalid_grant"), ("expired", "wif-assertion-expired", "invalid_grant"),
        ("rejected scope", "", "invalid_scope"), ("unauthorized client", "", "unauthorized_client"),
    ])
    func negativeContextsAreSurfacedOnce(context: String, check: String, error code: String) async throws {
        let scope = context == "rejected scope" ? ["wif.rejected"] : context == "unauthorized client" ? ["wif.trigger-unauthorized"] : nil
        let scenario = try Scenario(scopesSupported: scope)
        defer { scenario.files.cleanUp() }
        let jwt = scenario.jwt(audience: context == "wrong audience" ? "https://wrong.example" : "http://localhost:3202", expiresIn: context == "expired" ? -60 : 300)
        let client = scenario.client(.callback { Secret(jwt) })
        let error = await client.runEverything()
        #expect(scenario.run.checks("wif-no-retry").isEmpty && scenario.run.checks("wif-grant-fallback").isEmpty)
        #expect(scenario.run.checks("valid-bearer-token").isEmpty)
        if !check.isEmpty {
            #expect((error as? FlowError)?.code == .unusableAssertion, "\(String(describing: error))")
            #expect(scenario.tokenRequests.isEmpty)
            return
        }
        scenario.finish()
        #expect((error as? AuthorizationServerError)?.error == code, "\(String(describing: error))")
        #expect(scenario.tokenRequests.count == 1)
    }

    // MARK: - The assertion source: refused with a sentence, nothing sent

    /// A file that others may read, a symbolic link, one too large, or one that holds no JWT is refused before any
    /// request; the sentence names the file, never what it holds.
    @Test(arguments: ["world-readable", "group-writable", "symlink", "too large", "not a JWT", "missing"])
    func unusableAssertionFilesAreRefused(kind: String) async throws {
        let scenario = try Scenario()
        defer { scenario.files.cleanUp() }
        let jwt = scenario.jwt()
        var path = try scenario.mount(jwt).path
        switch kind {
        case "world-readable": chmod(path, 0o644)
        case "group-writable": chmod(path, 0o660)
        case "symlink":
            let link = scenario.files.url.appendingPathComponent("link").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            path = link
        case "too large": _ = try scenario.mount(String(repeating: "a", count: AssertionSource.maximumSize + 1))
        case "not a JWT": _ = try scenario.mount("not-a-jwt")
        default: path += ".absent"
        }
        let error = await scenario.client(.file(path)).runEverything()
        let refusal = try #require(error as? ClientSettingsError, "\(String(describing: error))")
        #expect(refusal.code == .unusableAssertion)
        #expect(refusal.message.contains(path) && !refusal.message.contains(jwt))
        #expect(scenario.tokenRequests.isEmpty)
        if kind == "world-readable" { #expect(refusal.message.contains("permissions 644")) }
        if kind == "symlink" { #expect(refusal.message.contains("symbolic link") && refusal.message.contains("..data")) }
    }

    /// A file its group may read (a Kubernetes `fsGroup`) is taken, and so is the file behind a projected volume's
    /// `..data` link, named through it.
    @Test func aGroupReadableFileBehindDataIsTaken() async throws {
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        let scenario = try Scenario()
        defer { scenario.files.cleanUp() }
        let jwt = scenario.jwt()
        let revision = files.url.appendingPathComponent("..2026_08_01_12_00_00.1")
        try FileManager.default.createDirectory(at: revision, withIntermediateDirectories: true)
        let token = revision.appendingPathComponent("token")
        try jwt.write(to: token, atomically: true, encoding: .utf8)
        chmod(token.path, 0o440)
        try FileManager.default.createSymbolicLink(atPath: files.url.appendingPathComponent("..data").path, withDestinationPath: revision.lastPathComponent)
        let read = try await AssertionSource.file(files.url.appendingPathComponent("..data/token").path).assertion()
        #expect(read.value == jwt)
    }
}
