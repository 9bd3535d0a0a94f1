import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// The descriptor settings that rename or leave out standard parameters (`scopes.parameter`,
/// `client_auth.client_id_parameter`, `token_request.callback_params_on_refresh`), replayed against scripted
/// stand-ins that answer only the request shape their provider documents, and their refusals.
@Suite struct RequestParameterVariantTests {
    /// Every request a stand-in saw: its URL and its form (or JSON) body as name-value pairs.
    final class Recorder: Sendable {
        let requests = Locked<[(url: URL, headers: [String: String], form: [String: String])]>([])

        func record(_ request: TransportRequest) -> [String: String] {
            let text = String(decoding: request.body ?? Data(), as: UTF8.self)
            var form = Dictionary(FormEncoding.decode(text)) { first, _ in first }
            if request.headers["Content-Type"] == "application/json",
                let object = try? JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: String]
            {
                form = object
            }
            requests.withLock { $0.append((request.url, request.headers, form)) }
            return form
        }

        var forms: [[String: String]] { requests.current.map(\.form) }
    }

    static let redirect = URL(string: "http://127.0.0.1:8080/callback") ?? URL(fileURLWithPath: "/callback")

    func client(_ extra: String, scopes: [String]? = nil, secret: String? = nil, transport: ScriptedTransport) throws -> OAuthClient {
        let provider = try TestDescriptor(scopes: scopes, extra: extra).with(endpoints: [("device_authorization", "https://auth.example.com/device")])
            .provider()
        return OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: Self.redirect, clientSecret: secret.map(Secret.init)),
            environment: OAuthEnvironment(transport: transport))
    }

    func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { a, _ in a }
    }

    // MARK: - scopes.parameter

    @Test(arguments: [
        ("", [String](), nil as String?),
        ("", ["read"], "read"),
        ("scopes:\n  default: []\n  parameter: always\n", [], ""),
        ("scopes:\n  default: []\n  parameter: never\n", [], nil),
    ])
    func theAuthorizationRequestCarriesScopeAsTheSettingSays(_ extra: String, _ scopes: [String], _ expected: String?) async throws {
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 500) }
        let client = try client(extra, scopes: extra.isEmpty ? scopes : nil, transport: transport)
        let pending = try await client.startAuthorization()
        #expect(query(pending.url)["scope"] == expected, "\(pending.url)")
    }

    /// Bungie: scopes fixed at registration, and "the scope parameter must be omitted from authorization and
    /// token requests". The stand-in refuses any request that carries one.
    @Test func aProviderThatTakesNoScopeGetsNoneOnAnyRequest() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            let form = recorder.record(request)
            if form["scope"] != nil {
                return TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_scope"}"#.utf8))
            }
            if request.url.path == "/device" {
                return TransportResponse(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: Data(
                        #"{"device_code":"dc","user_code":"ABCD","verification_uri":"https://auth.example.com/activate","expires_in":600}"#.utf8))
            }
            return tokenResponse("at", refresh: "rt")
        }
        let client = try client(
            "scopes:\n  default: []\n  parameter: never\ngrant_types: [authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code]\n",
            transport: transport)
        let pending = try await client.startAuthorization()
        #expect(query(pending.url)["scope"] == nil)
        let outcome = try await client.finishSignIn(.callback(URL(string: "\(Self.redirect)?code=c1&state=\(pending.state.value)")!), pending: pending)
        _ = try await client.refresh(outcome.tokens, scopes: ["read"])
        _ = try await client.clientCredentialsToken(.init(scopes: ["read"]))
        _ = try await client.startDeviceAuthorization()
        #expect(recorder.forms.count == 4)
        #expect(recorder.forms.allSatisfy { $0["scope"] == nil }, "\(recorder.forms)")
    }

    @Test func alwaysSendsAnEmptyScopeWhereAScopeIsNamed() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            _ = recorder.record(request)
            return tokenResponse("at", refresh: "rt")
        }
        let client = try client(
            "scopes:\n  default: []\n  parameter: always\ngrant_types: [authorization_code, refresh_token, client_credentials]\n",
            transport: transport)
        _ = try await client.clientCredentialsToken(.init())
        let refreshable = TokenSet(
            accessToken: Secret("a"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("r"), idToken: nil, scopes: [], issuedAt: Date())
        _ = try await client.refresh(refreshable)
        // The client-credentials request names its (no) scopes; a refresh that names none asks for the same again.
        #expect(recorder.forms.map { $0["scope"] } == ["", nil])
    }

    @Test(arguments: [
        ("scopes:\n  default: [read]\n  parameter: never\n", ["scopes", "parameter"]),
        ("scopes:\n  offline:\n    scopes: [offline_access]\n    without_consent_prompt: true\n  parameter: never\n", ["scopes", "parameter"]),
    ])
    func neverWithScopesListedIsRefused(_ extra: String, _ keyPath: [String]) throws {
        let descriptor = try TestDescriptor(extra: extra).descriptor()
        #expect(descriptor.refusals.map(\.keyPath) == [keyPath])
        #expect(throws: ProviderError.self) { try descriptor.resolve() }
    }

    // MARK: - client_auth.client_id_parameter

    /// TikTok: `client_key` in the authorization URL and in the token body (code and refresh), never `client_id`.
    @Test func aRenamedClientIDGoesOnEveryRequest() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            let form = recorder.record(request)
            guard form["client_key"] == "app", form["client_id"] == nil, form["client_secret"] == "s3cret" else {
                return TransportResponse(status: 401, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_client"}"#.utf8))
            }
            return tokenResponse("at", refresh: "rt")
        }
        let client = try client(
            "client_auth:\n  method: client_secret_post\n  client_id_parameter: client_key\n", scopes: ["user.info.basic"], secret: "s3cret",
            transport: transport)
        let pending = try await client.startAuthorization()
        let sent = query(pending.url)
        #expect(sent["client_key"] == "app")
        #expect(sent["client_id"] == nil)
        let outcome = try await client.finishSignIn(.callback(URL(string: "\(Self.redirect)?code=c1&state=\(pending.state.value)")!), pending: pending)
        _ = try await client.refresh(outcome.tokens)
        #expect(recorder.forms.map { $0["grant_type"] } == ["authorization_code", "refresh_token"])
    }

    @Test func basicAuthenticationKeepsTheClientInItsHeader() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            _ = recorder.record(request)
            return tokenResponse("at")
        }
        let client = try client(
            "client_auth:\n  method: client_secret_basic\n  client_id_parameter: client_key\n", secret: "s3cret", transport: transport)
        let pending = try await client.startAuthorization()
        _ = try await client.finishSignIn(.callback(URL(string: "\(Self.redirect)?code=c1&state=\(pending.state.value)")!), pending: pending)
        let request = try #require(recorder.requests.current.first)
        #expect(request.form["client_key"] == nil && request.form["client_id"] == nil)
        #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
    }

    /// A pushed request names the client the provider's way, in its body and in the browser's URL.
    @Test func aPushedRequestNamesTheClientTheProvidersWay() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            _ = recorder.record(request)
            return TransportResponse(
                status: 201, headers: ["Content-Type": "application/json"],
                body: Data(#"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#.utf8))
        }
        let provider = try TestDescriptor(extra: "authorization:\n  pushed: always\nclient_auth:\n  client_id_parameter: client_key\n")
            .with(endpoints: [("pushed_authorization", "https://auth.example.com/par")]).provider()
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: Self.redirect),
            environment: OAuthEnvironment(transport: transport))
        let pending = try await client.startAuthorization()
        #expect(recorder.forms.first?["client_key"] == "app")
        #expect(recorder.forms.first?["client_id"] == nil)
        #expect(query(pending.url) == ["client_key": "app", "request_uri": "urn:ietf:params:oauth:request_uri:abc"])
    }

    @Test(arguments: [
        "client_auth:\n  client_id_parameter: \"\"\n",
        "client_auth:\n  client_id_parameter: client_secret\n",
        "client_auth:\n  client_id_parameter: redirect_uri\n",
        "client_auth:\n  client_id_parameter: client_key\ntoken_request:\n  extra_params:\n    client_key: other\n",
    ])
    func aClientIDParameterTheEngineCannotUseIsRefused(_ extra: String) throws {
        // The empty name is refused by the schema on load already; a descriptor made otherwise meets the resolver.
        let named = extra.components(separatedBy: "client_id_parameter: ")[1].prefix { $0 != "\n" }
        var descriptor = try TestDescriptor(extra: extra.replacingOccurrences(of: "  client_id_parameter: \(named)\n", with: "  method: none\n"))
            .descriptor()
        descriptor.clientAuth.clientIDParameter = named == "\"\"" ? "" : String(named)
        #expect(descriptor.refusals.map(\.keyPath) == [["client_auth", "client_id_parameter"]])
    }

    // MARK: - token_request.callback_params_on_refresh

    /// VK ID: the callback's `device_id` goes with the code exchange and with every refresh, from the session
    /// file too (a later process refreshes).
    @Test func callbackParametersKeptForRefreshesSurviveTheTokenFile() async throws {
        let recorder = Recorder()
        let transport = ScriptedTransport { request, _ in
            let form = recorder.record(request)
            guard form["device_id"] == "dev-42" else {
                return TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_request"}"#.utf8))
            }
            return tokenResponse("at-\(recorder.forms.count)", refresh: "rt-\(recorder.forms.count)")
        }
        let client = try client(
            "token_request:\n  callback_params: [device_id]\n  callback_params_on_refresh: [device_id]\n", transport: transport)
        let pending = try await client.startAuthorization()
        let outcome = try await client.finishSignIn(
            .callback(URL(string: "\(Self.redirect)?code=c1&state=\(pending.state.value)&device_id=dev-42")!), pending: pending)
        #expect(outcome.tokens.callbackParameters == ["device_id": "dev-42"])

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("callback-params-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        let key = SessionKey(providerID: "example")
        try await store.save(
            StoredSession(key: key, variables: [:], clientID: "app", redirectURI: Self.redirect, tokens: outcome.tokens, updatedAt: Date()))
        let reread = try #require(try await store.load(key))
        let first = try await client.refresh(reread.tokens)
        let second = try await client.refresh(first)
        #expect(recorder.forms.map { $0["device_id"] } == ["dev-42", "dev-42", "dev-42"])
        #expect(second.callbackParameters == ["device_id": "dev-42"])
    }

    /// A session written before OAuthFlow kept callback parameters reads as one that keeps none.
    @Test func aTokenSetStoredWithoutCallbackParametersStillReads() throws {
        let json = #"{"accessToken":"a","tokenType":"bearer","refreshToken":"r","scopes":[],"issuedAt":0,"additionalFields":{}}"#
        let tokens = try JSONDecoder().decode(TokenSet.self, from: Data(json.utf8))
        #expect(tokens.callbackParameters == nil)
        #expect(tokens.refreshToken?.value == "r")
        let written = String(decoding: try JSONEncoder().encode(tokens), as: UTF8.self)
        #expect(!written.contains("callbackParameters"))
    }

    @Test func aParameterTheEngineSetsIsNotKeptForRefreshes() throws {
        let descriptor = try TestDescriptor(extra: "token_request:\n  callback_params_on_refresh: [device_id, refresh_token]\n").descriptor()
        #expect(descriptor.refusals.map(\.keyPath) == [["token_request", "callback_params_on_refresh", "1"]])
    }
}
