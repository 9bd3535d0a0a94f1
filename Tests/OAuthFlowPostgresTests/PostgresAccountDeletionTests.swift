import Foundation
import OAuthFlowPostgres
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// Account deletion through PostgreSQL: two instances share the database; a user's deletion on one revokes and removes
/// every session of theirs, the other's included, and leaves another user's alone.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresAccountDeletionTests {
    @Test func aUsersSessionsAreGoneFromEveryInstance() async throws {
        let postgres = try TestPostgres.require()
        let table = TestPostgres.freshTable()
        let simulated = try SimulatedProvider()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try Data(simulated.descriptorText().utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        var stores: [PostgresTokenStore] = []
        var pools: [Task<Void, Never>] = []
        for _ in 0..<2 {
            let store = try PostgresTokenStore(configuration: postgres.configuration, keyring: SessionKeyring(current: TestPostgres.firstKey), table: table)
            pools.append(Task { await store.run() })
            stores.append(store)
        }
        defer { pools.forEach { $0.cancel() } }
        try await stores[0].migrate()
        let instances = stores.map { store in
            OAuth(
                OAuth.Configuration(
                    providerDirectories: [directory.url], includeBundledProviders: false,
                    clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: store,
                    environment: simulated.environment))
        }
        func signIn(_ subject: String, as account: String, on oauth: OAuth) async throws -> TokenSet {
            try await oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
                .run(Simulated.Approving(simulated: simulated, subject: subject), account: account, in: oauth.store).tokens
        }
        let phone = try await signIn("user-ada", as: "phone", on: instances[0])
        let laptop = try await signIn("user-ada", as: "laptop", on: instances[1])
        _ = try await signIn("user-bob", as: "bob", on: instances[1])

        let deletion = try await instances[0].deleteAccount("simulated", account: "phone")
        #expect(Set(deletion.removed) == [SessionKey(providerID: "simulated", account: "phone"), SessionKey(providerID: "simulated", account: "laptop")])
        #expect(deletion.revokedEverywhere)
        for tokens in [phone, laptop] { #expect(try await !Simulated.isActive(tokens.refreshToken, at: simulated)) }
        let gone = try await #require(throws: SessionError.self) { try await instances[1].accessToken(for: "simulated", account: "laptop") }
        #expect(gone.code == .notSignedIn)
        #expect(!(try await instances[1].accessToken(for: "simulated", account: "bob")).value.isEmpty, "another user's session stays")
    }
}
