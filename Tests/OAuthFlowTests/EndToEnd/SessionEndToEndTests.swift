import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Stored sessions, refresh and the session CLI against Django OAuth Toolkit
/// (refresh-token rotation and reuse protection on).
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct SessionEndToEndTests {
    typealias Server = TestAuthorizationServer

    /// Signs in for real and stores the session in a fresh state directory.
    static func storedSession(_ server: Server, state: URL) async throws -> (StoredSession, FileTokenStore, Provider) {
        let provider = try server.provider()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI))
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await server.signIn(pending.url)), pending: pending).tokens
        let session = StoredSession(key: SessionKey(providerID: "django"), variables: provider.variables, clientID: Server.publicClientID,
                                    redirectURI: Server.redirectURI, tokens: tokens, updatedAt: Date())
        let store = FileTokenStore(directory: state.appendingPathComponent("oauthflow"))
        try await store.save(session)
        return (session, store, provider)
    }

    private func expire(_ session: StoredSession, in store: FileTokenStore) async throws {
        var expired = session
        expired.tokens.expiresAt = Date().addingTimeInterval(-5)
        try await store.save(expired)
    }

    @Test func tenThousandConcurrentCallersCauseOneRefreshRequest() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let (session, store, provider) = try await Self.storedSession(server, state: state.url)
        try await expire(session, in: store)
        let transport = RecordingTransport()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI), environment: OAuthEnvironment(transport: transport))
        let manager = TokenManager(client: client, store: store, key: session.key)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10_000 { group.addTask { try await manager.validAccessToken().value } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(transport.requests.filter { $0.url.absoluteString.hasSuffix("/o/token/") }.count == 1)
        #expect(tokens.first != session.tokens.accessToken.value)
        let stored = try #require(try await store.load(session.key))
        #expect(stored.tokens.refreshToken != session.tokens.refreshToken, "the rotated refresh token was stored")
        let response = try await manager.perform(TransportRequest(method: .get, url: try #require(provider.endpoints.userinfo)))
        #expect(response.status == 200)
    }

    @Test func twoProcessesRefreshingOneSessionBothSucceed() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let (session, store, provider) = try await Self.storedSession(server, state: state.url)
        let environment = ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path]
        let arguments = ["token", "refresh", "django", "--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"]
        async let first = runProduct("oauthflow", arguments, environment: environment)
        async let second = runProduct("oauthflow", arguments, environment: environment)
        let results = try await [first, second]
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("refresh token: present"))
            #expect(!result.stdout.contains(session.tokens.accessToken.value))
        }
        // No token family was revoked: the stored session still works and refreshes again.
        let stored = try #require(try await store.load(session.key))
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Server.publicClientID, redirectURI: Server.redirectURI))
        #expect(try await client.userInfo(stored.tokens)["sub"] != nil)
        let again = try await client.refresh(stored.tokens)
        #expect(again.refreshToken != stored.tokens.refreshToken)
    }

    @Test func callRefusesAResourceWhoseScopeWasNotGranted() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        _ = try await Self.storedSession(server, state: state.url)
        let fixture = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"), encoding: .utf8)
        try state.write("providers/django.yaml", fixture + "  - scope: admin\n    title: Admin\n    url: http://127.0.0.1:{port}/o/admin/\n")
        let environment = ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path]
        let call = try await runProduct("oauthflow", ["call", "django", "Admin", "--providers-dir", state.url.appendingPathComponent("providers").path],
                                        environment: environment)
        #expect(call.status == 1)
        #expect(call.stderr.contains("`Admin` needs the scope `admin`, which this session was not granted"), "\(call.stderr)")
        #expect(!call.stderr.contains("HTTP "), "nothing was sent")
    }

    @Test func resourcesAndCallUseTheStoredSession() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let (session, store, _) = try await Self.storedSession(server, state: state.url)
        try await expire(session, in: store)
        let environment = ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path]
        let providers = ["--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"]

        let resources = try await runProduct("oauthflow", ["resources", "django"] + providers, environment: environment)
        #expect(resources.status == 0, "\(resources.stderr)")
        #expect(resources.stdout == "Userinfo\tread\t\(server.baseURL.absoluteString)/o/userinfo/\n")

        let call = try await runProduct("oauthflow", ["call", "django", "Userinfo"] + providers, environment: environment)
        #expect(call.status == 0, "\(call.stderr)")
        #expect(call.stderr.contains("HTTP 200"))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(call.stdout.utf8)) as? [String: Any])
        #expect(claims["email"] as? String == "alice@example.com")
        let refreshed = try #require(try await store.load(session.key))
        #expect(refreshed.tokens.accessToken != session.tokens.accessToken, "the expired token was refreshed and stored")

        let show = try await runProduct("oauthflow", ["token", "show", "django"] + providers, environment: environment)
        #expect(show.status == 0)
        #expect(show.stdout.contains("scopes: "))
        #expect(!show.stdout.contains(refreshed.tokens.accessToken.value))

        let missing = try await runProduct("oauthflow", ["call", "nobody", "x"] + providers, environment: environment)
        #expect(missing.status == 1)
        // An unknown provider is that, not a missing sign-in.
        #expect(missing.stderr.contains("no provider named `nobody`"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("Usage:"), "an unknown provider is a state, not a wrong command line")
        let signedOut = try await runProduct("oauthflow", ["call", "django", "x", "--account", "nobody"] + providers, environment: environment)
        #expect(signedOut.status == 1)
        #expect(signedOut.stderr.contains("no stored session for django/nobody"), "\(signedOut.stderr)")
        #expect(!signedOut.stderr.contains("Usage:"), "a missing session is a state, not a wrong command line")
    }
}
