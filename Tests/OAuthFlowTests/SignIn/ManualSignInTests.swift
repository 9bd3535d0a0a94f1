import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow

/// A sign-in whose halves run in two processes (`OAuth.startManualSignIn`, then `finishManualSignIn`), the library
/// call `oauthflow authorize-url` and `login --callback-url` make: its state kept 0600 beside the file store's
/// sessions, kept until its response is accepted, finished only by its own client at the server it was started at.
@Suite struct ManualSignInTests {
    private struct Setup {
        let simulated: SimulatedProvider
        let directory: TemporaryDirectory
        let sessions: URL

        init(_ options: SimulatedProvider.DescriptorOptions = .init()) throws {
            simulated = try SimulatedProvider()
            directory = try TemporaryDirectory()
            sessions = directory.url.appendingPathComponent("sessions")
            try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        }

        /// A process's `OAuth`: each call makes a new one, sharing only the files.
        func oauth(
            _ settings: ClientSettings = ClientSettings(clientID: SimulatedProvider.appClientID), store: (any TokenStore)? = nil,
            providers: URL? = nil, environment: OAuthEnvironment? = nil
        ) -> OAuth {
            OAuth(
                OAuth.Configuration(
                    providerDirectories: [providers ?? directory.url], includeBundledProviders: false, clients: ["simulated": settings],
                    store: store ?? FileTokenStore(directory: sessions), environment: environment ?? simulated.environment))
        }

        /// Starts a sign-in and has the user approve it, then tries to finish it in another process whose providers
        /// directory holds `text` as `simulated.yaml` (a descriptor of the same name read since): the refusal, and the
        /// callback the sign-in still waits for.
        func finishRefused(under text: String) async throws -> (error: FlowError, callback: URL) {
            let started = try await oauth().startManualSignIn(to: "simulated")
            let callback = try await simulated.approve(started.url)
            let other = directory.url.appendingPathComponent("other-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: false)
            try Data(text.utf8).write(to: other.appendingPathComponent("simulated.yaml"))
            let error = try await #require(throws: FlowError.self) {
                try await oauth(providers: other).finishManualSignIn(to: "simulated", callback: callback)
            }
            return (error, callback)
        }

        var pendingPath: String {
            FileTokenStore(directory: sessions).companionPath(for: SessionKey(providerID: "simulated"), suffix: ".pending.json")
        }
    }

    /// A started sign-in lives `PendingAuthorization.lifetime` (10 minutes): finished later it is refused with its own
    /// code, forgotten, and nothing is sent to the token endpoint; within it, it finishes (seen failing with no expiry:
    /// the sign-in finished an hour after it started).
    @Test(arguments: [(540.0, true), (660.0, false), (3600.0, false)])
    func aStartedSignInExpires(after elapsed: TimeInterval, finishes: Bool) async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        #expect(abs(started.expiresAt.timeIntervalSince(setup.simulated.clock.now()) - PendingAuthorization.lifetime) < 5)
        setup.simulated.clock.advance(elapsed)
        let callback = try await setup.simulated.approve(started.url)
        if finishes {
            _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
            return
        }
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
        }
        #expect(error.code == .manualSignInExpired && error.message.contains("10 minutes"), "\(error)")
        #expect(await setup.simulated.requestCount(.token) == 0)
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil, "the expired sign-in is forgotten")
    }

    @Test func aSignInStartedInOneProcessIsFinishedInAnother() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        #expect(started.redirectURI.absoluteString == "http://127.0.0.1:\(OAuth.ManualSignIn.defaultPort)/callback" && started.usesDefaultPort)
        #expect(started.clientID == SimulatedProvider.appClientID)
        let mode = try FileManager.default.attributesOfItem(atPath: setup.pendingPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try setup.oauth().manualSignIn(to: "simulated") == started)

        let callback = try await setup.simulated.approve(started.url, subject: "user-3")
        let finishing = setup.oauth()
        let result = try await finishing.finishManualSignIn(to: "simulated", callback: callback)
        #expect(result.idToken?.subject == "user-3")
        #expect(try await finishing.accessToken(for: "simulated") == result.tokens.accessToken)
        #expect(!FileManager.default.fileExists(atPath: setup.pendingPath), "a sign-in is finished once")
        let again = try await #require(throws: FlowError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback) }
        #expect(again.code == .manualSignIn)
    }

    @Test func aPortGivenIsTheRedirectURIsAndNotTheDefault() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated", account: "work", port: 9123)
        #expect(started.redirectURI.port == 9123 && !started.usesDefaultPort)
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil, "kept for its own account only")
        #expect(try setup.oauth().manualSignIn(to: "simulated", account: "work")?.redirectURI.port == 9123)
    }

    /// A forged or mistyped URL spends nothing and keeps the sign-in: the genuine URL still finishes it.
    @Test func aURLThatIsNotTheSignInsKeepsIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let forged = try Self.replacing("state", with: "forged", in: callback)
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth().finishManualSignIn(to: "simulated", callback: forged)
        }
        #expect(error.code == .stateMismatch)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
        #expect(await setup.simulated.requestCount(.token) == 0)
        _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
    }

    /// A URL cut short (a shell that split it at `&`) has the state but no code: nothing was spent, and it is kept.
    @Test func aURLCutShortKeepsIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let state = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
        let cut = try #require(URL(string: "\(started.redirectURI.absoluteString)?state=\(state)"))
        let error = try await #require(throws: FlowError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: cut) }
        #expect([.missingCode, .issuerMismatch].contains(error.code), "the code, or the iss the provider sends, is missing")
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
        _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
    }

    /// The provider's refusal spends no code (the URL can be opened again); a code the token endpoint refuses was
    /// sent, and is never sent again.
    @Test func aRefusalKeepsItAndARefusedCodeEndsIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let denied = try await setup.simulated.deny(started.url)
        await #expect(throws: AuthorizationServerError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: denied) }
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)

        let callback = try await setup.simulated.approve(started.url)
        let wrongCode = try Self.replacing("code", with: "not-the-code", in: callback)
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await setup.oauth().finishManualSignIn(to: "simulated", callback: wrongCode)
        }
        #expect(error.error == "invalid_grant")
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil)
    }

    /// Once its response is accepted, the request is forgotten before the code is sent: a process killed during the
    /// exchange leaves nothing that would send the code again.
    @Test func theRequestIsForgottenBeforeTheCodeIsSent() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let sentWhileKept = Locked<[Bool]>([])
        let watching = WatchingTransport(inner: setup.simulated.transport) { request in
            guard request.url.path.hasSuffix("/token") else { return }
            sentWhileKept.withLock { $0.append(FileManager.default.fileExists(atPath: setup.pendingPath)) }
        }
        _ = try await setup.oauth(environment: OAuthEnvironment(transport: watching, clock: setup.simulated.clock))
            .finishManualSignIn(to: "simulated", callback: callback)
        #expect(sentWhileKept.current == [false])
    }

    /// Two calls finishing the same URL at once (a redirect delivered twice, two commands): one takes the request and
    /// sends the code; the other is refused before sending it, so the server never sees the code twice.
    @Test func twoCallsFinishingOneURLSendItsCodeOnce() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        let setup = try Setup(options)
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let other = Locked<[Result<String, any Error>]>([])
        // The first call, between reading the request and accepting the response, waits while a second call finishes.
        let watching = WatchingTransport(inner: setup.simulated.transport) { request in
            guard request.url.path.contains("/.well-known/"), other.current.isEmpty else { return }
            do {
                let result = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
                other.withLock { $0.append(.success(result.tokens.accessToken.value)) }
            } catch {
                other.withLock { $0.append(.failure(error)) }
            }
        }
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth(environment: OAuthEnvironment(transport: watching, clock: setup.simulated.clock))
                .finishManualSignIn(to: "simulated", callback: callback)
        }
        #expect(error.code == .manualSignIn)
        #expect(other.current.count == 1 && (try? other.current.first?.get()) != nil, "the second call finished it")
        #expect(await setup.simulated.requestCount(.token) == 1)
    }

    /// Taking a request is by its state: one started since for the same session, or an unreadable file, is left in place.
    @Test func onlyTheRequestsOwnStateTakesIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let key = SessionKey(providerID: "simulated")
        let pending = PendingAuthorizationStore(beside: FileTokenStore(directory: setup.sessions))
        let first = try await setup.oauth().startManualSignIn(to: "simulated")
        let firstState = try #require(try pending.load(for: key)).pending.state
        _ = try await setup.oauth().startManualSignIn(to: "simulated")
        #expect(!pending.claim(for: key, state: firstState))
        let kept = try #require(try setup.oauth().manualSignIn(to: "simulated"), "the newer request stays")
        #expect(kept.url != first.url)
        let newerState = try #require(try pending.load(for: key)).pending.state
        #expect(pending.claim(for: key, state: newerState))
        #expect(try setup.oauth().manualSignIn(to: "simulated") == nil)
        #expect(!pending.claim(for: key, state: newerState), "taken once")

        _ = FileManager.default.createFile(atPath: setup.pendingPath, contents: Data("{not json".utf8), attributes: [.posixPermissions: 0o600])
        #expect(!pending.claim(for: key, state: newerState))
        #expect(FileManager.default.contents(atPath: setup.pendingPath) == Data("{not json".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: setup.sessions.path).filter { $0.contains(".claimed-") }
        #expect(leftovers.isEmpty)
    }

    /// `url` with the query parameter `name` set to `value`.
    private static func replacing(_ name: String, with value: String, in url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
        return try #require(components.url)
    }

    private struct WatchingTransport: HTTPTransport {
        let inner: any HTTPTransport
        let watch: @Sendable (TransportRequest) async throws -> Void

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            try await watch(request)
            return try await inner.send(request)
        }
    }

    /// A client that cannot authenticate at the token endpoint fails before the code is sent, and keeps the sign-in.
    @Test func aClientWithoutItsSecretKeepsIt() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.clientAuthentication = [.clientSecretBasic]
        let setup = try Setup(options)
        defer { setup.directory.cleanUp() }
        let withSecret = ClientSettings(clientID: SimulatedProvider.appClientID, secret: Secret("a-secret-for-the-test"))
        let started = try await setup.oauth(withSecret).startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let error = try await #require(throws: FlowError.self) { try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback) }
        #expect(error.code == .missingClientSecret)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
    }

    /// The code goes only to the server the request was made at: a descriptor of the same name read since, naming
    /// another server, is refused before anything is sent, and the sign-in is kept.
    @Test func aDescriptorOfTheSameNameAtAnotherServerIsRefused() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let elsewhere = try SimulatedProvider(issuer: try #require(URL(string: "https://simulated.example.net")))
        let (error, callback) = try await setup.finishRefused(under: elsewhere.descriptorText(.init()))
        #expect(error.code == .manualSignIn && error.message.contains("simulated.example.net"))
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
        _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
    }

    /// A descriptor of the same name that moves one thing the code's exchange depends on: the token endpoint alone
    /// (the code, the verifier and the client's credentials would go there), or the issuer alone with the same
    /// endpoints (its discovery could name others, a mutual-TLS alias; its ID tokens come from another server).
    /// Refused, nothing sent, kept.
    @Test(arguments: [
        ("https://simulated.example/token", "https://collector.example/token"),
        ("issuer: https://simulated.example", "issuer: https://other-issuer.example"),
    ])
    func aDescriptorThatMovesTheTokenEndpointOrTheIssuerIsRefused(_ written: String, _ moved: String) async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let text = setup.simulated.descriptorText(.init()).replacingOccurrences(of: written, with: moved)
        #expect(text.contains(moved))
        let (error, callback) = try await setup.finishRefused(under: text)
        let host = try #require(moved.split(separator: "/").dropFirst().first)
        #expect(error.code == .manualSignIn && error.message.contains(host), "\(error)")
        #expect(await setup.simulated.requestCount(.token) == 0)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
        _ = try await setup.oauth().finishManualSignIn(to: "simulated", callback: callback)
    }

    /// The code goes to the client it was issued to, and only there: another client's settings are refused before
    /// anything is sent, and the sign-in is kept for its own.
    @Test func onlyTheClientThatStartedItFinishesIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth(ClientSettings(clientID: "another-client")).finishManualSignIn(to: "simulated", callback: callback)
        }
        #expect(error.code == .manualSignIn && error.message.contains(SimulatedProvider.appClientID))
        #expect(await setup.simulated.requestCount(.token) == 0)
        #expect(try setup.oauth().manualSignIn(to: "simulated") != nil)
    }

    /// The same endpoint written with its default port is the same server.
    @Test func theDefaultPortWrittenOutIsTheSameServer() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        let callback = try await setup.simulated.approve(started.url)
        let spelled = setup.directory.url.appendingPathComponent("spelled")
        try FileManager.default.createDirectory(at: spelled, withIntermediateDirectories: false)
        let text = setup.simulated.descriptorText(.init()).replacingOccurrences(
            of: "https://simulated.example/authorize", with: "https://simulated.example:443/authorize")
        #expect(text.contains(":443/authorize"))
        try Data(text.utf8).write(to: spelled.appendingPathComponent("simulated.yaml"))
        _ = try await setup.oauth(providers: spelled).finishManualSignIn(to: "simulated", callback: callback)
    }

    @Test func aStoreThatKeepsNoFilesIsToldPlainly() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = true
        let setup = try Setup(options)
        defer { setup.directory.cleanUp() }
        let error = try await #require(throws: FlowError.self) {
            try await setup.oauth(store: InMemoryTokenStore()).startManualSignIn(to: "simulated")
        }
        #expect(error.code == .manualSignIn && error.message.contains("FileTokenStore"))
        #expect(await setup.simulated.requestCount(.pushedAuthorization) == 0)
        let started = try await setup.oauth().startManualSignIn(to: "simulated")
        #expect(started.requestExpiresAt != nil)
        #expect(await setup.simulated.requestCount(.pushedAuthorization) == 1)
    }
}
