import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// Pushed authorization requests (RFC 9126) and the DPoP parts of a sign-in (RFC 9449 §5, §10), against a simulated provider,
/// and against scripted servers for the answers it would never give.
@Suite struct PushedAuthorizationTests {
    static let issuer = "https://as.example.com"
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    static func provider(_ extra: String = "", endpoints: [(key: String, url: String)] = [("pushed_authorization", "\(issuer)/par")]) throws
        -> Provider
    {
        try TestDescriptor(protocol: .oauth2, issuer: issuer, extra: "client_auth:\n  methods: [client_secret_basic]\n" + extra)
            .with(endpoints: endpoints).provider()
    }

    static func client(_ provider: Provider, _ transport: any HTTPTransport) -> OAuthClient {
        OAuthClient(provider: provider,
            configuration: ClientConfiguration(
                clientID: "my client", redirectURI: redirect, clientSecret: Secret("s3cret"), scopes: ["read"], authMethod: .clientSecretBasic), environment: OAuthEnvironment(transport: transport))
    }

    /// A simulated provider where `client(_:_:)`'s confidential client is registered, with `settings`.
    static func simulated(_ settings: SimulatedProvider.Settings = .init()) async throws -> SimulatedProvider {
        let simulated = try SimulatedProvider(settings: settings)
        await simulated.register(.confidential(id: "my client", secret: "s3cret", redirectURIs: [redirect]))
        return simulated
    }

    /// The simulated provider's descriptor, pushing requests and binding tokens with DPoP when told.
    static func options(pushing: Bool = false, dpop: Bool = false, discovery: Bool = false) -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = pushing
        options.bindsTokensWithDPoP = dpop
        options.usesDiscovery = discovery
        return options
    }

    static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    static func form(_ request: TransportRequest) -> [String: String] {
        Dictionary(
            String(decoding: request.body ?? Data(), as: UTF8.self).split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test func everyParameterGoesInTheAuthenticatedPostAndTheBrowserGetsOnlyTheReference() async throws {
        let simulated = try await Self.simulated()
        let pushed = Recorder()
        let answered = Recorder()
        let transport = ScriptedTransport { request, _ in
            #expect(request.url.path == "/par" && request.method == .post)
            #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true, "the client authenticates as at the token endpoint")
            #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
            pushed.add(String(decoding: request.body ?? Data(), as: UTF8.self))
            let response = try await simulated.transport.send(request)
            let answer = try JSONDecoder().decode([String: JSONValue].self, from: response.body)
            answered.add(answer["request_uri"]?.stringValue ?? "")
            return response
        }
        let before = Date()
        let pending = try await Self.client(try simulated.provider(Self.options(pushing: true, dpop: true)), transport).startAuthorization()
        let body = Self.form(TransportRequest(method: .post, url: Self.redirect, body: Data(pushed.values[0].utf8)))
        for name in ["state", "code_challenge", "code_challenge_method", "redirect_uri", "scope", "response_type", "client_id", "dpop_jkt"] {
            #expect(body[name] != nil, "\(name) is pushed")
        }
        #expect(body["state"] == pending.state.value && body["dpop_jkt"] == pending.proofKey?.thumbprint)
        let items = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(Set(items.map(\.name)) == ["client_id", "request_uri"])
        #expect(items.first { $0.name == "request_uri" }?.value == answered.values.first, "the reference the provider answered")
        #expect(pending.url.path == "/authorize")
        let expiry = try #require(pending.requestExpiresAt)
        #expect(expiry.timeIntervalSince(before) >= 59 && expiry.timeIntervalSince(before) <= 61)
        #expect(!pending.isExpired(at: before) && pending.isExpired(at: before.addingTimeInterval(61)))
        // The provider finds the pushed request behind the reference.
        let callback = try await simulated.approve(pending.url)
        #expect(callback.query?.contains("code=") == true && callback.query?.contains("state=\(pending.state.value)") == true, "\(callback)")
    }

    @Test func whenToPush() throws {
        #expect(try Self.provider().pushesAuthorizationRequests, "if_supported with an endpoint")
        #expect(try !Self.provider(endpoints: []).pushesAuthorizationRequests)
        #expect(try !Self.provider("authorization:\n  pushed: never\n").pushesAuthorizationRequests)
        #expect(try Self.provider("authorization:\n  pushed: always\n", endpoints: []).pushesAuthorizationRequests)
    }

    @Test func alwaysWithoutAnEndpointSaysWhereToSetIt() async throws {
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 500) }
        let error = await #expect(throws: FlowError.self) {
            _ = try await Self.client(try Self.provider("authorization:\n  pushed: always\n", endpoints: []), transport).startAuthorization()
        }
        #expect(error?.code == .missingEndpoint && error?.message.contains("endpoints.pushed_authorization") == true)
    }

    @Test func discoveryCanRequirePushingAndNameTheEndpoint() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresPushedAuthorization = true
        let simulated = try await Self.simulated(settings)
        // No endpoints in the descriptor, and `pushed: never`: the discovery document names the endpoint and requires it.
        let provider = try simulated.provider(Self.options(pushing: false, discovery: true))
        #expect(provider.endpoints.pushedAuthorization == nil && !provider.pushesAuthorizationRequests)
        let pending = try await Self.client(provider, simulated.transport).startAuthorization()
        #expect(await simulated.requestCount(.pushedAuthorization) == 1, "a server that requires pushed requests gets them even with `pushed: never`")
        #expect(pending.requestExpiresAt != nil)
    }

    @Test(arguments: [
        #"{"request_uri":"https://evil.example.net/request/1","expires_in":60}"#,
        #"{"request_uri":"https://as.example.com:8443/request/1","expires_in":60}"#,
        #"{"request_uri":"http://as.example.com/request/1","expires_in":60}"#,
        #"{"request_uri":"http://as.example.com:443/request/1","expires_in":60}"#,
        #"{"request_uri":"urn x","expires_in":60}"#,
        #"{"request_uri":"","expires_in":60}"#,
        #"{"request_uri":"urn:x:1"}"#,
        #"{"request_uri":"urn:x:1","expires_in":-5}"#,
        #"{"expires_in":60}"#,
        #"<html>not json</html>"#,
    ])
    func anUnusableAnswerIsRefusedAndNothingReachesTheBrowser(_ answer: String) async throws {
        let transport = ScriptedTransport { _, _ in Self.json(201, answer) }
        let error = await #expect(throws: FlowError.self) {
            _ = try await Self.client(try Self.provider(), transport).startAuthorization()
        }
        #expect(error?.code == .pushedAuthorization)
        #expect(error?.message.contains("evil.example.net/request") != true || error?.message.contains("not used") == true)
    }

    /// A 201 with an HTML page is reported as what it is, not as an answer without a `request_uri`.
    @Test func anHTMLPageInPlaceOfTheAnswerIsNamed() async throws {
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 201, headers: ["Content-Type": "text/html"], body: Data("<html><body>Sign in</body></html>".utf8))
        }
        let error = try await #require(throws: FlowError.self) { _ = try await Self.client(try Self.provider(), transport).startAuthorization() }
        #expect(error.code == .pushedAuthorization)
        #expect(!error.message.contains("without a `request_uri`"), "\(error.message)")
        #expect(error.message.contains("not with JSON") && error.message.lowercased().contains("html"), "\(error.message)")
    }

    @Test func aRequestURIWithTheDefaultPortWrittenOutIsTheSameOrigin() async throws {
        let transport = ScriptedTransport { _, _ in Self.json(201, #"{"request_uri":"https://AS.example.com:443/requests/7","expires_in":60}"#) }
        let pending = try await Self.client(try Self.provider(), transport).startAuthorization()
        #expect(pending.url.query?.contains("request_uri=https") == true)
    }

    @Test func aRequestURIOnTheSameServerIsUsedAndAHugeLifetimeIsCapped() async throws {
        let transport = ScriptedTransport { _, _ in Self.json(201, #"{"request_uri":"https://as.example.com/requests/7","expires_in":1e12}"#) }
        let pending = try await Self.client(try Self.provider(), transport).startAuthorization()
        #expect(pending.url.query?.contains("request_uri=https") == true)
        #expect(try #require(pending.requestExpiresAt).timeIntervalSinceNow <= PushedRequest.longestLifetime)
    }

    @Test func theServersRefusalAndARedirectAreReported() async throws {
        let refusing = ScriptedTransport { _, _ in Self.json(400, #"{"error":"invalid_request","error_description":"bad scope"}"#) }
        let refusal = await #expect(throws: AuthorizationServerError.self) {
            _ = try await Self.client(try Self.provider(), refusing).startAuthorization()
        }
        #expect(refusal?.error == "invalid_request")
        let redirecting = ScriptedTransport { _, _ in TransportResponse(status: 302, headers: ["Location": "https://evil.example.net/"]) }
        let redirect = await #expect(throws: FlowError.self) {
            _ = try await Self.client(try Self.provider(), redirecting).startAuthorization()
        }
        #expect(redirect?.message.contains("does not follow redirects") == true)
    }

    // 16 KiB chunks, as TransportTests floods: the hostile server writes each from the last one's completion.
    @Test(arguments: [
        HostileServer.Script.endless(head: "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n", chunk: String(repeating: "a", count: 0x4000)),
        .silent,
    ])
    func anAnswerOverTheCapOrPastTheDeadlineFailsCleanly(_ script: HostileServer.Script) async throws {
        let server = try HostileServer(script)
        defer { server.stop() }
        let provider = try Self.provider(endpoints: [("pushed_authorization", "http://127.0.0.1:\(server.port)/par")])
        let started = ContinuousClock.now
        await #expect(throws: TransportError.self) {
            _ = try await Self.client(provider, DefaultHTTPTransport(timeout: 2, maximumResponseSize: 64 * 1024)).startAuthorization()
        }
        // The deadline is 2 s; the bound stands against a hang (the silent server never answers, the flood never
        // ends), loose because a full run on two cores has fired timers 80 s late.
        #expect(ContinuousClock.now - started < .seconds(300))
    }

    /// A token endpoint that answers with `tokenType`, recording whether a proof came.
    static func tokenEndpoint(_ tokenType: String, proofs: Recorder) -> ScriptedTransport {
        ScriptedTransport { request, _ in
            if request.url.path == "/par" { return Self.json(201, #"{"request_uri":"urn:x:1","expires_in":60}"#) }
            proofs.add(request.headers["DPoP"] == nil ? "none" : "proof")
            return Self.json(200, #"{"access_token":"at","token_type":"\#(tokenType)","expires_in":300,"refresh_token":"rt"}"#)
        }
    }

    static func callback(_ pending: PendingAuthorization) -> URL {
        URL(string: "\(redirect.absoluteString)?code=c&state=\(pending.state.value)")!
    }

    @Test func tokensAnsweredAsDPoPAreBoundToTheSessionsKeyAndRefreshedWithIt() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoP = true
        let simulated = try await Self.simulated(settings)
        let transport = RecordingTransport(simulated.transport)
        let client = Self.client(try simulated.provider(Self.options(pushing: true, dpop: true)), transport)
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending).tokens
        #expect(tokens.tokenType == "dpop" && tokens.proofKey == pending.proofKey && tokens.isDPoPBound)
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.proofKey == tokens.proofKey)
        let proofs = transport.requests.filter { $0.url.path == "/token" }.map { $0.headers["DPoP"] == nil ? "none" : "proof" }
        #expect(proofs == ["proof", "proof"])
    }

    @Test func aBearerAnswerToADPoPRequestIsRefusedUnlessTheDescriptorAcceptsIt() async throws {
        let proofs = Recorder()
        let refusing = Self.client(try Self.provider("security:\n  dpop: required\n"), Self.tokenEndpoint("Bearer", proofs: proofs))
        let pending = try await refusing.startAuthorization()
        let error = await #expect(throws: FlowError.self) {
            _ = try await refusing.finishSignIn(.callback(Self.callback(pending)), pending: pending).tokens
        }
        #expect(error?.code == .dpop && error?.message.contains("dpop_bearer_answer: accept") == true)

        let accepting = Self.client(
            try Self.provider("security:\n  dpop: required\n  dpop_bearer_answer: accept\n"), Self.tokenEndpoint("Bearer", proofs: proofs))
        let next = try await accepting.startAuthorization()
        let tokens = try await accepting.finishSignIn(.callback(Self.callback(next)), pending: next).tokens
        #expect(tokens.tokenType == "bearer" && !tokens.isDPoPBound)
    }

    @Test func ifSupportedUsesDPoPOnlyWhenDiscoveryListsACommonAlgorithm() async throws {
        for (listed, expected) in [(#"["ES256"]"#, JWSAlgorithm.es256), (#"["PS256","RS256"]"#, .ps256), (#"["EdDSA"]"#, nil), ("null", nil)] {
            let transport = ScriptedTransport { request, _ in
                if request.url.path.hasPrefix("/.well-known") {
                    return Self.json(
                        200,
                        #"{"issuer":"https://as.example.com","authorization_endpoint":"https://as.example.com/authorize","token_endpoint":"https://as.example.com/token","dpop_signing_alg_values_supported":\#(listed)}"#
                    )
                }
                return TransportResponse(status: 500)
            }
            let provider = try TestDescriptor(
                protocol: .oauth2, issuer: Self.issuer, endpoints: [],
                extra:
                    "client_auth:\n  methods: [client_secret_basic]\ndiscovery:\n  mode: rfc8414\nsecurity:\n  dpop: if_supported\n  dpop_signing_alg_values_supported: [PS256, ES256]\n"
            ).provider()
            let pending = try await Self.client(provider, transport).startAuthorization()
            let expectedSorted = expected == .ps256 ? JWSAlgorithm.ps256 : expected
            #expect(pending.proofKey?.algorithm == expectedSorted, "server lists \(listed)")
            #expect((pending.url.query?.contains("dpop_jkt=") ?? false) == (expected != nil))
        }
    }

    @Test func requiredWithNoAlgorithmInCommonSaysBoth() async throws {
        let transport = ScriptedTransport { _, _ in
            Self.json(
                200,
                #"{"issuer":"https://as.example.com","authorization_endpoint":"https://as.example.com/authorize","token_endpoint":"https://as.example.com/token","dpop_signing_alg_values_supported":["EdDSA"]}"#
            )
        }
        let provider = try TestDescriptor(
            protocol: .oauth2, issuer: Self.issuer, endpoints: [],
            extra: "client_auth:\n  methods: [client_secret_basic]\ndiscovery:\n  mode: rfc8414\nsecurity:\n  dpop: required\n"
        ).provider()
        let error = await #expect(throws: FlowError.self) { _ = try await Self.client(provider, transport).startAuthorization() }
        #expect(error?.message.contains("EdDSA") == true && error?.message.contains("ES256") == true)
    }

    @Test func descriptorValuesAreChecked() throws {
        let yaml = TestDescriptor(extra: "authorization:\n  pushed: sometimes\nsecurity:\n  dpop: maybe\n  dpop_signing_alg_values_supported: [HS256]\n").yaml
        let document = DescriptorDocument.parse(Data(yaml.utf8), path: "x.yaml")
        #expect(document.descriptor == nil)
        let text = document.problems.map { "\($0)" }.joined(separator: "\n")
        #expect(text.contains("sometimes") && text.contains("maybe") && text.contains("HS256"), "\(text)")
    }
}
