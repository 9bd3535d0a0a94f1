import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow

/// Two processes that refresh one session at once, the store's lock not keeping them apart (a holder suspended for
/// longer than a keychain lease lasts, a sign-in that saves without the lock): the winner's rotated session is stored,
/// the loser's refresh token is rejected (`invalid_grant`), and the loser must not remove the winner's session.
@Suite struct RefreshRaceTests {
    /// Stores in one process, each as the race sees it: the winner takes no lock (its lease found the loser's stale).
    enum Kind: String, CaseIterable, Sendable {
        case memory, files
        /// A store of a host's own that implements only the requirements without a default.
        case hostStore = "a host's store"

        /// A new, empty store of this kind (a file store under `directory`).
        func store(in directory: TemporaryDirectory) -> any TokenStore {
            switch self {
            case .memory: InMemoryTokenStore()
            case .files: FileTokenStore(directory: directory.url.appendingPathComponent("state"))
            case .hostStore: HostStore(base: InMemoryTokenStore())
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func theLoserOfARefreshRaceLeavesTheWinnersSession(_ kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = kind.store(in: directory)
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let winnerClient = try Simulated.appClient(simulated)
        let session = try await Simulated.session(winnerClient, at: simulated, in: store)
        let winner = TokenManager(client: winnerClient, store: Unlocked(base: store), key: session.key)
        // The loser holds the lock and has read the session; the winner refreshes before the loser's request leaves.
        let pending = Locked(true)
        let racing = InterleavingTransport(base: simulated.transport) { request in
            guard request.url.path.hasSuffix("/token"), pending.withLock({ first in defer { first = false }; return first }) else { return }
            try await winner.refresh()
        }
        let loserClient = try Simulated.appClient(
            simulated, environment: OAuthEnvironment(transport: racing, clock: simulated.clock, nonces: simulated.nonces))
        let loser = TokenManager(client: loserClient, store: store, key: session.key)
        let kept = try await loser.refresh()
        let stored = try #require(try await store.load(session.key), "the winner's session was removed by the loser's invalid_grant")
        #expect(stored.tokens.refreshToken != session.tokens.refreshToken, "the winner's rotated session is stored")
        #expect(kept.tokens == stored.tokens, "the loser goes on with the winner's session")
        #expect(try await winner.session().tokens == stored.tokens)
    }

    /// A refresh token the server rejects while the store still holds it signs the session out, in every store.
    @Test(arguments: Kind.allCases)
    func aRejectedRefreshTokenStillSignsOut(_ kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = kind.store(in: directory)
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let client = try Simulated.appClient(simulated)
        let session = try await Simulated.session(client, at: simulated, in: store)
        await simulated.failNext(.token, error: "invalid_grant")
        let error = try await #require(throws: SessionError.self) { try await TokenManager(client: client, store: store, key: session.key).refresh() }
        #expect(error.code == .signedOut)
        #expect(try await store.load(session.key) == nil)
    }

    /// The compare-and-delete of each store: a session holding another refresh token stays, the one holding it goes.
    @Test(arguments: Kind.allCases)
    func removingWhileHoldingComparesTheRefreshToken(_ kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = kind.store(in: directory)
        let session = Self.session(refreshToken: "refresh-2")
        #expect(try await store.remove(session.key, whileHolding: Secret("refresh-1")) == false, "nothing stored")
        try await store.save(session)
        #expect(try await store.remove(session.key, whileHolding: Secret("refresh-1")) == false)
        #expect(try await store.load(session.key) == session)
        #expect(try await store.remove(session.key, whileHolding: Secret("refresh-2")))
        #expect(try await store.load(session.key) == nil)
    }

    /// The file store's removal takes only the file it compared: a session saved by another process between the
    /// comparison and the removal (a sign-in saves without the lock) is put back.
    @Test func aSessionSavedDuringTheFileStoresComparisonStays() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("state"))
        let old = Self.session(refreshToken: "refresh-1")
        try await store.save(old)
        let path = store.path(for: old.key)
        // The newer session is written as another process writes it: to a temporary file, renamed over the session file.
        let newer = Self.session(refreshToken: "refresh-2")
        let other = FileTokenStore(directory: directory.url.appendingPathComponent("other"))
        try await other.save(newer)
        let otherPath = other.path(for: newer.key)
        let removed = try store.removeComparing(old.key, whileHolding: Secret("refresh-1")) {
            #expect(rename(otherPath, path) == 0)
        }
        #expect(!removed)
        #expect(try await store.load(old.key) == newer, "the session saved meanwhile is kept")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    static func session(refreshToken: String) -> StoredSession {
        StoredSession(
            key: SessionKey(providerID: "example"), variables: [:], clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!,
            tokens: TokenSet(
                accessToken: Secret("access-" + refreshToken), tokenType: "Bearer", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
                refreshToken: Secret(refreshToken), idToken: nil, scopes: [], issuedAt: Date(timeIntervalSince1970: 1_900_000_000)),
            updatedAt: Date(timeIntervalSince1970: 1_900_000_000))
    }

    // MARK: - Across processes

    /// Two processes sharing a FileTokenStore: the loser holds the session's lock and has read it; the winner, which
    /// found the lock stale, refreshes and saves first; the loser's refresh token is then rejected. The winner's session
    /// stays, and the loser goes on with it.
    @Test func twoProcessesLosingAndWinningARefreshRaceLeaveTheWinnersSession() async throws {
        let server = try await SimulatedProviderServer.start()
        let state = try TemporaryDirectory()
        let providers = try TemporaryDirectory()
        defer {
            state.cleanUp()
            providers.cleanUp()
        }
        do {
            // The worker's descriptor, `django` with its `port` variable (RefreshWorker resolves it so).
            var options = SimulatedProvider.DescriptorOptions()
            options.id = "django"
            options.extra = "variables:\n  port:\n    description: The simulated provider's port\n"
            let text = server.provider.descriptorText(options).replacingOccurrences(of: "127.0.0.1:\(server.port)", with: "127.0.0.1:{port}")
            let descriptor = try providers.write("django.yaml", text)
            let registry = try ProviderRegistry.load(directories: [descriptor.deletingLastPathComponent()], includeBundled: false, includeUserDirectory: false)
            let client = OAuthClient(
                provider: try registry.descriptor(named: "django").resolve(["port": "\(server.port)"]),
                configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: Simulated.redirect))
            let store = FileTokenStore(directory: state.url.appendingPathComponent("sessions"))
            let session = try await Simulated.session(client, at: server.provider, in: store)
            let worker = try builtProduct("RefreshWorker")
            let arguments = [store.directory.path, providers.url.path, "\(server.port)", SimulatedProvider.appClientID]
            let loser = try ChildProcess(worker, arguments + ["paused"], input: true)
            await loser.output(within: 60)
            #expect(loser.words == ["sending"], "\(loser.words) \(loser.stderr)")
            let winner = try ChildProcess(worker, arguments + ["unlocked"])
            _ = await winner.finished()
            #expect(winner.words.contains("done"), "\(winner.words) \(winner.stderr)")
            let won = try #require(try await store.load(session.key)?.tokens)
            #expect(won.refreshToken != session.tokens.refreshToken)
            loser.write("send\n")
            _ = await loser.finished()
            #expect(!loser.words.contains("signed-out"), "the loser signed the winner out: \(loser.words) \(loser.stderr)")
            #expect(loser.words.contains("done"), "\(loser.words) \(loser.stderr)")
            #expect(try await store.load(session.key)?.tokens == won, "the winner's session is stored")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// `base` without its lock: the process whose lease found the other holder's stale.
private struct Unlocked: TokenStore {
    let base: any TokenStore

    func load(_ key: SessionKey) async throws -> StoredSession? { try await base.load(key) }
    func save(_ session: StoredSession) async throws { try await base.save(session) }
    func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        try await base.remove(key, whileHolding: refreshToken)
    }
    func lock(_ key: SessionKey) async throws -> any TokenStoreLock { Unheld() }
    func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation { try await base.reserve(key) }

    struct Unheld: TokenStoreLock {
        func release() {}
    }
}

/// A host's own store, written before the compare-and-delete existed: it gets the protocol's default.
private struct HostStore: TokenStore {
    let base: InMemoryTokenStore

    func load(_ key: SessionKey) async throws -> StoredSession? { await base.load(key) }
    func save(_ session: StoredSession) async throws { await base.save(session) }
    func remove(_ key: SessionKey) async throws { await base.remove(key) }
    func lock(_ key: SessionKey) async throws -> any TokenStoreLock { try await base.lock(key) }
}
