import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [StoredSession?] = []
    func append(_ session: StoredSession?) { lock.withLock { entries.append(session) } }
    var all: [StoredSession?] { lock.withLock { entries } }
}

@Suite struct TokenManagerTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    private func provider() throws -> Provider {
        try TestDescriptor().provider()
    }

    private func makeManager(_ transport: ScriptedTransport, session: StoredSession, changes: ChangeLog? = nil,
                         store: (any TokenStore)? = nil) throws -> (TokenManager, any TokenStore) {
        let store = store ?? InMemoryTokenStore([session])
        let client = OAuthClient(provider: try provider(), configuration: ClientConfiguration(
            clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: now)))
        var onChange: (@Sendable (StoredSession?) -> Void)?
        if let changes { onChange = { changes.append($0) } }
        let manager = TokenManager(client: client, store: store, key: session.key,
                                   onChange: onChange)
        return (manager, store)
    }

    /// A provider simulated on a clock stopped at `now`, with `settings`.
    private func simulated(_ settings: SimulatedProvider.Settings = .init()) throws -> SimulatedProvider {
        try SimulatedProvider(clock: MovableClock(startingAt: now), settings: settings)
    }

    /// A manager of `session`, signed in at `simulated`, kept in `store` (an in-memory one holding it by default), whose
    /// client sends through `transport` (the provider's own by default).
    private func makeManager(
        at simulated: SimulatedProvider, session: StoredSession, transport: (any HTTPTransport)? = nil, changes: ChangeLog? = nil,
        store: (any TokenStore)? = nil
    ) throws -> (TokenManager, any TokenStore) {
        let store = store ?? InMemoryTokenStore([session])
        var environment = simulated.environment
        if let transport { environment.transport = transport }
        let client = try Simulated.appClient(simulated, environment: environment)
        var onChange: (@Sendable (StoredSession?) -> Void)?
        if let changes { onChange = { changes.append($0) } }
        return (TokenManager(client: client, store: store, key: session.key, onChange: onChange), store)
    }

    @Test func freshTokenIsReturnedWithoutARequest() async throws {
        let transport = ScriptedTransport { _, _ in Issue.record("no request expected"); return TransportResponse(status: 500) }
        let (manager, _) = try makeManager(transport, session: sampleSession(expiresAt: now.addingTimeInterval(3600)))
        #expect(try await manager.validAccessToken().value == "access-1")
    }

    @Test func tokenWithinTheSkewIsRefreshed() async throws {
        var settings = SimulatedProvider.Settings()
        settings.rotatesRefreshTokens = false
        let simulated = try simulated(settings)
        let session = try await Simulated.session(try Simulated.appClient(simulated), at: simulated)
        let changes = ChangeLog()
        let (manager, store) = try makeManager(at: simulated, session: session, changes: changes)
        simulated.clock.advance(3600 - 30)   // 30 s left: within the skew
        let refreshed = try await manager.validAccessToken()
        #expect(refreshed != session.tokens.accessToken)
        #expect(try await Simulated.introspect(refreshed, at: simulated)["iat"] == .number(simulated.clock.now().timeIntervalSince1970), "issued by the refresh")
        let stored = try #require(try await store.load(session.key))
        #expect(stored.tokens.accessToken == refreshed)
        #expect(stored.tokens.refreshToken == session.tokens.refreshToken, "an unrotated refresh token is kept")
        #expect(stored.tokens.expiresAt == simulated.clock.now().addingTimeInterval(3600))
        #expect(changes.all.count == 1)
    }

    @Test func tenThousandConcurrentCallersShareOneRefresh() async throws {
        let simulated = try simulated()
        let session = try await Simulated.session(try Simulated.appClient(simulated), at: simulated)
        // The provider takes 20 ms to answer the refresh: every caller arrives while it is out.
        let slow = ScriptedTransport { request, _ in
            try await Task.sleep(nanoseconds: 20_000_000)
            return try await simulated.transport.send(request)
        }
        let (manager, _) = try makeManager(at: simulated, session: session, transport: slow)
        simulated.clock.advance(3600 + 10)
        let exchanges = await simulated.requestCount(.token)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10_000 { group.addTask { try await manager.validAccessToken().value } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let refreshed = try await manager.session().tokens
        #expect(tokens == [refreshed.accessToken.value] && refreshed.accessToken != session.tokens.accessToken)
        #expect(try await Simulated.isActive(refreshed.refreshToken, at: simulated), "the rotated refresh token the provider issued last")
        #expect(await simulated.requestCount(.token) == exchanges + 1)
    }

    @Test func invalidGrantSignsOut() async throws {
        let simulated = try simulated()
        let client = try Simulated.appClient(simulated)
        let session = try await Simulated.session(client, at: simulated)
        let changes = ChangeLog()
        let (manager, store) = try makeManager(at: simulated, session: session, changes: changes)
        // The grant is revoked at the provider (another device signed out), and the access token expires.
        try await client.revoke(try #require(session.tokens.refreshToken), kind: .refreshToken)
        simulated.clock.advance(3600 + 10)
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .signedOut)
        #expect(error.serverError?.error == "invalid_grant")
        #expect(try await store.load(session.key) == nil)
        #expect(changes.all.count == 1 && changes.all.first! == nil)
        let again = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(again.code == .notSignedIn)
    }

    @Test(arguments: [503, 500])
    func serverTroubleKeepsTheSession(status: Int) async throws {
        let transport = ScriptedTransport { _, _ in TransportResponse(status: status, headers: ["Content-Type": "text/html"], body: Data("<h1>down</h1>".utf8)) }
        let (manager, store) = try makeManager(transport, session: sampleSession(expiresAt: now.addingTimeInterval(-10)))
        await #expect(throws: FlowError.self) { try await manager.validAccessToken() }
        #expect(try await store.load(SessionKey(providerID: "example")) != nil)
    }

    /// A 2xx refresh answer that fails its own checks before any part of it is taken (here, no `token_type`): the server
    /// has spent the old refresh token, so the answer's new one is kept, with the access token taken as expired; the old
    /// one was kept before, and the next refresh was refused (`invalid_grant`), signing the user out.
    @Test(arguments: [true, false])
    func aRefreshAnswerThatFailsItsChecksKeepsItsNewRefreshToken(rotates: Bool) async throws {
        let transport = ScriptedTransport { _, _ in
            let body = rotates ? #"{"access_token":"access-2","refresh_token":"refresh-2","expires_in":3600}"# : #"{"access_token":"access-2"}"#
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        let fileStore = FileTokenStore(directory: files.url.appendingPathComponent("sessions"))
        try await fileStore.save(sampleSession(expiresAt: now.addingTimeInterval(-10)))
        let (manager, store) = try makeManager(transport, session: sampleSession(expiresAt: now.addingTimeInterval(-10)), store: fileStore)
        await #expect(throws: FlowError.self) { try await manager.validAccessToken() }
        let stored = try #require(try await store.load(SessionKey(providerID: "example")))
        #expect(stored.tokens.refreshToken?.value == (rotates ? "refresh-2" : "refresh-1"))
        #expect(stored.tokens.accessToken.value == "access-1", "nothing else of the unchecked answer is taken")
        #expect((stored.tokens.expiresAt ?? .distantFuture) <= now)
        #expect(!FileManager.default.fileExists(atPath: files.url.appendingPathComponent("sessions/example--default.received.json").path))
    }

    /// Sign-out waits for a refresh another process has under way (it holds the store's lock), then revokes and removes
    /// what that refresh stored: the session was removed without the lock, and the refresh then wrote it back, holding
    /// a working refresh token after "signed out".
    @Test func signOutWaitsForARefreshUnderWayAndRemovesWhatItStored() async throws {
        let transport = ScriptedTransport { _, _ in TransportResponse(status: 200) }
        let files = try TemporaryDirectory()
        defer { files.cleanUp() }
        let store = FileTokenStore(directory: files.url.appendingPathComponent("sessions"))
        let session = sampleSession(expiresAt: now.addingTimeInterval(3600))
        try await store.save(session)
        let (manager, _) = try makeManager(transport, session: session, store: store)
        // Another process's refresh: it holds the lock while it stores the rotated tokens.
        let lock = try await store.lock(session.key)
        let signingOut = Task { try await manager.signOut() }
        try await Task.sleep(nanoseconds: 300_000_000)
        var refreshed = session
        refreshed.tokens.refreshToken = Secret("refresh-2")
        try await store.save(refreshed)
        lock.release()
        _ = try await signingOut.value
        #expect(try await store.load(session.key) == nil, "the session stays signed out")
    }

    /// A confidential client's session is not signed out without the credential its revocation needs: nothing is sent,
    /// and the session (with its refresh token, still valid at the provider) is kept, as a refresh without it is refused.
    @Test func signOutWithoutTheCredentialRevocationNeedsKeepsTheSession() async throws {
        let transport = ScriptedTransport { request, _ in Issue.record("nothing is sent: \(request.url)"); return TransportResponse(status: 200) }
        let provider = try TestDescriptor(extra: "client_auth:\n  methods: [client_secret_basic]\n")
            .with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
        var session = sampleSession(expiresAt: now.addingTimeInterval(3600))
        session.clientAuthentication = .clientSecretBasic
        let store = InMemoryTokenStore([session])
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!),
            environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: now)))
        let manager = TokenManager(client: client, store: store, key: session.key)
        let error = try await #require(throws: SessionError.self) { try await manager.signOut() }
        #expect(error.code == .missingClientCredential && error.message.contains("a client secret"), "\(error.message)")
        #expect(error.message.contains("the session is kept"), "\(error.message)")
        #expect(await store.load(session.key) == session)
        #expect(transport.count("/revoke") == 0)
    }

    @Test func networkFailureKeepsTheSession() async throws {
        let transport = ScriptedTransport { request, _ in throw TransportError(url: request.url, message: "connection refused") }
        let (manager, store) = try makeManager(transport, session: sampleSession(expiresAt: now.addingTimeInterval(-10)))
        await #expect(throws: TransportError.self) { try await manager.validAccessToken() }
        #expect(try await store.load(SessionKey(providerID: "example")) != nil)
    }

    /// A store that cannot take new tokens (a read-only directory, a full disk).
    struct UnwritableStore: TokenStore {
        let base: InMemoryTokenStore
        func load(_ key: SessionKey) async throws -> StoredSession? { await base.load(key) }
        func save(_ session: StoredSession) async throws { throw TokenStoreError(.io, "read-only file system") }
        func remove(_ key: SessionKey) async throws { await base.remove(key) }
        func lock(_ key: SessionKey) async throws -> any TokenStoreLock { try await base.lock(key) }
        func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation { throw TokenStoreError(.io, "read-only file system") }
    }

    @Test func anUnwritableStoreStopsTheRefreshBeforeTheTokenIsSpent() async throws {
        let transport = ScriptedTransport { _, _ in tokenResponse("new", refresh: "rotated") }
        let session = sampleSession(expiresAt: now.addingTimeInterval(-10))
        let (manager, store) = try makeManager(transport, session: session, store: UnwritableStore(base: InMemoryTokenStore([session])))
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .storeUnavailable)
        #expect(error.message.contains("read-only file system") && error.message.contains("refresh token was not used"))
        #expect(transport.count("/token") == 0)
        #expect(try await store.load(session.key) == session)
    }

    /// A store whose first `failures` saves fail (a disk that fills and frees), then saves as usual.
    actor FailingSavesStore: TokenStore {
        let base: InMemoryTokenStore
        private var failures: Int
        init(_ sessions: [StoredSession], failures: Int) {
            base = InMemoryTokenStore(sessions)
            self.failures = failures
        }
        func load(_ key: SessionKey) async throws -> StoredSession? { await base.load(key) }
        func save(_ session: StoredSession) async throws {
            if failures > 0 {
                failures -= 1
                throw TokenStoreError(.io, "no space left on device")
            }
            await base.save(session)
        }
        func remove(_ key: SessionKey) async throws { await base.remove(key) }
        nonisolated func lock(_ key: SessionKey) async throws -> any TokenStoreLock { try await base.lock(key) }
    }

    /// Waits up to `seconds` for `condition`.
    private func eventually(_ seconds: TimeInterval, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return try await condition()
    }

    @Test func aRefreshTheStoreDidNotTakeIsSavedAfterTheManagerIsGone() async throws {
        let simulated = try simulated()
        let session = try await Simulated.session(try Simulated.appClient(simulated), at: simulated)
        let store = FailingSavesStore([session], failures: 1)
        simulated.clock.advance(3600 + 10)
        do {
            // A web request's manager: it refreshes, the save fails, and the request ends.
            let (manager, _) = try makeManager(at: simulated, session: session, store: store)
            let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
            #expect(error.code == .storeUnavailable)
        }
        let saved = try await eventually(5) {
            // The provider rotated the refresh token: the one it issued last is the only one it still holds live.
            guard let stored = try await store.load(session.key)?.tokens.refreshToken, stored != session.tokens.refreshToken else { return false }
            return try await Simulated.isActive(stored, at: simulated)
        }
        #expect(saved, "the rotated refresh token reached the store after the manager that got it was gone")
    }

    @Test func aRetryNeverOverwritesASessionSavedSinceTheRefresh() async throws {
        let simulated = try simulated()
        let client = try Simulated.appClient(simulated)
        let session = try await Simulated.session(client, at: simulated)
        let store = FailingSavesStore([session], failures: 1)
        simulated.clock.advance(3600 + 10)
        let (manager, _) = try makeManager(at: simulated, session: session, store: store)
        await #expect(throws: SessionError.self) { try await manager.validAccessToken() }
        // Another process signs in again before the first retry (1 s later).
        let newer = try await Simulated.session(client, at: simulated)
        try await store.save(newer)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        #expect(try await store.load(session.key) == newer)
    }

    @Test func aRecordedRefreshIsRecoveredByTheNextLoad() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        // A refresh that recorded its answer and died before committing it.
        do {
            let reservation = try await store.reserve(SessionKey(providerID: "example"))
            try await reservation.record(sampleSession(access: "received", refresh: "rotated"))
        }
        // (A killed process also leaves its second reserved file, which the next save removes after an hour.)
        let restarted = FileTokenStore(directory: store.directory)
        let recovered = try #require(try await restarted.load(SessionKey(providerID: "example")))
        #expect(recovered.tokens.accessToken.value == "received" && recovered.tokens.refreshToken?.value == "rotated")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(!names.contains { $0.hasSuffix(".received.json") || $0.hasSuffix(".tmp") }, "\(names)")
        #expect(try await restarted.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "received")
    }

    @Test func anAbandonedReservationLeavesTheSessionAndNoFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("s"))
        try await store.save(sampleSession())
        let reservation = try await store.reserve(SessionKey(providerID: "example"))
        try await reservation.record(sampleSession(access: "failed-its-checks"))
        await reservation.abandon()
        #expect(try await store.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "access-1")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0 != "example--default.json" }.isEmpty)
    }

    @Test func performRefreshesOnceOn401AndRetriesOnce() async throws {
        let simulated = try simulated()
        let client = try Simulated.appClient(simulated)
        let session = try await Simulated.session(client, at: simulated)
        let (manager, _) = try makeManager(at: simulated, session: session)
        // The access token is revoked though unexpired: the provider's userinfo, the API here, answers 401 until a refresh.
        try await client.revoke(session.tokens.accessToken, kind: .accessToken)
        let exchanges = await simulated.requestCount(.token)
        // The sign-in read userinfo for the profile already (SignInResult.store): count from here.
        let calls = await simulated.requestCount(.userinfo)
        let userinfo = simulated.issuer.appendingPathComponent("userinfo")
        let response = try await manager.perform(TransportRequest(method: .get, url: userinfo))
        #expect(response.status == 200)
        #expect(await simulated.requestCount(.token) == exchanges + 1)
        #expect(await simulated.requestCount(.userinfo) == calls + 2)
    }

    @Test func persistent401IsReturnedAfterOneRetry() async throws {
        let simulated = try simulated()
        let session = try await Simulated.session(try Simulated.appClient(simulated), at: simulated)
        // The provider refreshes; the API refuses every token.
        let transport = ScriptedTransport { request, _ in
            request.url.host == simulated.issuer.host ? try await simulated.transport.send(request) : TransportResponse(status: 401)
        }
        let (manager, _) = try makeManager(at: simulated, session: session, transport: transport)
        let exchanges = await simulated.requestCount(.token)
        let response = try await manager.perform(TransportRequest(method: .get, url: URL(string: "https://api.example.com/me")!))
        #expect(response.status == 401)
        #expect(transport.count("/me") == 2)
        #expect(await simulated.requestCount(.token) == exchanges + 1)
    }

    /// A 401 that asks for a step-up (RFC 9470) or names another error than `invalid_token` is the API's answer: it is
    /// returned at once, with no refresh a new token could not change.
    @Test(arguments: [
        #"Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa""#, #"Bearer error="invalid_request""#,
    ])
    func a401ThatDoesNotRefuseTheTokenIsReturnedWithoutARefresh(challenge: String) async throws {
        let simulated = try simulated()
        let session = try await Simulated.session(try Simulated.appClient(simulated), at: simulated)
        let transport = ScriptedTransport { request, _ in
            request.url.host == simulated.issuer.host
                ? try await simulated.transport.send(request) : TransportResponse(status: 401, headers: ["WWW-Authenticate": challenge])
        }
        let (manager, _) = try makeManager(at: simulated, session: session, transport: transport)
        let exchanges = await simulated.requestCount(.token)
        let response = try await manager.perform(TransportRequest(method: .get, url: URL(string: "https://api.example.com/me")!))
        #expect(response.status == 401)
        #expect(transport.count("/me") == 1)
        #expect(await simulated.requestCount(.token) == exchanges)
    }

    @Test func refreshUnderTheLockAdoptsTokensAnotherProcessStored() async throws {
        let transport = ScriptedTransport { _, _ in Issue.record("no refresh expected"); return TransportResponse(status: 500) }
        let store = InMemoryTokenStore([sampleSession(expiresAt: now.addingTimeInterval(-10))])
        let (manager, _) = try makeManager(transport, session: sampleSession(), store: store)
        _ = try await manager.session()
        // Another process refreshes and stores new tokens.
        await store.save(sampleSession(access: "access-from-elsewhere", refresh: "refresh-2", expiresAt: now.addingTimeInterval(3600)))
        #expect(try await manager.validAccessToken().value == "access-from-elsewhere")
    }
}

extension TokenManagerTests {
    @Test func aConfidentialSessionIsNotRefreshedWithoutItsSecret() async throws {
        let transport = ScriptedTransport { _, _ in tokenResponse("new", refresh: "rotated") }
        var session = sampleSession(expiresAt: now.addingTimeInterval(-10))
        session.clientAuthentication = .clientSecretBasic
        let (manager, store) = try makeManager(transport, session: session)
        let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
        #expect(error.code == .missingClientCredential)
        #expect(error.message.contains("client_secret_basic") && error.message.contains("nothing was sent"), "\(error.message)")
        #expect(transport.count("/token") == 0, "the refresh token was not offered without the client's credential")
        #expect(try await store.load(session.key) == session)
    }

    @Test func aStoredSessionRemembersHowItsClientAuthenticatedAndNotTheSecret() throws {
        var session = sampleSession()
        session.clientAuthentication = .clientSecretPost
        let data = try FileTokenStore.encode(session)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""clientAuthentication" : "client_secret_post""#), "\(text)")
        #expect(try FileTokenStore.decode(data, path: "x") == session)
        // A session stored before the field existed still reads, with no method known.
        let old = text.replacingOccurrences(of: #""clientAuthentication" : "client_secret_post","#, with: "")
        #expect(try FileTokenStore.decode(Data(old.utf8), path: "x").clientAuthentication == nil)
    }
}
