#if Postgres
import CoreMetrics
import Crypto
import Foundation
import Logging
import NIOCore
import OAuthFlow
import PostgresNIO

/// Sessions in PostgreSQL, shared by every instance of a service, sealed at rest.
///
/// Run the store (``run()``, a swift-service-lifecycle `Service`) for as long as it is used, and create its table
/// with ``migrate()``.
public final class PostgresTokenStore: SessionDirectory, Sendable {
    /// The table the sessions live in.
    public let table: String
    /// `postgresql://USER@HOST:PORT/DATABASE`: where the store connects, for messages (no password).
    public let target: String
    /// The longest any single operation waits for the server, connecting included.
    public let timeout: Duration
    /// The longest ``lock(_:)`` waits for another instance's refresh.
    public let lockTimeout: Duration

    let client: PostgresClient
    let keyring: SessionKeyring
    let logger: Logger
    /// Counts lock waits and the refresh answers recovered from an instance that died (Docs/operations.md).
    let instruments: Instruments
    /// Why the pool's last connection attempt failed, for errors that would otherwise only say "timed out".
    private let connectionFailures = ConnectionFailureRecorder()
    /// Backend process ids of the lock connections this process holds, by session.
    let heldLocks = Locked<[SessionKey: Int32]>([:])
    /// Refreshes under way and refreshed sessions to save again, which ``run()`` finishes before it returns.
    let pendingSaves: PendingSaves

    /// - Parameters:
    ///   - configuration: How to reach PostgreSQL (PostgresNIO's client configuration).
    ///   - keyring: Seals and opens sessions.
    ///   - table: A plain lower-case SQL name (letters, digits, `_`; 63 at most).
    ///   - timeout: Deadline of each operation (default 10 s).
    ///   - lockTimeout: How long to wait for another instance's refresh (default 120 s).
    ///   - logger: Receives what the store does (saves retried, sessions recovered) and the pool's connection
    ///     failures, at info or below; never a token or a sealing key. Discards everything by default.
    ///   - metrics: Receives how long ``lock(_:)`` waited and how many refresh answers were recovered from an
    ///     instance that died (Docs/operations.md); none by default.
    public init(
        configuration: PostgresClient.Configuration, keyring: SessionKeyring, table: String = "oauthflow_sessions",
        timeout: Duration = .seconds(10), lockTimeout: Duration = .seconds(120),
        logger: Logger = Logger(label: "oauthflow.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws {
        guard Self.isPlainName(table) else {
            throw TokenStoreError(
                .io, "the table name \(table.debugDescription) is not a plain SQL name (a-z, 0-9, _; at most 63, not starting with a digit)")
        }
        self.table = table
        self.target = Self.describe(configuration)
        self.timeout = timeout
        self.lockTimeout = lockTimeout
        self.keyring = keyring
        self.logger = logger
        self.instruments = Instruments.counting(metrics)
        self.pendingSaves = PendingSaves(logger: logger)
        var configuration = configuration
        configuration.options.connectTimeout = min(configuration.options.connectTimeout, timeout)
        let failures = connectionFailures
        var background = Logger(label: logger.label) { _ in RecordingLogHandler(recorder: failures, forward: logger.handler) }
        background.logLevel = min(logger.logLevel, .info)
        self.client = PostgresClient(configuration: configuration, backgroundLogger: background)
    }

    // MARK: - Schema

    /// The SQL that ``migrate()`` runs, statement by statement: idempotent, safe to run from many instances
    /// at once. `provider_sid` and `provider_sub` hold SHA-256 digests of the provider session a row belongs
    /// to (issuer and `sid`, issuer and `sub`), so that back-channel logout finds its sessions without
    /// opening every sealed row, and without keeping who signed in in the clear.
    public static func migrationStatements(table: String = "oauthflow_sessions") -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                provider_id     text        NOT NULL,
                account         text        NOT NULL,
                key_id          text        NOT NULL,
                sealed          bytea       NOT NULL,
                received_key_id text,
                received        bytea,
                received_pid    integer,
                updated_at      timestamptz NOT NULL DEFAULT now(),
                provider_sid    text,
                provider_sub    text,
                PRIMARY KEY (provider_id, account)
            )
            """
        ] + upgradeStatements(table: table)
    }

    /// What a table made by an earlier version lacks: the provider session digests and their indexes.
    static func upgradeStatements(table: String) -> [String] {
        [
            "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS provider_sid text, ADD COLUMN IF NOT EXISTS provider_sub text",
            "CREATE INDEX IF NOT EXISTS \(table)_sid ON \(table) (provider_id, provider_sid) WHERE provider_sid IS NOT NULL",
            "CREATE INDEX IF NOT EXISTS \(table)_sub ON \(table) (provider_id, provider_sub) WHERE provider_sub IS NOT NULL",
        ]
    }

    /// ``migrationStatements(table:)`` as one script, for running by hand (`psql -f`).
    public static func migrationSQL(table: String = "oauthflow_sessions") -> String {
        migrationStatements(table: table).map { $0 + ";" }.joined(separator: "\n")
    }

    /// Creates the table when it is missing, and adds what later versions need. Instances starting together
    /// serialise on an advisory lock of the table's own, so concurrent `CREATE TABLE IF NOT EXISTS` cannot
    /// collide; a table that is up to date is only read (its catalog), never locked.
    public func migrate() async throws {
        try await withDeadline("create the session table") {
            try await self.client.withTransaction(logger: self.logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLockID(table: self.table)))", logger: self.logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: Self.migrationStatements(table: self.table)[0]), logger: self.logger)
                // The catalog, not information_schema (a view that reads every table's columns): two columns, two indexes.
                let present =
                    try await connection.query(
                        """
                        SELECT (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass(\(self.table))
                                   AND attname IN ('provider_sid', 'provider_sub') AND NOT attisdropped)
                             + (to_regclass(\(self.table + "_sid")) IS NOT NULL)::int + (to_regclass(\(self.table + "_sub")) IS NOT NULL)::int
                        """, logger: self.logger
                    ).collect().first?.decode(Int64.self) ?? 0
                guard present < 4 else { return }
                for statement in Self.upgradeStatements(table: self.table) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
        }
    }

    /// The digest kept in `provider_sid` or `provider_sub`: hex SHA-256 of the issuer, a NUL and the value.
    static func providerDigest(issuer: String, _ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return Hexadecimal.lowercase(SHA256.hash(data: Data("\(issuer)\u{0}\(value)".utf8)))
    }

    // MARK: - TokenStore

    public func load(_ key: SessionKey) async throws -> StoredSession? {
        let row = try await withDeadline("read the session \(key)") {
            try await self.client.query(
                """
                SELECT key_id, sealed, received IS NOT NULL FROM \(unescaped: self.table)
                 WHERE provider_id = \(key.providerID) AND account = \(key.account)
                """, logger: self.logger
            ).collect().first
        }
        guard let row else { return nil }
        let (keyID, sealed, hasRecorded) = try decodeRow(row, key: key)
        if hasRecorded, let recovered = try await recoverRecorded(key) { return recovered }
        return try open(sealed, keyID: keyID, key: key)
    }

    /// The session a refresher recorded, made the session when that refresher is gone.
    ///
    /// A refresher holds the session's advisory lock on its own backend from before it spends
    /// the refresh token until after it commits; a recorded session whose backend holds no
    /// advisory lock any more was left by an instance that died (or lost its connection).
    /// - Returns: The promoted session, or nil when the recording is still in progress (or gone).
    private func recoverRecorded(_ key: SessionKey) async throws -> StoredSession? {
        let row = try await withDeadline("recover the recorded session \(key)") {
            try await self.client.query(
                """
                UPDATE \(unescaped: self.table) AS s
                   SET key_id = s.received_key_id, sealed = s.received,
                       received = NULL, received_key_id = NULL, received_pid = NULL, updated_at = now()
                 WHERE s.provider_id = \(key.providerID) AND s.account = \(key.account) AND s.received IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM pg_locks l
                                    WHERE l.locktype = 'advisory' AND l.granted AND l.pid = s.received_pid)
                RETURNING s.key_id, s.sealed, false
                """, logger: self.logger
            ).collect().first
        }
        guard let row else { return nil }
        let (keyID, sealed, _) = try decodeRow(row, key: key)
        logger.info("recovered a refreshed session recorded by an instance that did not finish", metadata: ["session": "\(key)"])
        instruments.count(.refreshes, key.providerID, "recovered", Instruments.none)
        return try open(sealed, keyID: keyID, key: key)
    }

    /// What a row holds of `session`: it sealed, with the digests of its provider session (`provider_sid`,
    /// `provider_sub`) that ``keys(of:matching:)`` finds it by.
    func row(for session: StoredSession) throws -> (keyID: String, sealed: ByteBuffer, sid: String?, sub: String?) {
        let (keyID, sealed) = try seal(session)
        let owner = session.providerSession
        return (
            keyID, sealed, owner.flatMap { Self.providerDigest(issuer: $0.issuer, $0.sessionID) },
            owner.flatMap { Self.providerDigest(issuer: $0.issuer, $0.subject) }
        )
    }

    public func save(_ session: StoredSession) async throws {
        let (keyID, sealed, sid, sub) = try row(for: session)
        let key = session.key
        try await withDeadline("save the session \(key)") {
            try await self.client.query(
                """
                INSERT INTO \(unescaped: self.table) AS s (provider_id, account, key_id, sealed, provider_sid, provider_sub)
                VALUES (\(key.providerID), \(key.account), \(keyID), \(sealed), \(sid), \(sub))
                ON CONFLICT (provider_id, account) DO UPDATE
                   SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, provider_sid = EXCLUDED.provider_sid,
                       provider_sub = EXCLUDED.provider_sub,
                       received = NULL, received_key_id = NULL, received_pid = NULL, updated_at = now()
                """, logger: self.logger)
        }
    }

    public func remove(_ key: SessionKey) async throws {
        try await withDeadline("remove the session \(key)") {
            try await self.client.query(
                "DELETE FROM \(unescaped: self.table) WHERE provider_id = \(key.providerID) AND account = \(key.account)",
                logger: self.logger)
        }
    }

    /// The sessions of `providerID` that belong to the provider session `match` names, found by the digests
    /// ``save(_:)`` keeps beside each sealed row (sessions stored before this version have none, and are not found).
    public func keys(of providerID: String, matching match: ProviderSession.Match) async throws -> [SessionKey] {
        let sid = Self.providerDigest(issuer: match.issuer, match.sessionID)
        let sub = Self.providerDigest(issuer: match.issuer, match.subject)
        return try await withDeadline("find the sessions \(match) ended") {
            let rows =
                switch (sid, sub) {
                case let (sid?, sub?):
                    try await self.client.query(
                        """
                        SELECT account FROM \(unescaped: self.table)
                         WHERE provider_id = \(providerID) AND provider_sid = \(sid) AND provider_sub = \(sub) ORDER BY account
                        """, logger: self.logger)
                case let (sid?, nil):
                    try await self.client.query(
                        "SELECT account FROM \(unescaped: self.table) WHERE provider_id = \(providerID) AND provider_sid = \(sid) ORDER BY account",
                        logger: self.logger)
                case let (nil, sub?):
                    try await self.client.query(
                        "SELECT account FROM \(unescaped: self.table) WHERE provider_id = \(providerID) AND provider_sub = \(sub) ORDER BY account",
                        logger: self.logger)
                case (nil, nil):
                    try await self.client.query("SELECT account FROM \(unescaped: self.table) WHERE false", logger: self.logger)
                }
            var keys: [SessionKey] = []
            for try await account in rows.decode(String.self) {
                keys.append(SessionKey(providerID: providerID, account: account))
            }
            return keys
        }
    }

    /// Every stored session key, for administration (the sealed contents are not opened).
    public func keys() async throws -> [SessionKey] {
        try await withDeadline("list the sessions") {
            var keys: [SessionKey] = []
            let rows = try await self.client.query(
                "SELECT provider_id, account FROM \(unescaped: self.table) ORDER BY provider_id, account", logger: self.logger)
            for try await (provider, account) in rows.decode((String, String).self) {
                keys.append(SessionKey(providerID: provider, account: account))
            }
            return keys
        }
    }

    /// Waits (up to ``lockTimeout``) until no other instance holds this session, then holds it.
    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock {
        let lock = AdvisoryLock(key: key, store: self)
        let asked = ContinuousClock.now
        let pid: Int32
        do {
            pid = try await lock.acquire(id: Self.lockID(key))
        } catch {
            instruments.record(.postgresLockWait, ContinuousClock.now - asked, key.providerID, "failed")
            throw error
        }
        instruments.record(.postgresLockWait, ContinuousClock.now - asked, key.providerID, "acquired")
        lock.pid = pid
        heldLocks.withLock { $0[key] = pid }
        return lock
    }

    /// Nothing to claim ahead in a database; the reservation records and commits in the row.
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation {
        RowReservation(store: self, key: key, holder: heldLocks.withLock { $0[key] })
    }

    /// The key id, the sealed session and whether a refresh answer is recorded beside it.
    private func decodeRow(_ row: PostgresRow, key: SessionKey) throws -> (String, ByteBuffer, Bool) {
        do {
            return try row.decode((String, ByteBuffer, Bool).self)
        } catch {
            throw TokenStoreError(.corrupt, "the row of \(key) in \(table) has unexpected columns; run migrate()", path: "\(table)/\(key)")
        }
    }

    // MARK: - Deadlines and errors

    /// Runs `body` with the store's deadline; any failure becomes a `TokenStoreError` naming the server.
    ///
    /// The deadline returns on time even when the operation is slow to notice cancellation
    /// (a pool still connecting): the operation is cancelled and left to finish on its own.
    @discardableResult
    func withDeadline<T: Sendable>(_ action: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = self.timeout
        let failures = connectionFailures
        let target = self.target
        do {
            // Whichever of the two ends first resumes; the other is cancelled on the way out.
            var tasks: [Task<Void, Never>] = []
            defer { for task in tasks { task.cancel() } }
            let value: T = try await withCheckedThrowingContinuation { continuation in
                let once = Locked(Optional(continuation))
                tasks.append(
                    Task {
                        do { once.resume(returning: try await body()) } catch { once.resume(throwing: error) }
                    })
                tasks.append(
                    Task {
                        do { try await Task.sleep(for: timeout) } catch { return }
                        if let reason = failures.latest {
                            once.resume(
                                throwing: TokenStoreError(.unavailable, "cannot \(action): no connection to \(target) within \(timeout): \(reason)"))
                        } else {
                            once.resume(throwing: TokenStoreError(.unavailable, "cannot \(action): \(target) did not answer within \(timeout)"))
                        }
                    })
            }
            failures.clear()
            return value
        } catch {
            throw failure(error, doing: action)
        }
    }

    /// A store error for `error`, naming the server and never its password.
    func failure(_ error: any Error, doing action: String) -> TokenStoreError {
        if let error = error as? TokenStoreError { return error }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return TokenStoreError(.io, "cannot \(action): \(target) answered: \(message)\(state)")
            }
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return TokenStoreError(
                .unavailable, "cannot \(action): the connection to \(target) failed (\(error.code)\(cause)); the session was not changed")
        }
        if error is CancellationError {
            return TokenStoreError(.unavailable, "cannot \(action): cancelled while waiting for \(target)")
        }
        return TokenStoreError(.unavailable, "cannot \(action) at \(target): \(error)")
    }

    // MARK: - Names

    /// The advisory lock id that serialises the migrations of one table: instances migrating other tables
    /// do not wait for each other.
    static func migrationLockID(table: String) -> Int64 {
        let digest = SHA256.hash(data: Data("oauthflow-migration\u{0}\(table)".utf8))
        return digest.withUnsafeBytes { raw in raw.loadUnaligned(as: Int64.self) }
    }

    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(first >= 0x30 && first <= 0x39), name.utf8.count <= 63 else { return false }
        return name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    static func describe(_ configuration: PostgresClient.Configuration) -> String {
        let user = configuration.username
        let database = configuration.database.map { "/\($0)" } ?? ""
        if let socket = configuration.unixSocketPath {
            return "postgresql://\(user)@\(socket.replacingOccurrences(of: "/", with: "%2F"))\(database)"
        }
        let host = configuration.host ?? "localhost"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgresql://\(user)@\(shownHost):\(configuration.port ?? 5432)\(database)"
    }
}
#endif
