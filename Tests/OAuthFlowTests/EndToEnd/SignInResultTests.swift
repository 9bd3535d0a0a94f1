import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlowLoopback
import OAuthFlow

/// A sign-in fetches the discovery document once, and returns what it verified.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct SignInResultTests {
    typealias Server = TestAuthorizationServer

    /// The newcomer's descriptor: no `endpoints`, everything (the JWKS included) from discovery.
    private func discoveredProvider(_ server: Server) throws -> Provider {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/newcomer/django", withExtension: "yaml"))
        let provider = try #require(DescriptorDocument.load(contentsOf: url).descriptor).resolve(["port": server.port])
        #expect(!provider.isDiscovered && provider.endpoints.jwks == nil)
        return provider
    }

    @Test func aLoopbackSignInFetchesDiscoveryOnceAndReturnsTheVerifiedClaims() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let transport = RecordingTransport()
        let browser = SystemBrowser(environment: ["BROWSER": "\(server.python) \(server.agent) --deliver"])
        let result = try await LoopbackSignIn(store: store, browser: browser, environment: OAuthEnvironment(transport: transport))
            .signIn(to: try discoveredProvider(server), settings: ClientSettings(clientID: Server.publicClientID))

        let paths = transport.requests.map(\.url.path)
        #expect(paths.filter { $0.hasSuffix("/.well-known/openid-configuration") }.count == 1, "\(paths)")
        #expect(paths.filter { $0.hasSuffix("/jwks.json") }.count == 1, "\(paths)")
        // What was verified comes back: the claims of the checked ID token, and the profile mapped from them.
        let claims = try #require(result.idToken)
        let stored = try #require(result.session.tokens.idToken)
        #expect(claims.all == (try IDTokenValidator.decodeUnverified(stored.value).claims))
        #expect(claims.audiences == [Server.publicClientID] && claims.nonce != nil)
        #expect(result.profile?.subject == claims.subject)
        #expect(result.profile?.email == "alice@example.com")
        let loaded = try #require(try await store.load(result.session.key))
        #expect(loaded.tokens.accessToken == result.tokens.accessToken && loaded.tokens.idToken == result.tokens.idToken)
    }

    /// `TokenManager.profile()` checks the stored ID token again before mapping it; one altered on disk is refused.
    @Test func theProfileOfAStoredSessionComesFromAVerifiedIDToken() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let browser = SystemBrowser(environment: ["BROWSER": "\(server.python) \(server.agent) --deliver"])
        let provider = try server.provider()
        let result = try await LoopbackSignIn(store: store, browser: browser).signIn(to: provider, settings: ClientSettings(clientID: Server.publicClientID))
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: result.session.redirectURI))
        let profile = try await TokenManager(client: client, store: store, key: result.session.key).profile()
        #expect(profile.subject == result.idToken?.subject && profile.email == "alice@example.com")

        // The stored ID token's payload swapped for another subject's, its signature kept.
        var altered = result.session
        let parts = try #require(altered.tokens.idToken?.value.split(separator: ".").map(String.init))
        var claims = try IDTokenValidator.decodeUnverified(parts.joined(separator: ".")).claims
        claims["sub"] = .string("mallory")
        let payload = Base64URL.encode(try JSONEncoder().encode(claims))
        altered.tokens.idToken = Secret([parts[0], payload, parts[2]].joined(separator: "."))
        try await store.save(altered)
        let error = try await #require(throws: IDTokenError.self) {
            try await TokenManager(client: client, store: store, key: result.session.key).profile()
        }
        #expect(error.code == .badSignature)
    }

    @Test func resolvingThroughTheRegistryDiscoversOnceAndUpFront() async throws {
        let server = try Server.require()
        let directory = try #require(Bundle.module.url(forResource: "Fixtures/newcomer", withExtension: nil))
        let registry = try ProviderRegistry.load(directories: [directory], includeBundled: false, includeUserDirectory: false)
        let transport = RecordingTransport()
        let discovery = DiscoveryClient(transport: transport)
        let provider = try await registry.resolve("django", variables: ["port": server.port], discovery: discovery)
        #expect(provider.isDiscovered)
        #expect(provider.endpoints.token?.absoluteString == "\(server.baseURL.absoluteString)/o/token/")
        #expect(provider.endpoints.jwks != nil)
        // A client given the discovered provider never fetches the document again.
        let again = try await provider.discovered(with: discovery)
        #expect(again == provider)
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI), environment: OAuthEnvironment(transport: transport))
        let pending = try await client.startAuthorization()
        let outcome = try await client.finishSignIn(.callback(try await server.signIn(pending.url)), pending: pending)
        #expect(outcome.idToken != nil)
        #expect(transport.requests.filter { $0.url.path.hasSuffix("/.well-known/openid-configuration") }.count == 1)
    }
}
