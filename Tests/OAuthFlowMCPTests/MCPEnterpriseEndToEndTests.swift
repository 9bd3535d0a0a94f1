import Crypto
import Foundation
import Hummingbird
import Logging
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP
import OAuthFlowMCPHummingbird
import OAuthFlowTestSupport
import ServiceLifecycle
import Testing

/// The enterprise identity provider and ID-JAG authorization server `scripts/servers.sh` starts (Tests/IDJAGServer).
struct TestIDJAGServer: Decodable, Sendable {
    let issuer: String
    /// The same authorization server under the issuer whose metadata names an authorization endpoint, which the Python
    /// MCP SDK's metadata model requires.
    let sdkIssuer: String
    let idpIssuer: String
    let idpClientID: String
    let idpClientSecret: String
    let clientID: String
    let clientSecret: String
    let mintingIssuer: String
    let mintingKey: String

    enum CodingKeys: String, CodingKey {
        case issuer, sdkIssuer = "sdk_issuer", idpIssuer = "idp_issuer", idpClientID = "idp_client_id", idpClientSecret = "idp_client_secret"
        case clientID = "client_id", clientSecret = "client_secret", mintingIssuer = "minting_issuer", mintingKey = "minting_key"
    }

    static let current: TestIDJAGServer? = {
        guard let path = ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_IDJAG_SERVER"], let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return try? JSONDecoder().decode(TestIDJAGServer.self, from: data)
    }()
    static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    static func require() throws -> TestIDJAGServer {
        try #require(current, "OAUTHFLOW_TEST_IDJAG_SERVER is not set: the ID-JAG server was not started (run `bash scripts/test.sh`)")
    }

    /// The identity provider, as a host's descriptor names it: OpenID Connect, the token exchange grant, its secret.
    /// With `dpop`, the descriptor asks for DPoP there (`security.dpop: required`): its tokens and ID-JAGs are bound.
    func identityProvider(dpop: Bool = false) throws -> Provider {
        try TestDescriptor(
            id: "corp-idp", protocol: .oidc, issuer: idpIssuer,
            endpoints: [("authorization", idpIssuer + "/authorize"), ("token", idpIssuer + "/token"), ("jwks", idpIssuer + "/jwks")],
            scopes: ["openid", "email"],
            extra: """
                grant_types: [authorization_code, refresh_token, \(GrantType.tokenExchange.rawValue)]
                client_auth:
                  methods: [client_secret_basic]
                security:
                  id_token_algs: [ES256]
                \(dpop ? "  dpop: required\n" : "")
                """
        ).provider()
    }

    /// How many grants of `subject` bound to a key (and proven) the authorization server redeemed, by `GET /test/stats`.
    func redeemedBound(subject: String) async throws -> Int {
        let origin = try #require(URL(string: issuer)).deletingLastPathComponent().absoluteString.trimmingCharacters(in: ["/"])
        let answer = try await DefaultHTTPTransport(timeout: 30).send(TransportRequest(method: .get, url: try #require(URL(string: origin + "/test/stats"))))
        let stats = try JSONDecoder().decode([String: JSONValue].self, from: answer.body)
        guard case let .array(redeemed)? = stats["redeemed"] else { return 0 }
        return redeemed.filter { if case let .object(entry) = $0 { entry["bound"] == .bool(true) && entry["sub"] == .string(subject) } else { false } }
            .count
    }

    /// The authorization server as the MCP server trusts it: its JWT access tokens, verified with its keys.
    func authorizationServer(issuer: String? = nil) throws -> Provider {
        let issuer = issuer ?? self.issuer
        return try TestDescriptor(
            id: "idjag-as", issuer: issuer, endpoints: [("token", issuer + "/token"), ("jwks", issuer + "/jwks")],
            extra: """
                grant_types: [\(GrantType.jwtBearer.rawValue)]
                client_auth:
                  methods: [client_secret_basic]
                access_tokens:
                  format: jwt
                  signing_algs: [ES256]

                """
        ).provider()
    }

    /// An ID-JAG signed with the second identity provider's key the authorization server trusts, as a test mints one.
    func mint(resource: String, changes: [String: JSONValue] = [:], type: String = "oauth-id-jag+jwt", audience: String? = nil) throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: mintingKey, encoding: .utf8))
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(mintingIssuer), "sub": .string("bob"), "aud": .string(audience ?? issuer), "resource": .string(resource),
            "client_id": .string(clientID), "jti": .string(UUID().uuidString), "iat": .number(now), "exp": .number(now + 120),
        ]
        claims.merge(changes) { $1 }
        return MockJWT.sign(header: ["alg": .string("ES256"), "typ": .string(type)], claims: claims, key: key)
    }
}

/// Enterprise-managed authorization end to end, over HTTP on 127.0.0.1: OAuthFlow's MCP client signs in at the identity
/// provider (Tests/IDJAGServer, PyJWT) through the loopback redirect, exchanges its ID token for an ID-JAG, redeems it at
/// the authorization server beside it, and calls a protected Swift MCP server (Hummingbird) that takes the tokens that
/// authorization server issues; the authorization server's own refusals (a replayed `jti` among them); and the Python MCP
/// SDK's ID-JAG client against the same Swift server.
@Suite(.enabled(if: TestIDJAGServer.shouldRun, "needs the ID-JAG server: run `bash scripts/test.sh`"))
struct MCPEnterpriseEndToEndTests {
    /// A protected MCP server on 127.0.0.1 that trusts the ID-JAG authorization server, stateless (the Swift SDK's client
    /// on Linux reads no Server-Sent Events); `body` runs while it serves.
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func serving<T: Sendable>(_ server: TestIDJAGServer, issuer: String? = nil, _ body: (URL) async throws -> T) async throws -> T {
        try await LoopbackApplication.serving(label: "mcp-enterprise-test") { port in
            let endpoint = try #require(URL(string: "http://127.0.0.1:\(port)/mcp"))
            let api = try ProtectedResource(
                providers: [try server.authorizationServer(issuer: issuer)], settings: .mcpServer(at: endpoint, scopesSupported: ["notes:read"]))
            let mcp = try ProtectedMCPServer(
                api, configuration: .init(scopes: [], toolScopes: [:], sessions: .stateless), makeServer: ProtectedServerWorld.makeServer)
            let router = Router()
            router.addMCPServer(mcp)
            return router
        } _: { app in
            try await body(try app.url("/mcp"))
        }
    }

    /// The whole flow, as a newcomer configures it from Docs/mcp.md: the MCP SDK's transport and OAuthFlow's authorizer
    /// with the enterprise identity provider; the user signs in there once (the browser), and the MCP server's
    /// authorization server is never visited by a browser.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anMCPClientSignsInThroughTheEnterpriseIdentityProvider() async throws {
        let server = try TestIDJAGServer.require()
        let (text, key, opened) = try await Self.serving(server) { endpoint in
            let browser = FollowingBrowser()
            var configuration = MCPAuthorizer.Configuration(store: InMemoryTokenStore(), browser: browser)
            configuration.signInTimeout = .seconds(90)  // against a hang, far above a sign-in on a loaded machine
            configuration.clients = [server.issuer: ClientSettings(clientID: server.clientID, secret: Secret(server.clientSecret))]
            configuration.enterpriseIdentityProvider = .init(
                provider: try server.identityProvider(), client: ClientSettings(clientID: server.idpClientID, secret: Secret(server.idpClientSecret)))
            let authorizer = MCPAuthorizer(configuration)
            let transport = HTTPClientTransport(endpoint: endpoint, streaming: false, authorizer: authorizer, requestModifier: authorizer.requestModifier)
            let client = Client(name: "enterprise-agent", version: "1.0.0")
            _ = try await client.connect(transport: transport)
            let (answer, _) = try await client.callTool(name: "whoami", arguments: [:])
            await client.disconnect()
            guard case let .text(text, _, _)? = answer.first else { return ("", nil as SessionKey?, browser.opened.values) }
            return (text, await authorizer.authorization.sessionKey(for: endpoint), browser.opened.values)
        }
        // The token the authorization server issued from the ID-JAG names the identity provider's user; the server took it.
        #expect(text.hasPrefix("you are alice"), "\(text)")
        #expect(opened.count == 1 && opened.allSatisfy { $0.absoluteString.hasPrefix(server.idpIssuer + "/authorize") }, "\(opened)")
        #expect(key?.account.hasSuffix("/mcp via corp-idp") == true, "\(String(describing: key))")
    }

    /// A DPoP-bound ID-JAG (issue 63 item 5): with DPoP asked at the identity provider, the exchange carries a proof and
    /// the ID-JAG comes back `N_A` with `cnf.jkt` of that key (before, the engine refused the `N_A` answer as a Bearer
    /// downgrade); it is presented to the authorization server with a proof of the same key, which the server checks,
    /// and the MCP server takes the token it issues.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aDPoPBoundIdentityAssertionIsPresentedWithAProofOfItsKey() async throws {
        let server = try TestIDJAGServer.require()
        let before = try await server.redeemedBound(subject: "alice")
        let text = try await Self.serving(server) { endpoint in
            var configuration = MCPAuthorization.Configuration(store: InMemoryTokenStore(), browser: FollowingBrowser())
            configuration.signInTimeout = .seconds(90)
            configuration.clients = [server.issuer: ClientSettings(clientID: server.clientID, secret: Secret(server.clientSecret))]
            configuration.enterpriseIdentityProvider = .init(
                provider: try server.identityProvider(dpop: true),
                client: ClientSettings(clientID: server.idpClientID, secret: Secret(server.idpClientSecret)))
            let authorization = MCPAuthorization(configuration)
            try await authorization.signIn(to: endpoint)
            return try await authorization.validTokens(for: endpoint).accessToken.value
        }
        #expect(!text.isEmpty)
        #expect(try await server.redeemedBound(subject: "alice") == before + 1)
    }

    /// The authorization server's checks: an ID-JAG is redeemed once; a replay, another client, another `typ` or one from
    /// an issuer it does not trust is refused with `invalid_grant`. One for another audience or expired is refused by the
    /// client before it is sent (RFC 7523 §3), so the server never sees it.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theAuthorizationServerRefusesReplayedAndForeignGrants() async throws {
        let server = try TestIDJAGServer.require()
        let resource = "http://127.0.0.1:9/mcp"
        let client = OAuthClient(
            provider: try server.authorizationServer(), configuration: .service(clientID: server.clientID, clientSecret: Secret(server.clientSecret)))
        let grant = try server.mint(resource: resource)
        let tokens = try await client.jwtBearerToken(assertion: Secret(grant), resources: [resource])
        #expect(MockJWT.decode(tokens.accessToken.value)?.claims["aud"]?.stringValue == resource)
        let now = Date().timeIntervalSince1970.rounded(.down)
        let refused: [(String, String)] = [
            (grant, "already redeemed"), (try server.mint(resource: resource, changes: ["aud": .string("https://other-as.example")]), "another audience"),
            (try server.mint(resource: resource, changes: ["client_id": .string("someone-else")]), "client_id"),
            (try server.mint(resource: resource, type: "JWT"), "typ"), (try server.mint(resource: resource, changes: ["exp": .number(now - 120)]), "expired"),
            (try server.mint(resource: resource, changes: ["iss": .string("https://unknown.example")]), "not trusted"),
        ]
        for (assertion, reason) in refused {
            do {
                _ = try await client.jwtBearerToken(assertion: Secret(assertion), resources: [resource])
                Issue.record("redeemed: \(reason)")
            } catch let error as AuthorizationServerError {
                #expect(error.error == "invalid_grant" && error.errorDescription?.contains(reason) == true, "\(reason): \(error)")
            } catch let error as FlowError {
                #expect(["another audience", "expired"].contains(reason) && error.code == .unusableAssertion, "\(reason): \(error)")
            }
        }
    }

    /// The test authorization server is as strict as the ID-JAG draft (issue 63 item 10), seen by posting grants past
    /// the client's own checks: one naming several audiences, one bound to a key (`cnf.jkt`) with no proof of it, and one
    /// living longer than the server's maximum are refused; the bound one is redeemed with a DPoP proof of its key; and
    /// its metadata names no authorization endpoint or PKCE, which it does not serve.
    @Test func theAuthorizationServerIsAsStrictAsTheDraft() async throws {
        let server = try TestIDJAGServer.require()
        let resource = "http://127.0.0.1:9/mcp"
        let tokenEndpoint = try #require(URL(string: server.issuer + "/token"))
        let transport = DefaultHTTPTransport(timeout: 30)
        func redeem(_ assertion: String, proof: String? = nil) async throws -> (status: Int, description: String) {
            let basic = Data((server.clientID + ":" + server.clientSecret).utf8).base64EncodedString()
            var headers = ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + basic]
            if let proof { headers["DPoP"] = proof }
            let form = "grant_type=\(GrantType.jwtBearer.rawValue)&assertion=\(assertion)"
            let answer = try await transport.send(TransportRequest(method: .post, url: tokenEndpoint, headers: headers, body: Data(form.utf8)))
            let body = try JSONDecoder().decode([String: JSONValue].self, from: answer.body)
            return (answer.status, body["error_description"]?.stringValue ?? "")
        }
        let now = Date().timeIntervalSince1970.rounded(.down)
        let key = try DPoPKey.generate()
        let refused: [(String, String)] = [
            (try server.mint(resource: resource, changes: ["aud": .array([.string(server.issuer), .string("https://other-as.example")])]), "several audiences"),
            (try server.mint(resource: resource, changes: ["cnf": .object(["jkt": .string(key.thumbprint)])]), "no DPoP proof"),
            (try server.mint(resource: resource, changes: ["exp": .number(now + 3600)]), "lives longer than"),
        ]
        for (assertion, reason) in refused {
            let (status, description) = try await redeem(assertion)
            #expect(status == 400 && description.contains(reason), "\(reason): \(status) \(description)")
        }
        let bound = try server.mint(resource: resource, changes: ["cnf": .object(["jkt": .string(key.thumbprint)])])
        let other = try DPoPKey.generate()
        let wrongKey = try await redeem(bound, proof: try await other.proof(method: .post, url: tokenEndpoint))
        #expect(wrongKey.status == 400 && wrongKey.description.contains("no DPoP proof"), "\(wrongKey)")
        let proven = try await redeem(
            try server.mint(resource: resource, changes: ["cnf": .object(["jkt": .string(key.thumbprint)])]),
            proof: try await key.proof(method: .post, url: tokenEndpoint))
        #expect(proven.status == 200, "\(proven)")
        let origin = try #require(URL(string: server.issuer)).deletingLastPathComponent().absoluteString.trimmingCharacters(in: ["/"])
        let metadata = try await transport.send(
            TransportRequest(method: .get, url: try #require(URL(string: origin + "/.well-known/oauth-authorization-server/as"))))
        let members = try JSONDecoder().decode([String: JSONValue].self, from: metadata.body)
        #expect(members["authorization_endpoint"] == nil && members["code_challenge_methods_supported"] == nil, "\(members)")
    }

    /// A Swift authorization server's checks (``IdentityAssertionGrantVerifier``, issue 63 item 11) redeem what the Python
    /// identity provider issues: alice signs in there, her ID token is exchanged for an ID-JAG for this server and a
    /// resource, and the verifier takes it with the identity provider's keys, once; presented by another client, or
    /// again, it is refused.
    @Test func aSwiftAuthorizationServerRedeemsTheIdentityProvidersGrant() async throws {
        let server = try TestIDJAGServer.require()
        let resource = "http://127.0.0.1:9/mcp"
        let idp = try server.identityProvider()
        let store = InMemoryTokenStore()
        let signIn = LoopbackSignIn(store: store, browser: FollowingBrowser())
        let session = try await signIn.signIn(
            to: idp, settings: ClientSettings(clientID: server.idpClientID, secret: Secret(server.idpClientSecret), scopes: ["openid"]),
            account: "alice", timeout: .seconds(90)
        ).session
        let idToken = try #require(session.tokens.idToken)
        let exchanger = OAuthClient(provider: idp, configuration: .service(clientID: server.idpClientID, clientSecret: Secret(server.idpClientSecret)))
        let exchanged = try await exchanger.exchangeToken(
            OAuthClient.TokenExchangeRequest(
                subjectToken: idToken, subjectTokenType: TokenTypeIdentifier.idToken, requestedTokenType: TokenTypeIdentifier.idJAG,
                target: OAuthClient.ServiceTokenRequest(resources: [resource], audiences: [server.issuer])))
        let grants = try IdentityAssertionGrantVerifier(
            identityProviders: [idp], settings: .init(issuer: server.issuer, resources: [resource]),
            environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 30)))
        let assertion = exchanged.tokens.accessToken
        let foreign = await Self.refusal(grants, assertion, client: "someone-else")
        #expect(foreign?.reason.contains("client_id") == true, "\(String(describing: foreign))")
        let grant = try await grants.verify(assertion, client: server.clientID, resource: resource)
        #expect(grant.subject == "alice" && grant.identityProvider == server.idpIssuer && grant.resource == resource, "\(grant)")
        let replayed = await Self.refusal(grants, assertion, client: server.clientID)
        #expect(replayed?.reason.contains("presented before") == true, "\(String(describing: replayed))")
    }

    static func refusal(_ grants: IdentityAssertionGrantVerifier, _ assertion: Secret, client: String) async -> IdentityAssertionGrantVerifier.Refusal? {
        do {
            _ = try await grants.verify(assertion, client: client)
            return nil
        } catch {
            return error
        }
    }

    /// The Python MCP SDK's `IdentityAssertionOAuthProvider` (the second leg only: the caller hands it the ID-JAG) gets a
    /// token from the authorization server for a protected Swift MCP server, which takes it.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test(.enabled(if: PythonMCPClient.shouldRun, "needs the Python MCP SDK's virtualenv: run `bash scripts/test.sh`"))
    func thePythonSDKsIdentityAssertionClientCallsAProtectedSwiftServer() async throws {
        let server = try TestIDJAGServer.require()
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        // The Python SDK's metadata model requires an authorization endpoint: the issuer whose metadata names one.
        let result = try await Self.serving(server, issuer: server.sdkIssuer) { endpoint in
            let grant = try files.write("id-jag", try server.mint(resource: endpoint.absoluteString, audience: server.sdkIssuer))
            let script = repositoryRoot.appendingPathComponent("Tests/IDJAGServer/sdk_client.py")
            return try await ChildProcess.run(
                PythonMCPClient.python, [script.path, endpoint.absoluteString, server.sdkIssuer, server.clientID, grant.path],
                environment: ["IDJAG_CLIENT_SECRET": server.clientSecret])
        }
        #expect(result.status == 0, "\(result.stderr.suffix(3000))")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect((answer["whoami"] as? [String: Any])?["texts"] as? [String] == ["you are bob ()"], "\(answer)")
        #expect((answer["asked"] as? [[String: String]])?.first?["audience"] == server.sdkIssuer, "\(answer)")
    }
}

extension MCPEnterpriseEndToEndTests {
    /// `oauthflow mcp inspect URL --via corp-idp` says the token would come through the identity provider, `login --via`
    /// signs in there (the browser is `$BROWSER`, a script that follows the redirects) and gets the server's token, and
    /// `token --via` prints it from the stored session.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theCommandLineSignsInThroughTheIdentityProvider() async throws {
        let server = try TestIDJAGServer.require()
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        _ = try files.write("config/oauthflow/providers/corp-idp.yaml", try Self.identityProviderYAML(server))
        let browser = try files.write(
            "browser.sh", "#!/bin/sh\n( python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)' \"$1\" ) >/dev/null 2>&1 &\n")
        chmod(browser.path, 0o755)
        let environment = [
            "XDG_CONFIG_HOME": files.url.appendingPathComponent("config").path, "XDG_STATE_HOME": files.url.appendingPathComponent("state").path,
            "OAUTHFLOW_CORP_IDP_CLIENT_ID": server.idpClientID, "OAUTHFLOW_CORP_IDP_CLIENT_SECRET": server.idpClientSecret,
            "MCP_AGENT_SECRET": server.clientSecret, "BROWSER": browser.path,
        ]
        let (inspect, login, token, withoutFlags) = try await Self.serving(server) { endpoint in
            let url = endpoint.absoluteString
            let client = ["--client-id", server.clientID, "--client-secret-env", "MCP_AGENT_SECRET", "--issuer", server.issuer]
            return (
                try await runProduct("oauthflow", ["mcp", "inspect", url, "--via", "corp-idp"] + client, environment: environment),
                try await runProduct("oauthflow", ["mcp", "login", url, "--via", "corp-idp", "--timeout", "20"] + client, environment: environment),
                try await runProduct("oauthflow", ["mcp", "token", url, "--via", "corp-idp"] + client, environment: environment),
                // The same session asked for without its route's flags: the hint names them.
                try await runProduct("oauthflow", ["mcp", "token", url], environment: environment)
            )
        }
        #expect(withoutFlags.status == 1 && withoutFlags.stdout.isEmpty, "\(withoutFlags.stderr)")
        #expect(withoutFlags.stderr.contains("is found with the same flags and `--issuer`"), "\(withoutFlags.stderr)")
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("through the enterprise identity provider corp-idp"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("`oauthflow mcp login --via corp-idp` would use the session at corp-idp"), "\(inspect.stdout)")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Signed in to"), "\(login.stderr)")
        #expect(token.status == 0, "\(token.stderr)")
        #expect(MockJWT.decode(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))?.claims["sub"]?.stringValue == "alice", "\(token.stdout)")
    }

    static func identityProviderYAML(_ server: TestIDJAGServer) throws -> String {
        let idp = server.idpIssuer
        return TestDescriptor(
            id: "corp-idp", protocol: .oidc, issuer: idp, endpoints: [("authorization", idp + "/authorize"), ("token", idp + "/token"), ("jwks", idp + "/jwks")],
            scopes: ["openid", "email"],
            extra: "grant_types: [authorization_code, refresh_token, \(GrantType.tokenExchange.rawValue)]\nclient_auth:\n  methods: [client_secret_basic]\nsecurity:\n  id_token_algs: [ES256]\n"
        ).yaml
    }
}

/// The user's browser for this module's suites: follows each redirect (the loopback's start address, a provider that
/// consents at once) back to the loopback redirect.
struct FollowingBrowser: BrowserOpener {
    let opened = Log<URL>()

    func open(_ url: URL) async throws {
        opened.add(url)
        Task { _ = await TestBrowser.follow(url) }
    }
}
