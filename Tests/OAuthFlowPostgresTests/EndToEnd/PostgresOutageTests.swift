import Crypto
import Foundation
import Logging
import NIOCore
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport
import PostgresNIO
import ServiceLifecycle
import Testing

/// PostgreSQL going away in the middle of a refresh, or while an instance waits for another's.
@Suite(.serialized, .enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresOutageTests {
    /// A role of its own, so that cutting its connections touches no other test, with rights on `table` only
    /// (created here): no grant on the shared schema, which other suites change at the same time.
    private func withRole(
        _ postgres: TestPostgres, table: String,
        _ body: (String, PostgresClient.Configuration) async throws -> Void
    ) async throws {
        let role = "outage_" + UUID().uuidString.lowercased().prefix(8)
        _ = try await postgres.admin("CREATE ROLE \(role) LOGIN PASSWORD 'role-password-123'")
        try await postgres.withStore(table: table) { _ in }
        _ = try await postgres.admin("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table) TO \(role)")
        var configuration = postgres.configuration
        configuration.username = role
        configuration.password = "role-password-123"
        do {
            try await body(role, configuration)
        } catch {
            _ = try? await postgres.admin("ALTER ROLE \(role) LOGIN")
            throw error
        }
        // Tidying up is best effort: a role left in the test cluster harms nothing.
        _ = try? await postgres.admin("ALTER ROLE \(role) LOGIN")
        _ = try? await postgres.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        _ = try? await postgres.admin("DROP OWNED BY \(role)")
        _ = try? await postgres.admin("DROP ROLE \(role)")
    }

    @Test func aServerLostBetweenTheAnswerAndTheWriteKeepsTheAnswerAndSavesItOnceBack() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        try await withRole(postgres, table: table) { role, configuration in
            let expired = pgSampleSession(expiresIn: -60)
            try await postgres.withStore(table: table, migrate: false) { store in
                try await store.save(expired)
            }
            // A store with a short deadline, whose connections will be cut.
            try await postgres.withStore(table: table, configuration: configuration, timeout: .seconds(3), migrate: false) { store in
                // The provider answers after PostgreSQL went away (every connection of the role cut, no new ones).
                let transport = ScriptedTransport { _, _ in
                    _ = try await postgres.admin("ALTER ROLE \(role) NOLOGIN")
                    _ = try await postgres.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
                    return tokenResponse("access-new", refresh: "refresh-rotated")
                }
                let provider = try TestDescriptor().provider()
                let client = OAuthClient(
                    provider: provider, configuration: ClientConfiguration(clientID: "client", redirectURI: expired.redirectURI),
                    environment: OAuthEnvironment(transport: transport))
                let manager = TokenManager(client: client, store: store, key: expired.key)
                let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
                #expect(error.code == .storeUnavailable)
                #expect(error.message.contains("could not be saved") && error.message.contains("keeps using them"), "\(error)")
                #expect(!error.message.contains("role-password-123"))
                // This process goes on with the new tokens; nothing is sent again.
                #expect(try await manager.validAccessToken().value == "access-new")
                #expect(transport.count("/token") == 1)
                // PostgreSQL is back: the retry stores the rotated refresh token.
                _ = try await postgres.admin("ALTER ROLE \(role) LOGIN")
                var stored: StoredSession?
                for _ in 0..<100 {
                    stored = try? await store.load(expired.key)
                    if stored?.tokens.refreshToken?.value == "refresh-rotated" { break }
                    try await Task.sleep(nanoseconds: 200_000_000)
                }
                #expect(stored?.tokens.refreshToken?.value == "refresh-rotated", "the rotated refresh token was saved once PostgreSQL came back")
                #expect(stored?.tokens.accessToken.value == "access-new")
            }
        }
    }

    /// A refreshed session the database did not take is still pending when the host's `ServiceGroup` shuts
    /// down: the store keeps running until PostgreSQL takes it, and stops only then.
    @Test func aGracefulShutdownSavesAPendingRefreshBeforeTheStoreStops() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        try await withRole(postgres, table: table) { role, configuration in
            let expired = pgSampleSession(expiresIn: -60)
            try await postgres.withStore(table: table, migrate: false) { store in
                try await store.save(expired)
            }
            let store = try PostgresTokenStore(
                configuration: configuration, keyring: SessionKeyring(current: TestPostgres.firstKey),
                table: table, timeout: .seconds(3))
            let group = ServiceGroup(
                services: [store], gracefulShutdownSignals: [], cancellationSignals: [],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            let stopped = Locked(false)
            let running = Task {
                try await group.run()
                stopped.withLock { $0 = true }
            }
            // The provider answers after PostgreSQL went away: the refresh cannot be saved.
            let transport = ScriptedTransport { _, _ in
                _ = try await postgres.admin("ALTER ROLE \(role) NOLOGIN")
                _ = try await postgres.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
                return tokenResponse("access-new", refresh: "refresh-rotated")
            }
            do {
                // The manager goes with this scope, and its own retries with it: what saves the session now is the store.
                let client = OAuthClient(
                    provider: try TestDescriptor().provider(),
                    configuration: ClientConfiguration(clientID: "client", redirectURI: expired.redirectURI),
                    environment: OAuthEnvironment(transport: transport))
                let manager = TokenManager(client: client, store: store, key: expired.key)
                let error = try await #require(throws: SessionError.self) { try await manager.validAccessToken() }
                #expect(error.code == .storeUnavailable)
            }
            await group.triggerGracefulShutdown()
            // PostgreSQL is still away: the store does not stop.
            try await Task.sleep(for: .seconds(2))
            #expect(!stopped.current, "the store stopped with a refreshed session unsaved")
            _ = try await postgres.admin("ALTER ROLE \(role) LOGIN")
            try await running.value
            #expect(stopped.current)
            let stored = try await postgres.withStore(table: table, migrate: false) { try await $0.load(expired.key) }
            #expect(stored?.tokens.refreshToken?.value == "refresh-rotated", "the rotated refresh token was saved before the store stopped")
            #expect(stored?.tokens.accessToken.value == "access-new")
            #expect(transport.count("/token") == 1)
        }
    }

    /// The forged-ID-token refresh of InterruptedRefreshTests against the PostgreSQL store: while the check
    /// stalls, other instances read the verified session; when it fails, only the rotated refresh token is kept.
    @Test func anUncheckedIDTokenIsNeverAdopted() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        try await postgres.withStore(table: table) { store in
            var session = InterruptedRefresh.session()
            session.key = SessionKey(providerID: "example", account: "forged")
            try await store.save(session)
            let task = try await InterruptedRefresh.stalledRefresh(store: store, key: session.key) {
                try await postgres.admin("SELECT received IS NOT NULL FROM \(table) WHERE account = 'forged'").first?.decode(Bool.self) ?? false
            }
            #expect(try await store.load(session.key)?.tokens.idToken?.value == InterruptedRefresh.verifiedIDToken)
            await task.value
            InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await store.load(session.key))
        }
    }

    @Test func aWaiterFailsWithinTheDeadlineWhenTheServerStopsAnswering() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        try await withRole(postgres, table: table) { role, configuration in
            let key = pgSampleSession().key
            try await postgres.withStore(table: table) { holder in
                let held = try await holder.lock(key)
                defer { held.release() }
                try await postgres.withStore(table: table, configuration: configuration, timeout: .seconds(2), migrate: false) { waiter in
                    let started = ContinuousClock.now
                    let waiting = Task { try await waiter.lock(key) }
                    // The waiter's backend is polling for the lock; then PostgreSQL stops answering it.
                    var pids: [Int32] = []
                    for _ in 0..<50 where pids.isEmpty {
                        try await Task.sleep(nanoseconds: 100_000_000)
                        pids = try await postgres.admin("SELECT pid FROM pg_stat_activity WHERE usename = '\(role)' AND xact_start IS NOT NULL")
                            .map { try $0.decode(Int32.self) }
                    }
                    try #require(!pids.isEmpty, "the waiter's transaction is open")
                    for pid in pids { kill(pid, SIGSTOP) }
                    defer { for pid in pids { kill(pid, SIGCONT) } }
                    let error = try await #require(throws: TokenStoreError.self) { _ = try await waiting.value }
                    let waited = ContinuousClock.now - started
                    #expect(error.code == .unavailable)
                    #expect(error.message.contains("did not answer within"), "\(error)")
                    // Within the store's 2 s deadline (plus the time to find the backend), not the 120 s lock wait.
                    #expect(waited < .seconds(60), "waited \(waited)")
                }
            }
        }
        _ = try await postgres.admin("DROP TABLE \(table)")
    }
}
