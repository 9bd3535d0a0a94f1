import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The descriptor's `userinfo` section shapes the profile request: where the access token goes (the header
/// after a scheme, the query, a form body), headers and query values filled from the client id, the
/// variables and the token answer, a fixed POST body; and the refusals of a section that cannot work or
/// would send something unsafely.
@Suite struct UserinfoRequestTests {
    static let tokens = TokenSet(
        accessToken: Secret("at-1"), tokenType: "Bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date(),
        additionalFields: ["openid": .string("o-42"), "team": .object(["id": .number(7)])])

    /// Records every request and answers with a profile.
    final class Recorder: Sendable {
        let requests = Locked<[TransportRequest]>([])
        let status: Int
        let body: String

        init(status: Int = 200, body: String = #"{"id": "u-1", "name": "Ada"}"#) {
            self.status = status
            self.body = body
        }

        var transport: ScriptedTransport {
            ScriptedTransport { [requests, status, body] request, _ in
                requests.withLock { $0.append(request) }
                return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
        }
        var last: TransportRequest? { requests.current.last }
    }

    static func descriptor(_ section: String, variables: String = "") -> TestDescriptor {
        TestDescriptor(extra: variables + "userinfo:\n" + section + "profile:\n  subject: [userinfo.id]\n")
            .with(endpoints: [("userinfo", "https://api.example.com/me?fields=id")])
    }

    static func client(_ section: String, variables: String = "", values: [String: String] = [:], _ recorder: Recorder) throws -> OAuthClient {
        let provider = try descriptor(section, variables: variables).descriptor().resolve(values)
        return OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app-9", redirectURI: URL(string: "http://127.0.0.1/callback")!),
            environment: OAuthEnvironment(transport: recorder.transport))
    }

    static func query(_ request: TransportRequest?) -> [String: String] {
        guard let request, let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems else { return [:] }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    // MARK: - Shapes

    @Test func theDefaultIsAGETWithTheBearerHeader() async throws {
        let recorder = Recorder()
        _ = try await Self.client("  method: GET\n", recorder).userInfo(Self.tokens)
        #expect(recorder.last?.method == .get)
        #expect(recorder.last?.headers["Authorization"] == "Bearer at-1")
        #expect(recorder.last?.url.absoluteString == "https://api.example.com/me?fields=id")
    }

    @Test func anotherSchemeWordPrecedesTheToken() async throws {
        let recorder = Recorder()
        _ = try await Self.client("  scheme: Zoho-oauthtoken\n", recorder).userInfo(Self.tokens)
        #expect(recorder.last?.headers["Authorization"] == "Zoho-oauthtoken at-1")
    }

    @Test func anEmptySchemeSendsTheTokenAlone() async throws {
        let recorder = Recorder()
        _ = try await Self.client("  scheme: ''\n", recorder).userInfo(Self.tokens)
        #expect(recorder.last?.headers["Authorization"] == "at-1")
    }

    @Test func headersTakeTheClientIDAndVariables() async throws {
        let recorder = Recorder()
        let section = "  headers:\n    trakt-api-key: '{client_id}'\n    X-API-Key: '{api_key}'\n    X-Team: 'team {token.team.id}'\n"
        let variables = "variables:\n  api_key:\n    description: The app's API key\n    pattern: '^[a-z0-9]+$'\n"
        let profile = try await Self.client(section, variables: variables, values: ["api_key": "k123"], recorder).profile(Self.tokens, idToken: nil)
        #expect(profile.subject == "u-1")
        #expect(recorder.last?.headers["trakt-api-key"] == "app-9")
        #expect(recorder.last?.headers["X-API-Key"] == "k123")
        #expect(recorder.last?.headers["X-Team"] == "team 7")
        #expect(recorder.last?.headers["Authorization"] == "Bearer at-1")
    }

    @Test func theQueryCarriesTheTokenAndAFieldOfTheTokenAnswer() async throws {
        let recorder = Recorder()
        _ = try await Self.client("  placement: query\n  query:\n    openid: '{token.openid}'\n", recorder).userInfo(Self.tokens)
        #expect(Self.query(recorder.last) == ["fields": "id", "openid": "o-42", "access_token": "at-1"])
        #expect(recorder.last?.headers["Authorization"] == nil)
    }

    @Test func aFormBodyCarriesTheTokenUnderItsParameter() async throws {
        let recorder = Recorder()
        _ = try await Self.client("  method: POST\n  placement: body\n  token_parameter: oauth_token\n", recorder).userInfo(Self.tokens)
        #expect(recorder.last?.method == .post)
        #expect(recorder.last?.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(recorder.last?.body.map { String(decoding: $0, as: UTF8.self) } == "oauth_token=at-1")
        #expect(recorder.last?.headers["Authorization"] == nil)
    }

    @Test func formFieldsGoInTheBodyWithTheToken() async throws {
        let recorder = Recorder()
        let section = "  method: POST\n  placement: body\n  form:\n    client_id: '{client_id}'\n    v: '5.199'\n"
        _ = try await Self.client(section, recorder).userInfo(Self.tokens)
        #expect(recorder.last?.body.map { String(decoding: $0, as: UTF8.self) } == "client_id=app-9&v=5.199&access_token=at-1")
        #expect(recorder.last?.headers["Authorization"] == nil)
        let headerToken = Recorder()
        _ = try await Self.client("  method: POST\n  form:\n    client_id: '{client_id}'\n", headerToken).userInfo(Self.tokens)
        #expect(headerToken.last?.body.map { String(decoding: $0, as: UTF8.self) } == "client_id=app-9")
        #expect(headerToken.last?.headers["Authorization"] == "Bearer at-1")
    }

    @Test func aFixedBodyIsSentAsWrittenBracesIncluded() async throws {
        let recorder = Recorder(body: #"{"data": {"viewer": {"id": "u-1", "name": "Ada"}}}"#)
        let section = "  method: POST\n  body: '{\"query\": \"{ viewer { id name } }\"}'\n  content_type: application/json\n"
        let provider = try TestDescriptor(extra: "userinfo:\n" + section + "profile:\n  subject: [userinfo.data.viewer.id]\n  name: [userinfo.data.viewer.name]\n")
            .with(endpoints: [("userinfo", "https://api.example.com/graphql")]).provider()
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app-9", redirectURI: URL(string: "http://127.0.0.1/callback")!),
            environment: OAuthEnvironment(transport: recorder.transport))
        let profile = try await client.profile(Self.tokens, idToken: nil)
        #expect(profile.subject == "u-1" && profile.name == "Ada")
        #expect(recorder.last?.body.map { String(decoding: $0, as: UTF8.self) } == #"{"query": "{ viewer { id name } }"}"#)
        #expect(recorder.last?.headers["Content-Type"] == "application/json")
        #expect(recorder.last?.headers["Authorization"] == "Bearer at-1")
    }

    // MARK: - At the call

    @Test func aTokenAnswerWithoutTheFieldSendsNothing() async throws {
        let recorder = Recorder()
        let client = try Self.client("  query:\n    openid: '{token.openid}'\n", recorder)
        let bare = TokenSet(accessToken: Secret("at-1"), tokenType: "Bearer", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date())
        let error = await #expect(throws: FlowError.self) { _ = try await client.userInfo(bare) }
        #expect(error?.code == .invalidUserInfo)
        #expect("\(error.map { "\($0)" } ?? "")".contains("token.openid"))
        #expect(recorder.requests.current.isEmpty)
    }

    @Test func aTokenAnswerFieldWithALineBreakIsNotSent() async throws {
        let recorder = Recorder()
        let client = try Self.client("  headers:\n    X-Open: '{token.openid}'\n", recorder)
        var tokens = Self.tokens
        tokens.additionalFields["openid"] = .string("o\r\nX-Injected: 1")
        await #expect(throws: FlowError.self) { _ = try await client.userInfo(tokens) }
        #expect(recorder.requests.current.isEmpty)
    }

    @Test func anErrorAnswerEchoingAQueryTokenCarriesNothing() async throws {
        let token = "at-query-4c1d9e7b"
        let recorder = Recorder(status: 401, body: #"{"error": "invalid_token", "error_description": "at-query-4c1d9e7b has expired"}"#)
        let client = try Self.client("  placement: query\n", recorder)
        var tokens = Self.tokens
        tokens.accessToken = Secret(token)
        let error = await #expect(throws: (any Error).self) { _ = try await client.userInfo(tokens) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains("invalid_token") && !text.contains(token))
    }

    @Test func plainHTTPIsRefusedWhateverThePlacement() async throws {
        for section in ["  placement: query\n", "  scheme: Token\n", "  method: POST\n  placement: body\n"] {
            let recorder = Recorder()
            let written = TestDescriptor(extra: "userinfo:\n" + section).with(endpoints: [("userinfo", "http://api.example.com/me")])
            // Written in the descriptor, it is refused when the provider is resolved; a provider made any other way is
            // refused when the request would be sent.
            #expect(throws: ProviderError.self) { try written.descriptor().resolve([:]) }
            var endpoints = try TestDescriptor(extra: "userinfo:\n" + section).descriptor().resolve([:]).endpoints
            endpoints.userinfo = URL(string: "http://api.example.com/me")
            let provider = try TestDescriptor(extra: "userinfo:\n" + section).descriptor().resolve([:]).with(endpoints: endpoints, discovered: true)
            let client = OAuthClient(
                provider: provider, configuration: ClientConfiguration(clientID: "app-9", redirectURI: URL(string: "http://127.0.0.1/callback")!),
                environment: OAuthEnvironment(transport: recorder.transport))
            let error = await #expect(throws: FlowError.self) { _ = try await client.userInfo(Self.tokens) }
            #expect(error?.code == .insecureEndpoint, "\(section)")
            #expect(recorder.requests.current.isEmpty)
        }
    }

    // MARK: - Refusals

    @Test(arguments: [
        ("  placement: body\n", "userinfo.placement"),
        ("  body: '{}'\n", "userinfo.body"),
        ("  method: POST\n  placement: body\n  body: x\n", "userinfo.body"),
        ("  headers:\n    Authorization: 'Basic x'\n", "userinfo.headers.Authorization"),
        ("  placement: query\n  query:\n    access_token: x\n", "userinfo.query.access_token"),
        ("  headers:\n    X-A: '{token.access_token}'\n", "userinfo.headers.X-A"),
        ("  query:\n    a: '{token.refresh_token}'\n", "userinfo.query.a"),
        ("  headers:\n    X-A: '{team}'\n", "userinfo.headers.X-A"),
        ("  headers:\n    X-A: '{client_id'\n", "userinfo.headers.X-A"),
        ("  headers:\n    X-A: \"a\\nb\"\n", "userinfo.headers.X-A"),
        ("  form:\n    a: b\n", "userinfo.form"),
        ("  headers:\n    \"X-A\\r\\nInjected\": v\n", "userinfo.headers.X-A\r\nInjected"),
        ("  headers:\n    \"X A\": v\n", "userinfo.headers.X A"),
        ("  method: POST\n  placement: body\n  form:\n    access_token: x\n", "userinfo.form.access_token"),
        ("  method: POST\n  form:\n    a: '{token.id_token}'\n", "userinfo.form.a"),
        // A secret at any depth of the answer (Slack's `authed_user` holds the user's tokens), however it is spelt.
        ("  headers:\n    X-A: '{token.authed_user.refresh_token}'\n", "userinfo.headers.X-A"),
        ("  query:\n    a: '{token.authed_user.access_token}'\n", "userinfo.query.a"),
        ("  query:\n    a: '{token.data[0][\"refreshToken\"]}'\n", "userinfo.query.a"),
        ("  method: POST\n  form:\n    a: 'x{token.session.Client-Secret}'\n", "userinfo.form.a"),
    ])
    func aSectionThatCannotWorkIsRefusedWhereItSaysSo(_ section: String, _ keyPath: String) throws {
        let descriptor = try Self.descriptor(section).descriptor()
        let refusals = descriptor.refusals
        #expect(refusals.contains { $0.keyPath?.joined(separator: ".") == keyPath }, "\(refusals.map { $0.keyPath ?? [] })")
        #expect(throws: ProviderError.self) { _ = try descriptor.resolve([:]) }
    }

    /// A profile never shows a token or a secret of the token answer, however deep it sits.
    @Test(arguments: ["token.authed_user.access_token", "token.authed_user.refresh_token", "token[\"user\"][\"idToken\"]"])
    func aProfileSourceNamingANestedSecretIsRefused(_ source: String) throws {
        let descriptor = try TestDescriptor(extra: "profile:\n  name: ['\(source)']\n").descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath?.prefix(2) == ["profile", "name"] }, "\(descriptor.refusals)")
        #expect(throws: ProviderError.self) { _ = try descriptor.resolve([:]) }
        let plain = try TestDescriptor(extra: "profile:\n  name: ['token.authed_user.id']\n").descriptor()
        #expect(plain.refusals.isEmpty, "\(plain.refusals)")
    }

    /// The token request's fixed headers are held to the same rule: an HTTP field name, a value without line breaks.
    @Test(arguments: ["\"X-A\\r\\nInjected\": v", "\"\": v", "X-B: \"a\\r\\nSet-Cookie: x\""])
    func aTokenRequestHeaderThatWouldSplitLinesIsRefused(_ header: String) throws {
        let descriptor = try TestDescriptor(extra: "token_request:\n  headers:\n    \(header)\n").descriptor()
        #expect(descriptor.refusals.contains { $0.keyPath?.prefix(2) == ["token_request", "headers"] }, "\(descriptor.refusals)")
        #expect(throws: ProviderError.self) { _ = try descriptor.resolve([:]) }
        let tabbed = try TestDescriptor(extra: "token_request:\n  headers:\n    X-Ok: \"a\\tb\"\n").descriptor()
        #expect(tabbed.refusals.isEmpty)
    }

    @Test func dpopTokensGoOnlyInTheHeader() throws {
        let descriptor = try Self.descriptor("  placement: query\n").with(endpoints: [("userinfo", "https://api.example.com/me")])
            .descriptor()
        var withDPoP = descriptor
        withDPoP.security.dpop = .ifSupported
        #expect(withDPoP.refusals.contains { $0.keyPath == ["userinfo", "placement"] })
        #expect(!descriptor.refusals.contains { $0.keyPath == ["userinfo", "placement"] })
    }
}
