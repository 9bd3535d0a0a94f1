import Foundation
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport
import Testing

/// Service tokens shared through PostgreSQL: instances that share only the database ask the token endpoint once.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresServiceTokenTests {
    @Test func fourInstancesWithTheirOwnPoolsMakeOneRequest() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        let provider = try TestDescriptor(
            extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\n"
        ).provider()
        let transport = ScriptedTransport { _, count in
            // Slow enough that every instance is waiting while the first one asks.
            try await Task.sleep(nanoseconds: 300_000_000)
            return tokenResponse("shared-\(count)")
        }
        var stores: [PostgresTokenStore] = []
        var pools: [Task<Void, Never>] = []
        for _ in 0..<4 {
            let store = try PostgresTokenStore(
                configuration: postgres.configuration, keyring: SessionKeyring(current: TestPostgres.firstKey), table: table)
            pools.append(Task { await store.run() })
            stores.append(store)
        }
        defer { pools.forEach { $0.cancel() } }
        try await stores[0].migrate()
        let instances = stores.map { store in
            ServiceTokens(
                client: OAuthClient(
                    provider: provider, configuration: .service(clientID: "svc", clientSecret: Secret("s")),
                    environment: OAuthEnvironment(transport: transport)),
                store: store)
        }
        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"])
        let tokens = try await withThrowingTaskGroup(of: Secret.self) { group in
            for instance in instances {
                for _ in 0..<25 { group.addTask { try await instance.accessToken(request) } }
            }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
        #expect(transport.count("/token") == 1, "one request for four instances")
        #expect(tokens == [Secret("shared-1")])
        let row = try await postgres.admin("SELECT count(*)::int FROM \(table)")
        #expect(try row.first?.decode(Int.self) == 1)
    }
}
