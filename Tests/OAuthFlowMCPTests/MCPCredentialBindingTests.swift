import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlowMCPAuth

/// Issue 61 item 1, played in process: a workload's assertion and its client's secret, given for the authorization
/// server H, never reach the server E an MCP server's metadata names instead: not at the first discovery, not after the
/// metadata moved from H to E, not when E's issuer only looks like H's (another host, port, trailing slash or path).
/// Each attack asserts that nothing at all was sent to E, and nothing anywhere carried the secret or the assertion.
@Suite struct MCPCredentialBindingTests {
    static let home = "https://auth.example.com"
    static let secret = "workload-secret-0123456789abcdef"
    static let clientID = "reports-job"

    final class World: @unchecked Sendable {
        let run = ConformanceRun(version: .v20251125)
        let key = P256.Signing.PrivateKey()
        private let lock = NSLock()
        private var named: [String] = []
        var mcp: MockMCPServer!
        let store = InMemoryTokenStore()

        init(naming issuer: String) {
            named = [issuer]
            mcp = MockMCPServer(run: run, origin: "https://mcp.example.com") { [unowned self] in lock.withLock { named } }
        }

        /// The MCP server's metadata names `issuer` from now on.
        func name(_ issuer: String) { lock.withLock { named = [issuer] } }

        /// An authorization server whose issuer is `issuer` exactly, that takes the JWT bearer grant with
        /// `client_secret_basic` and issues a token to whoever asks (as a hostile server would).
        @discardableResult
        func authorizationServer(_ issuer: String) -> MockAuthServer {
            let url = URL(string: issuer)!
            let origin = ConformanceRun.origin(of: url)!
            var options = MockAuthServerOptions()
            options.grantTypesSupported = [GrantType.jwtBearer.rawValue]
            options.tokenEndpointAuthMethodsSupported = ["client_secret_basic"]
            options.disableDynamicRegistration = true
            var path = url.path
            while path.hasSuffix("/") { path.removeLast() }
            if !path.isEmpty {
                options.routePrefix = path
                options.metadataPath = "/.well-known/oauth-authorization-server" + path
            }
            options.metadataIssuer = issuer
            return MockAuthServer(run: run, origin: origin, options: options)
        }

        /// A workload JWT for `audience`.
        func jwt(audience: String = MCPCredentialBindingTests.home) -> String {
            let now = Date().timeIntervalSince1970.rounded(.down)
            return MockJWT.sign(
                header: ["alg": .string("ES256")],
                claims: ["iss": .string("https://platform.example"), "sub": .string("job"), "aud": .string(audience), "exp": .number(now + 300)],
                key: key)
        }

        /// The workload's client, given for `issuer` with its secret and its assertion.
        func client(for issuer: String = MCPCredentialBindingTests.home, assertion: String) -> ConformanceClient {
            var settings = ClientSettings(clientID: MCPCredentialBindingTests.clientID, secret: Secret(MCPCredentialBindingTests.secret))
            settings.assertion = .callback { Secret(assertion) }
            return ConformanceClient(run: run, endpoint: mcp.endpoint, store: store) {
                $0.clients = [issuer: settings]
            }
        }

        /// The requests sent anywhere but the MCP server.
        var authorizationServerRequests: [TransportRequest] { run.requests.values.filter { $0.url.host != "mcp.example.com" } }

        /// The requests that carried the client's secret (its Basic header) or `assertion`, anywhere.
        func carrying(_ assertion: String) -> [TransportRequest] {
            let basic = "Basic " + Data("\(MCPCredentialBindingTests.clientID):\(MCPCredentialBindingTests.secret)".utf8).base64EncodedString()
            return run.requests.values.filter { request in
                let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
                return body.contains(assertion) || body.contains(MCPCredentialBindingTests.secret)
                    || request.headers.values.contains { $0 == basic || $0.contains(MCPCredentialBindingTests.secret) }
            }
        }
    }

    /// The issuers a hostile server may name instead of H: another host, a look-alike one, another port, a trailing
    /// slash, another path.
    static let otherServers = [
        "https://evil.example", "https://auth-example.com", "https://auth.example.com:8443", "https://auth.example.com/",
        "https://auth.example.com/tenant",
    ]

    /// The MCP server's metadata names E while the assertion's `aud` and the client are H's: refused, nothing sent to E.
    @Test(arguments: otherServers)
    func aServerNamingAnotherAuthorizationServerGetsNothing(other: String) async throws {
        let world = World(naming: other)
        world.authorizationServer(other)
        let assertion = world.jwt()
        let client = world.client(assertion: assertion)
        let error = await client.runEverything()
        let refusal = try #require(error as? MCPAuthorizationError, "\(String(describing: error))")
        #expect(refusal.code == .wrongAuthorizationServer)
        #expect(refusal.message.contains(other) && refusal.message.contains(Self.home), "\(refusal.message)")
        #expect(!refusal.message.contains(Self.secret) && !refusal.message.contains(assertion))
        #expect(world.authorizationServerRequests.isEmpty, "\(world.authorizationServerRequests.map(\.url))")
        #expect(world.carrying(assertion).isEmpty)
        // `inspect` says the same, before anything is fetched from E.
        await #expect(throws: MCPAuthorizationError.self) { _ = try await client.authorization.inspect(world.mcp.endpoint) }
        #expect(world.authorizationServerRequests.isEmpty)
    }

    /// A user's client given for H by name (`authorizationServer`, as the command line's `--issuer` gives it) is used there
    /// alone: a server naming E is refused, nothing is registered or signed in at E. Without the name, a client keyed by H
    /// stays H's and E is signed in at as any server is (registered there), with nothing of the client sent.
    @Test func aUserClientGivenForItsServerIsUsedThereAlone() async throws {
        let other = "https://evil.example"
        let world = World(naming: other)
        world.authorizationServer(other)
        var settings = ClientSettings(clientID: Self.clientID, secret: Secret(Self.secret))
        settings.authorizationServer = URL(string: Self.home)
        let client = ConformanceClient(run: world.run, endpoint: world.mcp.endpoint, store: world.store) { $0.clients = [Self.home: settings] }
        let error = await client.runEverything()
        let refusal = try #require(error as? MCPAuthorizationError, "\(String(describing: error))")
        #expect(refusal.code == .wrongAuthorizationServer && refusal.message.contains(other), "\(refusal.message)")
        #expect(world.authorizationServerRequests.isEmpty, "\(world.authorizationServerRequests.map(\.url))")
        #expect(world.carrying("no-assertion-\(UUID())").isEmpty)
    }

    /// Signed in at H with the workload's JWT; the metadata then names E: a later token (a new process, as `mcp token`
    /// is) is refused and E gets nothing, while H kept what it was sent.
    @Test func aTokenAfterTheMetadataMovedToAnotherServerSendsItNothing() async throws {
        let other = "https://auth-example.com"
        let world = World(naming: Self.home)
        let home = world.authorizationServer(Self.home)
        world.authorizationServer(other)
        let assertion = world.jwt()
        #expect(await world.client(assertion: assertion).runEverything() == nil)
        let sent = world.carrying(assertion)
        #expect(!sent.isEmpty && sent.allSatisfy { $0.url.absoluteString == home.tokenEndpoint }, "\(sent.map(\.url))")
        world.name(other)
        let later = world.client(assertion: assertion)
        let error = await #expect(throws: MCPAuthorizationError.self) { _ = try await later.authorization.validTokens(for: world.mcp.endpoint) }
        #expect(error?.code == .wrongAuthorizationServer)
        #expect(world.run.requests.values.allSatisfy { $0.url.host != "auth-example.com" })
        #expect(world.carrying(assertion).count == sent.count)
    }

    /// A client given under H's issuer that says it belongs to another server is not used.
    @Test func aClientGivenUnderOneIssuerForAnotherIsRefused() async throws {
        let world = World(naming: Self.home)
        world.authorizationServer(Self.home)
        let assertion = world.jwt()
        var settings = ClientSettings(clientID: Self.clientID, secret: Secret(Self.secret))
        settings.assertion = .callback { Secret(assertion) }
        settings.authorizationServer = URL(string: "https://auth-example.com")
        let client = ConformanceClient(run: world.run, endpoint: world.mcp.endpoint) { $0.clients = [Self.home: settings] }
        let error = await client.runEverything()
        #expect((error as? MCPAuthorizationError)?.code == .wrongAuthorizationServer, "\(String(describing: error))")
        #expect(world.carrying(assertion).isEmpty)
    }

    /// The workload's JWT is presented only when its `aud` names the authorization server (RFC 7523 §3): one for another
    /// server (the platform's token meant for H, shown to an MCP server whose metadata names this one) is not sent.
    @Test func anAssertionForAnotherServerIsNotPresented() async throws {
        let world = World(naming: Self.home)
        world.authorizationServer(Self.home)
        let assertion = world.jwt(audience: "https://auth-example.com")
        let error = await world.client(assertion: assertion).runEverything()
        #expect((error as? FlowError)?.code == .unusableAssertion, "\(String(describing: error))")
        #expect(world.carrying(assertion).isEmpty)
    }
}
