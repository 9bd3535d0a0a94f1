import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// The descriptor's `revocation` section: each bundled provider's revocation request as its documentation
/// describes it, the general forms (another method, the token in the query or as the Bearer token, no client
/// authentication, fixed parameters), the kinds a provider revokes, and the refusals of a section that
/// cannot work.
@Suite struct RevocationSettingsTests {
    /// Records every request and answers 200.
    final class Recorder: Sendable {
        let requests = Locked<[TransportRequest]>([])
        var transport: ScriptedTransport {
            ScriptedTransport { [requests] request, _ in
                requests.withLock { $0.append(request) }
                return TransportResponse(status: 200)
            }
        }
        var last: TransportRequest? { requests.current.last }
    }

    static func form(_ request: TransportRequest?) -> [String: String] {
        guard let body = request?.body else { return [:] }
        return Dictionary(FormEncoding.decode(String(decoding: body, as: UTF8.self))) { first, _ in first }
    }

    static func query(_ request: TransportRequest?) -> [String: String] {
        guard let request, let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems else { return [:] }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    func bundled(_ id: String, _ recorder: Recorder, secret: String? = "s3cret") throws -> OAuthClient {
        let descriptor = try ProviderRegistry.load(includeBundled: true).descriptor(named: id)
        let provider = try descriptor.resolve(descriptor.variables.compactMapValues { $0.default == nil ? $0.example : nil })
        return OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: secret.map(Secret.init)),
            environment: OAuthEnvironment(transport: recorder.transport))
    }

    func custom(_ section: String, clientAuth: String = "client_secret_basic", secret: String? = "s3cret", _ recorder: Recorder) throws -> OAuthClient {
        let provider = try TestDescriptor(extra: "client_auth:\n  method: \(clientAuth)\nrevocation:\n" + section)
            .with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
        return OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: secret.map(Secret.init)),
            environment: OAuthEnvironment(transport: recorder.transport))
    }

    /// RFC 7009 §2.1: a provider whose token endpoint takes JSON (`token_request.body_encoding: json`, as Auth0's does)
    /// still gets a form at its revocation endpoint.
    @Test func revocationIsAFormWhateverTheTokenEndpointTakes() async throws {
        let recorder = Recorder()
        let client = try custom("  placement: body\ntoken_request:\n  body_encoding: json\n", clientAuth: "client_secret_post", recorder)
        #expect(client.provider.policy.tokenRequest.encoding == .json)
        try await client.revoke(Secret("rt-1"), kind: .refreshToken)
        #expect(recorder.last?.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true, "\(recorder.last?.headers ?? [:])")
        #expect(Self.form(recorder.last)["token"] == "rt-1" && Self.form(recorder.last)["client_secret"] == "s3cret")
    }

    // MARK: - The bundled providers, as their pages describe the request

    @Test func lineTakesTheAccessTokenAsAccessTokenWithTheClientInTheBody() async throws {
        let recorder = Recorder()
        try await bundled("line", recorder).revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.url.absoluteString == "https://api.line.me/oauth2/v2.1/revoke")
        #expect(Self.form(recorder.last) == ["access_token": "at-1", "client_id": "app", "client_secret": "s3cret"])
        await #expect(throws: FlowError.self) { try await bundled("line", recorder).revoke(Secret("rt"), kind: .refreshToken) }
        #expect(recorder.requests.current.count == 1, "a kind LINE does not revoke is never sent")
    }

    @Test func linearTakesTheAccessTokenAsTheRequestsBearerToken() async throws {
        let recorder = Recorder()
        try await bundled("linear", recorder).revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.method == .post && recorder.last?.url.absoluteString == "https://api.linear.app/oauth/revoke")
        #expect(recorder.last?.headers["Authorization"] == "Bearer at-1")
        let query = recorder.last?.url.query ?? ""
        #expect(Self.form(recorder.last).isEmpty && query.contains("at-1") == false)
    }

    @Test func stravaTakesOnlyTheAccessToken() async throws {
        let recorder = Recorder()
        try await bundled("strava", recorder).revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.url.absoluteString == "https://www.strava.com/oauth/deauthorize")
        #expect(Self.form(recorder.last) == ["access_token": "at-1", "client_id": "app"])
        #expect(recorder.last?.headers["Authorization"] == nil)
    }

    @Test func naverDeletesAtItsTokenEndpoint() async throws {
        let recorder = Recorder()
        try await bundled("naver", recorder).revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.url.absoluteString == "https://nid.naver.com/oauth2.0/token")
        #expect(
            Self.form(recorder.last) == [
                "grant_type": "delete", "access_token": "at-1", "service_provider": "NAVER", "client_id": "app", "client_secret": "s3cret",
            ])
    }

    @Test func vkTakesTheClientIDAndTheAccessToken() async throws {
        let recorder = Recorder()
        try await bundled("vk", recorder, secret: nil).revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.url.absoluteString == "https://id.vk.com/oauth2/revoke")
        #expect(Self.form(recorder.last) == ["access_token": "at-1", "client_id": "app"])
    }

    // MARK: - The general forms

    @Test func rfc7009StaysTheDefault() async throws {
        let recorder = Recorder()
        let provider = try TestDescriptor(extra: "client_auth:\n  method: client_secret_basic\n")
            .with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: Secret("s3cret")),
            environment: OAuthEnvironment(transport: recorder.transport))
        try await client.revoke(Secret("rt-1"), kind: .refreshToken)
        #expect(recorder.last?.method == .post)
        #expect(Self.form(recorder.last) == ["token": "rt-1", "token_type_hint": "refresh_token"])
        #expect(recorder.last?.headers["Authorization"]?.hasPrefix("Basic ") == true)
    }

    @Test func aDeleteWithTheTokenInTheQueryCarriesTheSecretOnlyInABasicHeader() async throws {
        let recorder = Recorder()
        let client = try custom("  method: DELETE\n  placement: query\n  token_parameter: access_token\n  type_hint: false\n", recorder)
        try await client.revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.method == .delete && recorder.last?.body == nil)
        #expect(Self.query(recorder.last) == ["access_token": "at-1"])
        #expect(recorder.last?.headers["Authorization"]?.hasPrefix("Basic ") == true)
        let url = recorder.last?.url.absoluteString ?? ""
        #expect(url.contains("s3cret") == false)
    }

    @Test func aGETCarriesTheTokenInTheQueryWithoutABody() async throws {
        let recorder = Recorder()
        let client = try custom(
            "  method: GET\n  placement: query\n  token_parameter: access_token\n  type_hint: false\n  client_authentication: false\n", recorder)
        try await client.revoke(Secret("at-1"), kind: .accessToken)
        #expect(recorder.last?.method == .get && recorder.last?.body == nil)
        #expect(Self.query(recorder.last) == ["access_token": "at-1", "client_id": "app"])
    }

    @Test func theHintGoesUnderTheNameTheProviderReads() async throws {
        let recorder = Recorder()
        let client = try custom("  placement: query\n  type_hint_parameter: token_hint_type\n  client_authentication: false\n", recorder)
        try await client.revoke(Secret("rt-1"), kind: .refreshToken)
        #expect(Self.query(recorder.last) == ["token": "rt-1", "token_hint_type": "refresh_token", "client_id": "app"])
    }

    @Test func aDeleteWithAFormBodyAuthenticatesAsAtTheTokenEndpoint() async throws {
        let recorder = Recorder()
        let client = try custom("  method: DELETE\n", clientAuth: "client_secret_post", recorder)
        try await client.revoke(Secret("rt-1"), kind: .refreshToken)
        #expect(recorder.last?.method == .delete)
        #expect(Self.form(recorder.last) == ["token": "rt-1", "token_type_hint": "refresh_token", "client_id": "app", "client_secret": "s3cret"])
    }

    /// A token revoked under a name of the provider's own (`access_token`) is blanked like `token` when an error answer
    /// echoes it: the answer is quoted in errors and on terminals.
    @Test func aTokenEchoedByARefusalIsBlankedWhateverItsParameterIsCalled() async throws {
        let token = "at-revoked-0123456789"
        let echoing = ScriptedTransport { _, _ in
            TransportResponse(
                status: 400, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error": "invalid_request", "error_description": "unknown token at-revoked-0123456789"}"#.utf8))
        }
        let provider = try TestDescriptor(extra: "client_auth:\n  method: client_secret_post\nrevocation:\n  token_parameter: access_token\n")
            .with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: Secret("s3cret")),
            environment: OAuthEnvironment(transport: echoing))
        let error = await #expect(throws: AuthorizationServerError.self) { try await client.revoke(Secret(token), kind: .accessToken) }
        #expect(error?.description.contains(token) == false, "\(String(describing: error))")
        #expect(error?.description.contains("[redacted]") == true, "\(String(describing: error))")
    }

    @Test func aSecretIsNeverPutInAURL() async throws {
        let recorder = Recorder()
        let client = try custom("  placement: query\n", clientAuth: "client_secret_post", recorder)
        let error = try await #require(throws: FlowError.self) { try await client.revoke(Secret("at-1"), kind: .accessToken) }
        #expect(error.code == .clientAuthentication)
        #expect(recorder.requests.current.isEmpty)
    }

    @Test func signOutRevokesOnlyTheKindsTheProviderRevokes() async throws {
        let recorder = Recorder()
        let client = try custom("  tokens: [refresh_token]\n", recorder)
        // A session of the client in use: another client's would be refused before anything is sent (SessionOriginTests).
        var session = sampleSession()
        session.clientID = "app"
        let store = InMemoryTokenStore([session])
        let result = try await TokenManager(client: client, store: store, key: SessionKey(providerID: "example")).signOut()
        #expect(result.revocationError == nil)
        #expect(recorder.requests.current.count == 1)
        #expect(Self.form(recorder.last)["token"] == "refresh-1")
    }

    @Test(arguments: [
        ("  tokens: []\n", ["revocation", "tokens"]),
        ("  extra_params:\n    token: x\n", ["revocation", "extra_params", "token"]),
        ("  extra_params:\n    client_secret: x\n", ["revocation", "extra_params", "client_secret"]),
        ("  placement: bearer\n", ["revocation", "tokens", "0"]),
        ("  placement: bearer\n  tokens: [access_token, refresh_token]\n", ["revocation", "tokens", "1"]),
        ("  method: GET\n", ["revocation", "method"]),
        ("  type_hint_parameter: token\n", ["revocation", "type_hint_parameter"]),
        ("  type_hint_parameter: x\n  extra_params:\n    x: y\n", ["revocation", "extra_params", "x"]),
    ])
    func aSectionThatCannotWorkIsRefusedAtItsSetting(_ section: String, _ keyPath: [String]) throws {
        let descriptor = try TestDescriptor(extra: "revocation:\n" + section).descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath == keyPath })
        #expect(throws: ProviderError.self) { try descriptor.resolve([:]) }
    }
}
