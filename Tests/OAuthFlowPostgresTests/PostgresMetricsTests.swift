import Foundation
import MetricsTestKit
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport
import Testing

/// What the PostgreSQL store reports: how long each lock waited for another instance's refresh, and the refresh
/// answers it recovered from an instance that did not finish.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresMetricsTests {
    @Test func lockWaitsAndRecoveriesAreReported() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        let metrics = TestMetrics()
        let keyring = try SessionKeyring(current: TestPostgres.firstKey)
        let first = try PostgresTokenStore(
            configuration: postgres.configuration, keyring: keyring, table: table, timeout: .seconds(30), metrics: metrics)
        let second = try PostgresTokenStore(
            configuration: postgres.configuration, keyring: keyring, table: table, timeout: .seconds(30), metrics: metrics)
        let pools = [Task { await first.run() }, Task { await second.run() }]
        defer { pools.forEach { $0.cancel() } }
        try await first.migrate()
        let session = InterruptedRefresh.session()
        try await first.save(session)

        // One instance holds the session for 300 ms after the other has asked for it (the wait is timed from the
        // asking, so the 300 ms count only once the waiting task has run: on a loaded machine it may start late).
        let held = try await first.lock(session.key)
        let (asking, asked) = AsyncStream<Void>.makeStream()
        let waiting = Task {
            asked.finish()
            return try await second.lock(session.key)
        }
        for await _ in asking {}
        try await Task.sleep(for: .milliseconds(300))
        held.release()
        try await waiting.value.release()
        let waits = metrics.timers.filter { $0.label == "oauthflow_postgres_lock_wait_seconds" }
        #expect(waits.map(\.dimensions.description) == [[("provider", session.key.providerID), ("outcome", "acquired")]].map(\.description))
        let durations = waits.flatMap(\.values).sorted()
        #expect(durations.count == 2 && durations[1] >= 250_000_000, "\(durations) ns: the second waited for the first")

        // An instance records a refresh answer and ends before committing it: the next read recovers it, and counts it.
        var refreshed = session
        refreshed.tokens.refreshToken = Secret("refresh-after-the-crash")
        let lock = try await first.lock(session.key)
        let reservation = try await first.reserve(session.key)
        try await reservation.record(refreshed)
        lock.release()
        // The release reaches PostgreSQL on the lock's own connection a moment later; until then the record is still
        // held and a read rightly leaves it. On a loaded machine that moment was long enough for one read (CI, once).
        var read = try await second.load(session.key)?.tokens.refreshToken?.value
        for _ in 0..<100 where read != "refresh-after-the-crash" {
            try await Task.sleep(for: .milliseconds(100))
            read = try await second.load(session.key)?.tokens.refreshToken?.value
        }
        #expect(read == "refresh-after-the-crash")
        let recovered = metrics.counters.filter {
            $0.label == "oauthflow_refreshes_total" && $0.dimensions.contains { $0 == ("outcome", "recovered") }
        }
        #expect(recovered.reduce(0) { $0 + $1.totalValue } == 1)
        await reservation.abandon()
        for value in (metrics.counters.flatMap(\.dimensions) + metrics.timers.flatMap(\.dimensions)).map(\.1) {
            #expect(!value.contains("refresh-") && !value.contains(postgres.password) && !value.contains("?"), "a label carries \(value)")
        }
    }
}
