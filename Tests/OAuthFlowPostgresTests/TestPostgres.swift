import Crypto
import Foundation
import NIOCore
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport
import PostgresNIO
import Testing

/// The private PostgreSQL cluster that scripts/test.sh starts.
struct TestPostgres {
    let environment: [String: String]
    let configuration: PostgresClient.Configuration

    static let current: TestPostgres? = {
        let environment = ProcessInfo.processInfo.environment
        guard let host = environment["OAUTHFLOW_TEST_PG_HOST"], let port = environment["OAUTHFLOW_TEST_PG_PORT"].flatMap(Int.init),
            let user = environment["OAUTHFLOW_TEST_PG_USER"], let database = environment["OAUTHFLOW_TEST_PG_DATABASE"]
        else {
            return nil
        }
        let configuration = PostgresClient.Configuration(
            host: host, port: port, username: user,
            password: environment["OAUTHFLOW_TEST_PG_PASSWORD"], database: database, tls: .disable)
        return TestPostgres(environment: environment.filter { $0.key.hasPrefix("OAUTHFLOW_TEST_PG_") }, configuration: configuration)
    }()

    /// Run when the cluster is there, and always in CI (where its absence is a failure).
    static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    static let skipReason: Comment = "needs PostgreSQL: run `bash scripts/test.sh`"

    static func require() throws -> TestPostgres {
        try #require(current, "OAUTHFLOW_TEST_PG_PORT is not set: PostgreSQL was not started (run `bash scripts/test.sh`)")
    }

    var password: String { configuration.password ?? "" }
    var target: String {
        "postgresql://\(configuration.username)@\(configuration.host ?? ""):\(configuration.port ?? 0)/\(configuration.database ?? "")"
    }

    /// The key the worker processes use too.
    static let firstKey = try! SessionKeyring.Key(
        id: "test-1", key: SymmetricKey(data: SHA256.hash(data: Data("oauthflow postgres test key 1".utf8))))
    static let secondKey = try! SessionKeyring.Key(
        id: "test-2", key: SymmetricKey(data: SHA256.hash(data: Data("oauthflow postgres test key 2".utf8))))

    /// A table of its own for one test.
    static func freshTable() -> String { "sessions_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16) }

    /// Runs `body` with a migrated store whose pool runs for the body's duration. The default deadline is
    /// 30 s: a full run starts dozens of these at once on two cores, and 10 s was missed there.
    func withStore<T>(
        _ keyring: SessionKeyring? = nil, table: String, configuration: PostgresClient.Configuration? = nil,
        timeout: Duration = .seconds(30), migrate: Bool = true,
        _ body: (PostgresTokenStore) async throws -> T
    ) async throws -> T {
        let store = try PostgresTokenStore(
            configuration: configuration ?? self.configuration,
            keyring: keyring ?? SessionKeyring(current: Self.firstKey), table: table, timeout: timeout)
        let pool = Task { await store.run() }
        defer { pool.cancel() }
        if migrate { try await store.migrate() }
        return try await body(store)
    }

    /// Runs SQL as the cluster's superuser.
    func admin(_ sql: String) async throws -> [PostgresRow] {
        let client = PostgresClient(configuration: configuration)
        let pool = Task { await client.run() }
        defer { pool.cancel() }
        return try await client.query(PostgresQuery(unsafeSQL: sql)).collect()
    }
}

func pgSampleSession(account: String = "alice", accessToken: String = "access-token-0123456789", expiresIn: TimeInterval = 3600) -> StoredSession {
    StoredSession(
        key: SessionKey(providerID: "django", account: account), variables: ["port": "1"], clientID: "client",
        redirectURI: URL(string: "http://127.0.0.1:53682/callback")!,
        tokens: TokenSet(
            accessToken: Secret(accessToken), tokenType: "bearer",
            expiresAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + expiresIn),
            refreshToken: Secret("refresh-token-abcdefghij"), idToken: nil, scopes: ["read"],
            issuedAt: Date(timeIntervalSince1970: 1_800_000_000)),
        updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
}
