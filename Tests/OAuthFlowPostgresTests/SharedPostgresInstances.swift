import Foundation
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport

/// Two (or more) instances of an app whose sessions live in one fresh PostgreSQL table, each with its own store and
/// connection pool, and the simulated provider they sign in at: what the tests of a change made on one instance and seen
/// on the others share.
struct SharedPostgresInstances {
    let simulated: SimulatedProvider
    let directory: TemporaryDirectory
    let stores: [PostgresTokenStore]
    let instances: [OAuth]
    private let pools: [Task<Void, Never>]

    init(_ options: SimulatedProvider.DescriptorOptions = .init(), count: Int = 2) async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        let simulated = try SimulatedProvider()
        let directory = try TemporaryDirectory()
        try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("\(options.id).yaml"))
        var stores: [PostgresTokenStore] = []
        var pools: [Task<Void, Never>] = []
        for _ in 0..<count {
            let store = try PostgresTokenStore(
                configuration: postgres.configuration, keyring: SessionKeyring(current: TestPostgres.firstKey), table: table)
            pools.append(Task { await store.run() })
            stores.append(store)
        }
        self.pools = pools
        try await stores[0].migrate()
        self.simulated = simulated
        self.directory = directory
        self.stores = stores
        instances = stores.map { store in
            OAuth(
                OAuth.Configuration(
                    providerDirectories: [directory.url], includeBundledProviders: false,
                    clients: [options.id: ClientSettings(clientID: SimulatedProvider.appClientID)], store: store,
                    environment: simulated.environment))
        }
    }

    /// `subject` signs in as `account` on the instance `index`.
    @discardableResult
    func signIn(_ subject: String, as account: String, on index: Int, provider: String = "simulated") async throws -> TokenSet {
        let oauth = instances[index]
        return try await oauth.signInRun(to: provider, redirectURI: Simulated.redirect)
            .run(Simulated.Approving(simulated: simulated, subject: subject), account: account, in: oauth.store).tokens
    }

    /// Stops the pools and removes the descriptor's directory.
    func stop() {
        pools.forEach { $0.cancel() }
        directory.cleanUp()
    }
}
