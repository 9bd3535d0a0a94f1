#if Postgres
import Foundation
import OAuthFlow
import PostgresNIO

/// Identifiers seen (logout tokens' `jti`s), in PostgreSQL, so that a replay to any instance is refused.
///
/// One row per identifier in its own table (``migrate()`` creates it), kept until the identifier's expiry;
/// expired rows are deleted now and then, and an expired one may be recorded again. It uses the connection
/// pool, deadlines and error reporting of the ``PostgresTokenStore`` it is made with.
public final class PostgresReplayRegistry: ReplayRegistry, Sendable {
    public let store: PostgresTokenStore
    public let table: String
    private let writes = Locked(0)

    /// - Parameters:
    ///   - store: The token store whose connection pool, deadlines and error reporting the registry uses.
    ///   - table: A plain lower-case SQL name (letters, digits, `_`; 63 at most).
    public init(store: PostgresTokenStore, table: String = "oauthflow_replays") throws {
        guard PostgresTokenStore.isPlainName(table) else {
            throw TokenStoreError(
                .io, "the table name \(table.debugDescription) is not a plain SQL name (a-z, 0-9, _; at most 63, not starting with a digit)")
        }
        self.store = store
        self.table = table
    }

    /// The SQL that ``migrate()`` runs: idempotent.
    public static func migrationSQL(table: String = "oauthflow_replays") -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (id text PRIMARY KEY, expires_at timestamptz NOT NULL)"
    }

    /// Creates the table when it is missing; instances starting together serialise on an advisory lock of the
    /// table's own, so concurrent `CREATE TABLE IF NOT EXISTS` cannot collide.
    public func migrate() async throws {
        try await store.withDeadline("create the replay table") {
            try await self.store.client.withTransaction(logger: self.store.logger) { connection in
                let lock = PostgresTokenStore.migrationLockID(table: self.table)
                try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: self.store.logger)
                try await connection.query(PostgresQuery(unsafeSQL: Self.migrationSQL(table: self.table)), logger: self.store.logger)
            }
        }
    }

    public func firstUse(of identifier: String, until expiry: Date) async throws -> Bool {
        let inserted = try await store.withDeadline("record a logout token") {
            try await self.store.client.query(
                """
                INSERT INTO \(unescaped: self.table) AS r (id, expires_at) VALUES (\(identifier), \(expiry))
                ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE r.expires_at < now()
                RETURNING r.id
                """, logger: self.store.logger
            ).collect().count == 1
        }
        if writes.withLock({ count -> Int in
            count += 1
            return count
        }) % 256 == 0 {
            _ = try? await store.withDeadline("forget expired logout tokens") {
                try await self.store.client.query("DELETE FROM \(unescaped: self.table) WHERE expires_at < now()", logger: self.store.logger)
            }
        }
        return inserted
    }

    public func isRecorded(_ identifier: String) async throws -> Bool {
        try await store.withDeadline("look up a recorded identifier") {
            try await self.store.client.query(
                "SELECT 1 FROM \(unescaped: self.table) WHERE id = \(identifier) AND expires_at >= now()", logger: self.store.logger
            ).collect().count == 1
        }
    }

    public func forget(_ identifier: String) async throws {
        try await store.withDeadline("forget a recorded identifier") {
            try await self.store.client.query("DELETE FROM \(unescaped: self.table) WHERE id = \(identifier)", logger: self.store.logger)
        }
    }
}
#endif
