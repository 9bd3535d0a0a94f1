import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Discovery and ID token validation against Django OAuth Toolkit (RS256).
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct OIDCEndToEndTests {
    typealias Server = TestAuthorizationServer

    @Test func discoveryMatchesTheDescriptor() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let metadata = try await DiscoveryClient().metadata(at: try #require(provider.discoveryURL), issuers: provider.issuers, provider: provider.id)
        #expect(metadata.issuer == provider.issuer?.absoluteString)
        #expect(metadata.jwksURI == provider.endpoints.jwks)
        #expect(metadata.tokenEndpoint == provider.endpoints.token)
        #expect(metadata.idTokenSigningAlgValuesSupported?.contains("RS256") == true)
    }

    @Test func issuerMustMatchExactlyTrailingSlashIncluded() async throws {
        let server = try Server.require()
        let provider = try server.provider { $0.issuer = "http://127.0.0.1:{port}/o/" }
        let error = try await #require(throws: DiscoveryError.self) { try await DiscoveryClient().metadata(at: try #require(provider.discoveryURL), issuers: provider.issuers, provider: provider.id) }
        #expect(error.code == .issuerMismatch)
    }

    @Test func idTokensAreVerifiedOnSignInAndRefreshWithKeysFromDiscovery() async throws {
        let server = try Server.require()
        // No static JWKS endpoint: the client discovers it.
        let provider = try server.provider { $0.endpoints.jwks = nil }
        #expect(provider.endpoints.jwks == nil)
        let transport = RecordingTransport()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI), environment: OAuthEnvironment(transport: transport))
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await server.signIn(pending.url)), pending: pending).tokens
        let idToken = try #require(tokens.idToken)
        let (header, claims) = try IDTokenValidator.decodeUnverified(idToken.value)
        #expect(header["alg"]?.stringValue == "RS256")
        #expect(claims["nonce"]?.stringValue == pending.nonce?.value)
        let urls = transport.requests.map(\.url.absoluteString)
        #expect(urls.contains { $0.hasSuffix("/.well-known/openid-configuration") })
        #expect(urls.contains { $0.hasSuffix("/.well-known/jwks.json") })

        // DOT issues a new ID token on refresh, without a nonce; it is verified too.
        let refreshed = try await client.refresh(tokens)
        let newIDToken = try #require(refreshed.idToken)
        #expect(newIDToken != idToken)
        #expect(try IDTokenValidator.decodeUnverified(newIDToken.value).claims["nonce"] == nil)
        #expect(try await client.userInfo(refreshed)["sub"] == claims["sub"])
    }

    @Test func aTokenForAnotherClientIsRefused() async throws {
        let server = try Server.require()
        let provider = try server.provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI))
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await server.signIn(pending.url)), pending: pending).tokens
        let strict = IDTokenValidator(provider: provider, clientID: Server.confidentialClientID)
        let error = try await #require(throws: IDTokenError.self) {
            try await strict.validate(try #require(tokens.idToken), nonce: pending.nonce, accessToken: tokens.accessToken)
        }
        #expect(error.code == .audienceMismatch)
    }
}

/// A descriptor with no `endpoints` key: everything comes from discovery.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct DiscoveredEndpointsTests {
    typealias Server = TestAuthorizationServer

    private func provider(_ server: Server) throws -> Provider {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/newcomer/django", withExtension: "yaml"))
        let document = DescriptorDocument.load(contentsOf: url)
        #expect(document.problems.isEmpty, "\(document.problems)")
        let provider = try #require(document.descriptor).resolve(["port": server.port])
        #expect(provider.endpoints.authorization == nil && provider.endpoints.token == nil)
        return provider
    }

    @Test func signInRefreshAndUserinfoWithNoEndpointsKey() async throws {
        let server = try Server.require()
        let client = OAuthClient(provider: try provider(server), configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI))
        let pending = try await client.startAuthorization()
        #expect(pending.url.absoluteString.hasPrefix("\(server.baseURL.absoluteString)/o/authorize/"))
        let tokens = try await client.finishSignIn(.callback(try await server.signIn(pending.url)), pending: pending).tokens
        #expect(tokens.idToken != nil)
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.accessToken != tokens.accessToken)
        let claims = try await client.userInfo(refreshed)
        #expect(claims["email"]?.stringValue == "alice@example.com")
        // DOT's discovery document names no revocation endpoint: the error says where it looked.
        let error = try await #require(throws: FlowError.self) { try await client.revoke(refreshed.accessToken, kind: .accessToken) }
        #expect(error.code == .missingEndpoint)
        #expect(error.message.contains("neither its descriptor nor its discovery document"), "\(error.message)")
    }

    @Test func theCLISignsInWithIt() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let directory = try #require(Bundle.module.url(forResource: "Fixtures/newcomer", withExtension: nil))
        let lint = try await runProduct("oauthflow", ["lint", "--strict", directory.path])
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
        let environment = ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path,
                           "BROWSER": "\(server.python) \(server.agent) --deliver"]
        let login = try await runProduct("oauthflow", ["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(server.port)",
                                                       "--providers-dir", directory.path, "--timeout", "60"], environment: environment)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to django"))
    }
}
