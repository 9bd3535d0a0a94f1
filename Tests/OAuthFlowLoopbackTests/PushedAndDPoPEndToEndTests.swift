import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

import OAuthFlowLoopback

/// Opens the URL it is given the way a browser does (TestBrowser, following redirects), from a task of its own.
struct FollowingBrowser: BrowserOpener {
    func open(_ url: URL) async throws {
        Task { _ = await TestBrowser.follow(url) }
    }
}

/// The real time plus what the test added: the client's clock, moved on as a late browser would find it.
final class AheadClock: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    func now() -> Date { Date().addingTimeInterval(lock.withLock { offset }) }
    func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
}

/// Collects strings from concurrent closures.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var values: [String] { lock.withLock { stored } }
    func add(_ value: String) { lock.withLock { stored.append(value) } }
}

/// Sign-in with pushed authorization requests (RFC 9126) and DPoP-bound tokens (RFC 9449) against idpyoidc,
/// and resource calls to a resource server that verifies every proof (Tests/PARServer).
@Suite(.enabled(if: TestPARServer.shouldRun, TestPARServer.skipReason))
struct PushedAndDPoPEndToEndTests {
    let server: TestPARServer
    let directory: URL

    init() throws {
        server = try TestPARServer.require()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("par-e2e-\(UUID().uuidString)")
        // Token directories must be 0700: the store refuses anything wider.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func signIn(
        client name: String, security: [String] = ["dpop: required"], browser: FollowingBrowser = FollowingBrowser(),
        events: Recorder = Recorder(), clock: any DateClock = SystemDateClock(), onOpen: @escaping @Sendable () -> Void = {}
    ) async throws -> (SignInResult, Provider, ClientConfiguration, FileTokenStore) {
        let client = try server.client(name)
        let provider = try await server.descriptor(id: "par-\(name)", security: security).provider().discovered(with: DiscoveryClient())
        let store = FileTokenStore(directory: directory)
        let result = try await LoopbackSignIn(store: store, browser: browser, environment: OAuthEnvironment(clock: clock)).signIn(
            to: provider,
            settings: ClientSettings(
                clientID: client.clientID, secret: client.clientSecret.map(Secret.init),
                authMethod: ProviderDescriptor.ClientAuthMethod(rawValue: client.authMethod)),
            // Minutes: a sign-in here is a browser, idpyoidc and the token exchange on two cores the whole suite shares.
            timeout: .seconds(180)
        ) { event in
            if case .pushedRequestRenewed = event { events.add("renewed") }
            if case .openURL = event { onOpen() }
        }
        let configuration = ClientConfiguration(
            clientID: client.clientID, redirectURI: result.session.redirectURI,
            clientSecret: client.clientSecret.map(Secret.init), authMethod: ProviderDescriptor.ClientAuthMethod(rawValue: client.authMethod))
        return (result, provider, configuration, store)
    }

    func count(_ stats: [String: JSONValue], _ path: String...) -> Int {
        var value: JSONValue? = .object(stats)
        for key in path {
            guard case let .object(object)? = value else { return 0 }
            value = object[key]
        }
        return Int(value?.numberValue ?? 0)
    }

    @Test func aPushedSignInGivesDPoPBoundTokensThatWorkOnlyWithProofs() async throws {
        let (result, provider, configuration, store) = try await signIn(client: "confidential")
        let client = try server.client("confidential")
        let tokens = result.session.tokens
        #expect(tokens.tokenType == "dpop" && tokens.isDPoPBound)
        #expect(result.idToken != nil, "the ID token was verified")
        let stats = try await server.stats()
        #expect(count(stats, "par_requests", client.clientID) >= 1)
        #expect(count(stats, "authorization_requests", client.clientID, "pushed") >= 1)
        #expect(count(stats, "authorization_requests", client.clientID, "plain") == 0, "the browser never carried the parameters")

        // The session as stored has the key: another manager (another process) uses it.
        let recording = RecordingTransport()
        let manager = TokenManager(client: OAuthClient(provider: provider, configuration: configuration, environment: OAuthEnvironment(transport: recording)), store: store, key: result.session.key)
        let hello = try await manager.perform(TransportRequest(method: .get, url: server.resource("hello").appending(queryItems: [.init(name: "q", value: "1")])))
        #expect(hello.status == 200, "\(String(decoding: hello.body, as: UTF8.self))")
        let answer = try JSONDecoder().decode([String: JSONValue].self, from: hello.body)
        #expect(answer["scheme"]?.stringValue == "DPoP" && answer["jkt"]?.stringValue == tokens.proofKey?.thumbprint)

        // Sent as a Bearer token, the same access token is refused: it is bound.
        let stolen = try await DefaultHTTPTransport().send(
            TransportRequest(method: .get, url: server.resource("hello"), headers: ["Authorization": "Bearer \(tokens.accessToken.value)"]))
        #expect(stolen.status == 401)

        // Userinfo and the refresh go with proofs too; the refreshed tokens keep the key.
        let claims = try await manager.userInfo()
        #expect(claims["sub"] != nil)
        let refreshed = try await manager.refresh()
        #expect(refreshed.tokens.proofKey == tokens.proofKey && refreshed.tokens.tokenType == "dpop")
        #expect(try await manager.perform(TransportRequest(method: .post, url: server.resource("hello"))).status == 200)

        // Every proof the client made had its own jti, and the server saw each of them.
        let ids = recording.requests.compactMap { request in
            request.headers["DPoP"].flatMap { try? IDTokenValidator.decodeUnverified($0).claims["jti"]?.stringValue }
        }
        #expect(ids.count >= 4 && Set(ids).count == ids.count, "\(ids)")
        #expect(Set(ids).isSubset(of: Set(try await server.proofIDs())))
    }

    /// An API built on ProtectedResource accepts idpyoidc's DPoP-bound RFC 9068 tokens only with a proof of their key.
    @Test func anOAuthFlowAPIAcceptsTheDPoPBoundTokenOnlyWithItsProof() async throws {
        let (result, _, _, _) = try await signIn(client: "public")
        let tokens = result.session.tokens
        let key = try #require(tokens.proofKey)
        let provider = try server.descriptor(id: "par-api", security: ["dpop: required"], accessTokens: ["profile: rfc9068"]).provider()
        let api = try ProtectedResource(providers: [provider], settings: .init(resource: server.resource))
        let url = server.resource("notes")
        let token = tokens.accessToken.value
        let proof = try await key.proof(method: .get, url: url, accessToken: tokens.accessToken)
        let principal = try await api.authenticate(ProtectedResource.Request(authorization: "DPoP \(token)", dpop: proof, url: url))
        #expect(principal.confirmation?.keyThumbprint == key.thumbprint)
        #expect(principal.clientID == (try server.client("public")).clientID)
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)")) }
        // The same proof again is a replay.
        let replay = await #expect(throws: ProtectedResource.Denial.self) {
            _ = try await api.authenticate(ProtectedResource.Request(authorization: "DPoP \(token)", dpop: proof, url: url))
        }
        #expect(replay?.code == .invalidDPoPProof)
    }

    @Test func aReplayedProofOrAProofForAnotherURLIsRefusedByTheResourceServer() async throws {
        let (result, _, _, _) = try await signIn(client: "public")
        let tokens = result.session.tokens
        let recording = RecordingTransport()
        let first = try await tokens.send(TransportRequest(method: .get, url: server.resource("hello")), environment: OAuthEnvironment(transport: recording))
        #expect(first.status == 200)
        let sent = try #require(recording.requests.last)
        // An attacker who saw the request sends it again, proof and all.
        let replay = try await DefaultHTTPTransport().send(sent)
        #expect(replay.status == 401)
        #expect(replay.header("www-authenticate")?.contains("invalid_dpop_proof") == true, "\(replay.headers)")
        // The same token with that proof, at another URL or with another method.
        var elsewhere = sent
        elsewhere.url = server.resource("hello/other")
        #expect(try await DefaultHTTPTransport().send(elsewhere).status == 401)
        var posted = sent
        posted.method = .post
        #expect(try await DefaultHTTPTransport().send(posted).status == 401)
        let refused = try await server.stats()
        #expect(count(refused, "proofs_refused", "replay") >= 1)
    }

    @Test func resourceNoncesAreSentAfterOneRetryAndANonceLoopEnds() async throws {
        let (result, provider, configuration, store) = try await signIn(client: "public")
        let manager = TokenManager(
            client: OAuthClient(provider: provider, configuration: configuration), store: store, key: result.session.key)
        let first = try await manager.perform(TransportRequest(method: .get, url: server.resource("nonce/items")))
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
        let error = await #expect(throws: FlowError.self) {
            _ = try await manager.perform(TransportRequest(method: .get, url: server.resource("nonce-loop/items")))
        }
        // That it stopped after exactly one retry is DPoPTests' count; here the real server's demands end it.
        #expect(error?.code == .dpop && error?.message.contains("after one retry") == true)
        #expect(count(try await server.stats(), "nonce_demands", "resource") >= 1)
    }

    @Test func aTokenEndpointNonceIsSentAfterOneRetry() async throws {
        let (result, _, _, _) = try await signIn(client: "dpop-nonce")
        #expect(result.session.tokens.isDPoPBound)
        #expect(count(try await server.stats(), "nonce_demands", "token") >= 1)
    }

    @Test func aTokenEndpointThatAlwaysDemandsANonceFailsTheSignInClearly() async throws {
        let error = await #expect(throws: FlowError.self) { _ = try await signIn(client: "dpop-nonce-loop") }
        #expect(error?.code == .dpop)
    }

    @Test func aServerThatIgnoresDPoPIsRefusedOrAcceptedAsTheDescriptorSays() async throws {
        let refusal = await #expect(throws: FlowError.self) { _ = try await signIn(client: "bearer") }
        #expect(refusal?.message.contains("dpop_bearer_answer") == true)
        let (result, provider, configuration, store) = try await signIn(
            client: "bearer", security: ["dpop: required", "dpop_bearer_answer: accept"])
        #expect(result.session.tokens.tokenType == "bearer" && !result.session.tokens.isDPoPBound)
        let manager = TokenManager(
            client: OAuthClient(provider: provider, configuration: configuration), store: store, key: result.session.key)
        let answer = try await manager.perform(TransportRequest(method: .get, url: server.resource("hello")))
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("Bearer"))
    }

    @Test func aClientThatMustPushIsSignedInByPushing() async throws {
        let (result, _, _, _) = try await signIn(client: "par-required", security: [])
        #expect(!result.session.tokens.isDPoPBound, "DPoP is off by default")
        #expect(result.session.tokens.tokenType == "bearer")
    }

    @Test func aPushedRequestThatExpiredBeforeTheBrowserCameIsPushedAgain() async throws {
        let client = try server.client("short-par")
        let before = count(try await server.stats(), "par_requests", client.clientID)
        let events = Recorder()
        // The browser comes late by the client's clock: a minute passes as the browser opens, past the pushed
        // request's 30 s, so the start page pushes a new one before it sends the browser on. Waiting out the lifetime
        // in real time instead made the test hang on the machine's load: with 16 tests at a time on two cores, the
        // renewed request could expire again before the browser reached the server, whose error page for an expired
        // request_uri (400, no redirect, Tests/PARServer/check.py) ended the browser and left the sign-in to wait out
        // its 180 s. The server's own refusal of an expired request_uri is check.py's to show.
        let clock = AheadClock()
        let (result, _, _, _) = try await signIn(
            client: "short-par", security: [], browser: FollowingBrowser(), events: events, clock: clock, onOpen: { clock.advance(60) })
        #expect(result.session.tokens.tokenType == "bearer")
        #expect(events.values == ["renewed"], "\(events.values)")
        #expect(count(try await server.stats(), "par_requests", client.clientID) - before == 2)
    }

    @Test func gitAndKubectlAreRefusedADPoPBoundSession() async throws {
        let (result, _, _, store) = try await signIn(client: "public")
        let providers = directory.appendingPathComponent("providers")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        try server.descriptor(id: "par-public", security: ["dpop: required"]).yaml.write(
            to: providers.appendingPathComponent("par-public.yaml"), atomically: true, encoding: .utf8)
        let oauth = OAuth(.init(providerDirectories: [providers], includeBundledProviders: false, store: store))
        let error = await #expect(throws: FlowError.self) {
            _ = try await oauth.bearerSession(result.session.key.providerID, account: result.session.key.account, tool: "git", browser: NoBrowser())
        }
        #expect(error?.code == .dpop && error?.message.contains("git cannot send") == true)
    }
}
