import Foundation
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowTestSupport
import Testing

/// Account deletion through PostgreSQL: two instances share the database; a user's deletion on one revokes and removes
/// every session of theirs, the other's included, and leaves another user's alone.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresAccountDeletionTests {
    @Test func aUsersSessionsAreGoneFromEveryInstance() async throws {
        let shared = try await SharedPostgresInstances()
        defer { shared.stop() }
        let (simulated, instances) = (shared.simulated, shared.instances)
        let phone = try await shared.signIn("user-ada", as: "phone", on: 0)
        let laptop = try await shared.signIn("user-ada", as: "laptop", on: 1)
        try await shared.signIn("user-bob", as: "bob", on: 1)

        let deletion = try await instances[0].deleteAccount("simulated", account: "phone")
        #expect(
            Set(deletion.removed) == [SessionKey(providerID: "simulated", account: "phone"), SessionKey(providerID: "simulated", account: "laptop")])
        #expect(deletion.revokedEverywhere)
        for tokens in [phone, laptop] { #expect(try await !Simulated.isActive(tokens.refreshToken, at: simulated)) }
        let gone = try await #require(throws: SessionError.self) { try await instances[1].accessToken(for: "simulated", account: "laptop") }
        #expect(gone.code == .notSignedIn)
        #expect(!(try await instances[1].accessToken(for: "simulated", account: "bob")).value.isEmpty, "another user's session stays")
    }
}
