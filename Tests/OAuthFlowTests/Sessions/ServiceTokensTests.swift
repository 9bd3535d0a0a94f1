import Foundation
import Logging
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The service-token cache against a simulated provider, and against servers it cannot trust: keys never mix,
/// failures are nobody's token, many callers make one request, the 401 rule runs once.
@Suite struct ServiceTokensTests {
    /// A clock that moves only when told: real time passing on a loaded machine cannot cross a boundary.
    final class ManualClock: DateClock, @unchecked Sendable {
        private let lock = NSLock()
        private var current = Date(timeIntervalSince1970: 1_800_000_000)
        func now() -> Date { lock.withLock { current } }
        func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
    }

    static let secret = Secret("service-secret-never-shown-0123456789")

    static func provider(target: String = "resource") throws -> Provider {
        try TestDescriptor(
            extra: """
                grant_types: [client_credentials]
                client_auth:
                  methods: [client_secret_basic]
                service_tokens:
                  target: \(target)

                """
        ).provider()
    }

    static func tokens(
        _ transport: any HTTPTransport, target: String = "resource", clock: any DateClock = SystemDateClock(),
        store: any TokenStore = InMemoryTokenStore(), logger: Logger? = nil
    ) throws -> ServiceTokens {
        let logging = logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = OAuthClient(provider: try provider(target: target), configuration: .service(clientID: "svc", clientSecret: secret), environment: OAuthEnvironment(transport: transport, clock: clock, logger: logging))
        return ServiceTokens(client: client, store: store)
    }

    /// The request body's fields.
    static func fields(_ request: TransportRequest) -> [(String, String)] {
        FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
    }

    /// A token that names what it was asked for: `scope|resource,resource|audience`.
    static func echo(_ request: TransportRequest, expiresIn: Int? = 3600, counter: Int) -> TransportResponse {
        let fields = fields(request)
        let value = { (name: String) in fields.filter { $0.0 == name }.map(\.1).sorted().joined(separator: ",") }
        let token = "\(value("scope"))|\(value("resource"))|\(value("audience"))|\(counter)"
        var body: [String: Any] = ["access_token": Base64URL.encode(Data(token.utf8)), "token_type": "Bearer"]
        if let expiresIn { body["expires_in"] = expiresIn }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try! JSONSerialization.data(withJSONObject: body))
    }

    /// The service's tokens at a simulated provider: its service client (`client_secret_basic`) under a descriptor whose
    /// `service_tokens.target` is `target`, sending through `transport` (the provider's own by default) on the provider's clock.
    static func tokens(
        at simulated: SimulatedProvider, transport: (any HTTPTransport)? = nil, target: String = "resource",
        store: any TokenStore = InMemoryTokenStore(), logger: Logger? = nil
    ) throws -> ServiceTokens {
        var options = SimulatedProvider.DescriptorOptions()
        options.extra = "service_tokens:\n  target: \(target)\n"
        var environment = simulated.environment
        if let transport { environment.transport = transport }
        if let logger { environment.logger = logger }
        return ServiceTokens(client: try Simulated.serviceClient(simulated, options, environment: environment), store: store)
    }

    /// The `aud` of a JWT access token, as a list.
    static func audiences(_ claims: [String: JSONValue]) -> [String] {
        switch claims["aud"] {
        case let .string(one)?: return [one]
        case let .array(many)?: return many.compactMap(\.stringValue)
        default: return []
        }
    }

    @Test func tenThousandConcurrentCallersMakeOneRequestAndShareItsToken() async throws {
        let simulated = try SimulatedProvider()
        // The provider takes 50 ms to answer: every caller arrives while the one request is out.
        let slow = ScriptedTransport { request, _ in
            try await Task.sleep(nanoseconds: 50_000_000)
            return try await simulated.transport.send(request)
        }
        let tokens = try Self.tokens(at: simulated, transport: slow)
        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.example.com"])
        let answers = try await withThrowingTaskGroup(of: Secret.self) { group in
            for _ in 0..<10_000 { group.addTask { try await tokens.accessToken(request) } }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
        #expect(await simulated.requestCount(.token) == 1)
        #expect(answers.count == 1)
        _ = try await tokens.accessToken(request)
        #expect(await simulated.requestCount(.token) == 1, "a valid token is served from the cache")
    }

    @Test func concurrentRequestsForDifferentKeysNeverGetEachOthersToken() async throws {
        // JWT access tokens say what they were issued for: `scope`, and `aud` naming every resource (RFC 8707).
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let simulated = try SimulatedProvider(settings: settings)
        let transport = ScriptedTransport { request, _ in
            // Answers out of order: a later request may finish first.
            try await Task.sleep(nanoseconds: UInt64.random(in: 1_000_000...30_000_000))
            return try await simulated.transport.send(request)
        }
        let tokens = try Self.tokens(at: simulated, transport: transport)
        let requests = [
            OAuthClient.ServiceTokenRequest(scopes: ["read"]), OAuthClient.ServiceTokenRequest(scopes: ["write"]), OAuthClient.ServiceTokenRequest(scopes: ["read", "write"]),
            OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://a.example.com"]),
            OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://b.example.com"]),
            OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://a.example.com", "https://b.example.com"]),
        ]
        let answers = try await withThrowingTaskGroup(of: (OAuthClient.ServiceTokenRequest, Secret).self) { group in
            for round in 0..<300 {
                let request = requests[round % requests.count]
                group.addTask { (request, try await tokens.accessToken(request)) }
            }
            return try await group.reduce(into: [(OAuthClient.ServiceTokenRequest, Secret)]()) { $0.append($1) }
        }
        for (request, token) in answers {
            let (_, claims) = try IDTokenValidator.decodeUnverified(token.value)
            #expect(claims["scope"]?.stringValue == request.scopes.joined(separator: " "), "\(request) got \(claims)")
            let audiences = request.resources.isEmpty ? [SimulatedProvider.Settings().accessTokenAudience] : request.resources
            #expect(Self.audiences(claims).sorted() == audiences.sorted(), "\(request) got \(claims)")
        }
        #expect(await simulated.requestCount(.token) == requests.count, "one request per key")
    }

    @Test func theSameSetsInAnotherOrderShareOneToken() async throws {
        let simulated = try SimulatedProvider()
        let tokens = try Self.tokens(at: simulated)
        let first = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["write", "read", "read"], resources: ["https://b", "https://a"]))
        let second = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"], resources: ["https://a", "https://b"]))
        #expect(first == second)
        #expect(await simulated.requestCount(.token) == 1)
    }

    @Test func anAnswerNamingAnotherScopeIsKeptUnderTheKeyThatAskedOnly() async throws {
        // A hostile server answers every request with a token whose `scope` claims "admin".
        let transport = ScriptedTransport { _, count in
            TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"access_token":"t\#(count)","token_type":"Bearer","expires_in":3600,"scope":"admin"}"#.utf8))
        }
        let tokens = try Self.tokens(transport)
        let read = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        let admin = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["admin"]))
        #expect(read.value == "t1")
        #expect(admin.value == "t2", "the admin key asks for itself; the read key's token is never served for it")
    }

    @Test func aGarbageAnswerWhileAThousandWaitIsOneRequestOneErrorAndNothingCached() async throws {
        let transport = ScriptedTransport { _, count in
            try await Task.sleep(nanoseconds: 200_000_000)
            if count == 1 { return TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>oops</html>".utf8)) }
            return tokenResponse("good")
        }
        let tokens = try Self.tokens(transport)
        let errors = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    do {
                        _ = try await tokens.accessToken()
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(transport.count("/token") == 1)
        #expect(errors.allSatisfy { $0 != nil })
        #expect(Set(errors.compactMap { $0 }).count == 1, "everyone gets the same error")
        #expect(try await tokens.accessToken().value == "good", "the failure was not cached: the next call asks again")
        #expect(transport.count("/token") == 2)
    }

    @Test func aServerThatNeverAnswersFailsEveryWaiterWithinTheDeadline() async throws {
        let server = try HostileServer(.silent)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport(timeout: 1)
        let provider = try TestDescriptor(
            issuer: "http://127.0.0.1:\(server.url.port ?? 0)",
            endpoints: [("authorization", "http://127.0.0.1:\(server.url.port ?? 0)/authorize"), ("token", server.url.absoluteString)],
            extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\n"
        ).provider()
        let tokens = ServiceTokens(
            client: OAuthClient(provider: provider, configuration: .service(clientID: "svc", clientSecret: Self.secret), environment: OAuthEnvironment(transport: transport)))
        let failures = await withTaskGroup(of: String.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    do {
                        _ = try await tokens.accessToken()
                        return "no error"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        // Every waiter got the one request's error, and that error is its deadline (no timing asserted: benchmarks time).
        #expect(failures.count == 1)
        #expect(failures.first?.contains("no complete answer within 1.0 s") == true, "\(failures)")
        #expect(server.received.count == 1, "one request for a thousand callers")
    }

    @Test func tokensAreRenewedSkewSecondsEarlyAndShortOnesAtHalfTheirLife() async throws {
        // A clock that moves only when told: real time passing on a loaded machine cannot cross a boundary.
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_800_000_000)))
        await simulated.configure { $0.accessTokenLifetime = 600 }
        let clock = simulated.clock
        let tokens = try Self.tokens(at: simulated)
        let first = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["long"]))
        clock.advance(539)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["long"])) == first)
        clock.advance(2)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["long"])) != first, "renewed 60 s before expiry")

        await simulated.configure { $0.accessTokenLifetime = 10 }
        let short = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["short"]))
        clock.advance(4)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["short"])) == short, "a 10 s token is reused for 5 s")
        clock.advance(2)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["short"])) != short)
    }

    @Test func aTokenWithoutExpiresInLivesTheDefaultLifetime() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport { request, count in Self.echo(request, expiresIn: nil, counter: count) }
        let tokens = try Self.tokens(transport, clock: clock)
        let first = try await tokens.accessToken()
        clock.advance(239)
        #expect(try await tokens.accessToken() == first)
        clock.advance(2)
        #expect(try await tokens.accessToken() != first, "300 s by default, renewed 60 s early")
    }

    @Test func aResourceServer401DropsTheTokenAndRetriesOnceOnly() async throws {
        let simulated = try SimulatedProvider()
        // The provider issues the tokens; the API refuses every one.
        let transport = ScriptedTransport { request, _ in
            if request.url.host == simulated.issuer.host { return try await simulated.transport.send(request) }
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
        let tokens = try Self.tokens(at: simulated, transport: transport)
        let response = try await tokens.send(
            TransportRequest(method: .get, url: URL(string: "https://api.example.com/things")!))
        #expect(response.status == 401)
        #expect(await simulated.requestCount(.token) == 2, "one new token after the first 401, none after the second")
        #expect(transport.count("/things") == 2)
    }

    @Test func a401AnsweredOnceIsFollowedByTheNewToken() async throws {
        let simulated = try SimulatedProvider()
        // The provider issues the tokens; the API refuses the first and echoes the credential it is sent after.
        let transport = ScriptedTransport { request, count in
            if request.url.host == simulated.issuer.host { return try await simulated.transport.send(request) }
            return count == 1
                ? TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api", error="invalid_token""#])
                : TransportResponse(status: 200, body: Data(request.headers["Authorization"]?.utf8 ?? "".utf8))
        }
        let tokens = try Self.tokens(at: simulated, transport: transport)
        let first = try await tokens.accessToken()
        let response = try await tokens.send(TransportRequest(method: .get, url: URL(string: "https://api.example.com/things")!))
        #expect(response.status == 200)
        let second = try await tokens.accessToken()
        #expect(second != first)
        #expect(String(decoding: response.body, as: UTF8.self) == "Bearer \(second.value)")
    }

    @Test func a403OrAnInsufficientScope401KeepsTheToken() async throws {
        let simulated = try SimulatedProvider()
        // The provider issues the token; the API says it lacks a scope.
        let transport = ScriptedTransport { request, _ in
            if request.url.host == simulated.issuer.host { return try await simulated.transport.send(request) }
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="insufficient_scope""#])
        }
        let tokens = try Self.tokens(at: simulated, transport: transport)
        _ = try await tokens.send(TransportRequest(method: .get, url: URL(string: "https://api.example.com/things")!))
        #expect(await simulated.requestCount(.token) == 1)
    }

    @Test func theTargetParameterIsTheDescriptorsChoice() async throws {
        let simulated = try SimulatedProvider()
        let transport = RecordingTransport(simulated.transport)
        _ = try await Self.tokens(at: simulated, transport: transport, target: "audience").accessToken(OAuthClient.ServiceTokenRequest(audiences: ["https://api"]))
        _ = try await Self.tokens(at: simulated, transport: transport, target: "scope").accessToken(
            OAuthClient.ServiceTokenRequest(scopes: ["openid"], resources: ["https://graph"]))
        _ = try await Self.tokens(at: simulated, transport: transport).accessToken(OAuthClient.ServiceTokenRequest(resources: ["https://a", "https://b"]))
        let bodies = transport.requests.map(Self.fields)
        #expect(bodies[0].filter { $0.0 != "grant_type" }.map { "\($0.0)=\($0.1)" } == ["audience=https://api"])
        #expect(bodies[1].filter { $0.0 == "scope" }.map(\.1) == ["https://graph/.default openid"])
        #expect(bodies[2].filter { $0.0 == "resource" }.map(\.1) == ["https://a", "https://b"])

        await #expect(throws: FlowError.self) {
            _ = try await Self.tokens(at: simulated, transport: transport).accessToken(OAuthClient.ServiceTokenRequest(audiences: ["https://api"]))
        }
        await #expect(throws: FlowError.self) {
            _ = try await Self.tokens(at: simulated, transport: transport, target: "audience").accessToken(
                OAuthClient.ServiceTokenRequest(resources: ["https://api"]))
        }
        await #expect(throws: FlowError.self) {
            _ = try await Self.tokens(at: simulated, transport: transport).accessToken(OAuthClient.ServiceTokenRequest(resources: ["relative/path"]))
        }
        await #expect(throws: FlowError.self) {
            _ = try await Self.tokens(at: simulated, transport: transport).accessToken(OAuthClient.ServiceTokenRequest(resources: ["https://api#fragment"]))
        }
        #expect(transport.requests.count == 3, "refused requests are never sent")
    }

    @Test func anUndeclaredGrantIsRefusedBeforeAnythingIsSent() async throws {
        let transport = RecordingTransport(CannedTransport(body: "{}"))
        let provider = try TestDescriptor(extra: "client_auth:\n  methods: [client_secret_basic]\n").provider()
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc", clientSecret: Self.secret), environment: OAuthEnvironment(transport: transport))
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error?.code == .grantNotSupported)
        #expect(transport.requests.isEmpty)
    }

    @Test func theSecretAndTheTokensNeverReachTheLogOrTheStoresClientFields() async throws {
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test", factory: { _ in handler })
        let store = InMemoryTokenStore()
        let simulated = try SimulatedProvider()
        let secret = SimulatedProvider.serviceSecret
        let tokens = try Self.tokens(at: simulated, store: store, logger: logger)
        let token = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        // The provider's registration changes: the service's secret is no longer the one it holds, and it answers invalid_client.
        await simulated.register(.confidential(id: SimulatedProvider.serviceClientID, secret: "another-secret-the-service-does-not-hold"))
        let failure = await #expect(throws: AuthorizationServerError.self) { _ = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["write"])) }
        #expect(failure?.error == "invalid_client")
        let text = handler.messages.joined(separator: "\n") + "\(failure.map { "\($0)" } ?? "")"
        #expect(!text.contains(secret))
        #expect(!text.contains(token.value))
        let stored = try #require(await store.load(tokens.key(for: OAuthClient.ServiceTokenRequest(scopes: ["read"])).sessionKey))
        #expect(!String(decoding: try stored.encoded(), as: UTF8.self).contains(secret))
        #expect(stored.tokens.accessToken == token)
    }

    /// A cache hit can be seen: one debug line naming the provider and the scopes, in memory or in the store.
    @Test func aCacheHitIsLoggedWithTheProviderAndTheScopesOnly() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.url.path)
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test", factory: { _ in handler })
        let simulated = try SimulatedProvider()
        let first = try Self.tokens(at: simulated, store: FileTokenStore(directory: directory.url), logger: logger)
        let token = try await first.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["write", "read"]))
        #expect(!handler.messages.contains { $0.contains("cache hit") }, "the first call fetched: \(handler.messages)")
        #expect(try await first.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"])) == token)
        #expect(handler.messages.filter { $0.contains("cache hit") } == ["service token cache hit provider=simulated scopes=read write"])
        let second = try Self.tokens(at: simulated, store: FileTokenStore(directory: directory.url), logger: logger)
        #expect(try await second.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"])) == token)
        #expect(handler.messages.filter { $0.contains("cache hit") }.last == "service token cache hit in the store provider=simulated scopes=read write")
        #expect(await simulated.requestCount(.token) == 1)
        #expect(!handler.messages.joined().contains(token.value) && !handler.messages.joined().contains(SimulatedProvider.serviceSecret))
    }

    @Test func aTokenAnotherProcessStoredIsUsedInsteadOfAskingAgain() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.url.path)
        let simulated = try SimulatedProvider()
        let first = try Self.tokens(at: simulated, store: FileTokenStore(directory: directory.url))
        let second = try Self.tokens(at: simulated, store: FileTokenStore(directory: directory.url))
        let token = try await first.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        #expect(try await second.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) == token)
        #expect(await simulated.requestCount(.token) == 1)
        await second.invalidate(second.key(for: OAuthClient.ServiceTokenRequest(scopes: ["read"])), token: token)
        #expect(try await first.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) == token, "the first keeps its own copy in memory")
        #expect(try await second.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) != token, "the dropped token left the store too")
    }

    @Test func exchangedTokensStayInMemoryAndAreKeptPerSubject() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.url.path)
        let provider = try TestDescriptor(
            extra: "grant_types: [urn:ietf:params:oauth:grant-type:token-exchange]\nclient_auth:\n  methods: [client_secret_basic]\n"
        ).provider()
        let transport = ScriptedTransport { request, count in
            let subject = Self.fields(request).first { $0.0 == "subject_token" }?.1 ?? ""
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(
                    #"{"access_token":"for-\#(subject)-\#(count)","token_type":"Bearer","expires_in":600,"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#
                        .utf8))
        }
        let tokens = ServiceTokens(
            client: OAuthClient(provider: provider, configuration: .service(clientID: "svc", clientSecret: Self.secret), environment: OAuthEnvironment(transport: transport)),
            store: FileTokenStore(directory: directory.url))
        let alice = try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: Secret("alice")))
        #expect(try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: Secret("alice"))) == alice)
        let bob = try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: Secret("bob")))
        #expect(alice.value == "for-alice-1" && bob.value == "for-bob-2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".json") }.isEmpty)
    }

    @Test func aJSONBodyKeepsEveryRepeatedParameter() async throws {
        let provider = try TestDescriptor(
            extra: """
                grant_types: [client_credentials]
                token_request:
                  body_encoding: json
                client_auth:
                  methods: [client_secret_post]
                service_tokens:
                  target: audience

                """
        ).provider()
        let transport = RecordingTransport(CannedTransport(body: #"{"access_token":"a","token_type":"Bearer"}"#))
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc", clientSecret: Self.secret), environment: OAuthEnvironment(transport: transport))
        _ = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(audiences: ["https://b", "https://a"]))
        let sent = try #require(transport.requests.first?.body)
        let body = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: Any])
        #expect(body["audience"] as? [String] == ["https://a", "https://b"])
        #expect(body["grant_type"] as? String == "client_credentials")
    }

    /// cli.md promises an impossible client configuration stops before anything is sent: a cached token must not
    /// hide it. The second client shares the store (another process, another command line).
    @Test(arguments: [ProviderDescriptor.ClientAuthMethod.clientSecretJWT, .tlsClientAuth])
    func aCachedTokenDoesNotSkipTheClientCheck(method: ProviderDescriptor.ClientAuthMethod) async throws {
        let simulated = try SimulatedProvider()
        let store = InMemoryTokenStore()
        let first = try Self.tokens(at: simulated, store: store)
        _ = try await first.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        var configuration = ClientConfiguration.service(clientID: SimulatedProvider.serviceClientID, clientSecret: nil)
        configuration.authMethod = method
        let second = ServiceTokens(
            client: OAuthClient(provider: try simulated.provider(), configuration: configuration, environment: simulated.environment), store: store)
        await #expect(throws: FlowError.self) { _ = try await second.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) }
        #expect(await simulated.requestCount(.token) == 1)
    }

    /// A token made with one credential is not handed to a request made with another: the key names the method.
    @Test func tokensOfDifferentAuthenticationMethodsAreCachedApart() async throws {
        let a = try Self.tokens(ScriptedTransport { request, count in Self.echo(request, counter: count) })
        var configuration = ClientConfiguration.service(clientID: "svc", clientSecret: Self.secret)
        configuration.authMethod = .clientSecretBasic
        #expect(a.key(for: .init(scopes: ["read"])).credential == "client_secret_basic")
        configuration.authMethod = nil
        configuration.clientSecret = nil
        let b = ServiceTokens(client: OAuthClient(provider: try Self.provider(), configuration: configuration))
        #expect(a.key(for: .init(scopes: ["read"])) != b.key(for: .init(scopes: ["read"])))
    }

    /// `read` granted for `read write`: cached under `read`, so that the next `read write` caller asks again instead of
    /// getting a token without `write`, and a `read` caller is served from the cache.
    @Test func aTokenGrantingFewerScopesIsCachedUnderWhatWasGranted() async throws {
        let simulated = try SimulatedProvider()
        // The service may be granted `read` only: asked for `read write`, the provider grants `read` (RFC 6749 §3.3).
        await simulated.register(.confidential(id: SimulatedProvider.serviceClientID, secret: SimulatedProvider.serviceSecret, scopes: ["read"]))
        let tokens = try Self.tokens(at: simulated)
        let first = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"]))
        #expect(try await Simulated.introspect(first, at: simulated)["scope"]?.stringValue == "read")
        let second = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "write"]))
        #expect(second != first, "the `read write` caller asked again")
        #expect(await simulated.requestCount(.token) == 2)
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) == second)
        #expect(await simulated.requestCount(.token) == 2)
    }
}
