import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// Deleting a user's account (issue 64 item 2): every session of the user at the provider revoked there and removed,
/// in a store that lists them (in memory, files), another user's left alone; a session whose revocation fails is kept
/// for the next call.
@Suite struct AccountDeletionTests {
    struct World {
        let simulated: SimulatedProvider
        let oauth: OAuth
        let directory: TemporaryDirectory

        init(files: Bool) throws {
            simulated = try SimulatedProvider()
            directory = try TemporaryDirectory()
            try Data(simulated.descriptorText().utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
            let store: any TokenStore = files ? FileTokenStore(directory: directory.url.appendingPathComponent("sessions")) : InMemoryTokenStore()
            oauth = OAuth(
                OAuth.Configuration(
                    providerDirectories: [directory.url], includeBundledProviders: false,
                    clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: store,
                    environment: simulated.environment))
        }

        /// `subject` signs in as `account`.
        func signIn(_ subject: String, as account: String) async throws -> TokenSet {
            let run = try oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
            return try await run.run(Simulated.Approving(simulated: simulated, subject: subject), account: account, in: oauth.store).tokens
        }
    }

    @Test(arguments: [false, true])
    func everySessionOfTheUserIsRevokedAndRemoved(files: Bool) async throws {
        let world = try World(files: files)
        defer { world.directory.cleanUp() }
        let phone = try await world.signIn("user-ada", as: "phone")
        let laptop = try await world.signIn("user-ada", as: "laptop")
        let other = try await world.signIn("user-bob", as: "bob")

        let deletion = try await world.oauth.deleteAccount("simulated", account: "phone")
        #expect(deletion.removed == [SessionKey(providerID: "simulated", account: "phone"), SessionKey(providerID: "simulated", account: "laptop")])
        #expect(deletion.revokedEverywhere && deletion.revocationFailures.isEmpty)
        for tokens in [phone, laptop] {
            #expect(try await !Simulated.isActive(tokens.refreshToken, at: world.simulated))
            #expect(try await !Simulated.isActive(tokens.accessToken, at: world.simulated))
        }
        #expect(try await world.oauth.store.load(SessionKey(providerID: "simulated", account: "laptop")) == nil)
        #expect(try await Simulated.isActive(other.accessToken, at: world.simulated), "another user's session is not touched")
        #expect(try await world.oauth.store.load(SessionKey(providerID: "simulated", account: "bob")) != nil)
        await #expect(throws: SessionError.self) { try await world.oauth.accessToken(for: "simulated", account: "laptop") }
    }

    /// The provider cannot be reached: the session is kept (its tokens are the only way to revoke the grant), and
    /// the next call, once the provider answers, revokes and removes it.
    @Test func aSessionWhoseRevocationFailedIsKeptForTheNextCall() async throws {
        let world = try World(files: false)
        defer { world.directory.cleanUp() }
        let tokens = try await world.signIn("user-ada", as: "phone")
        let key = SessionKey(providerID: "simulated", account: "phone")
        await world.simulated.failNext(.revocation, status: 503)
        let failed = try await world.oauth.deleteAccount("simulated", account: "phone")
        #expect(failed.removed.isEmpty && !failed.revokedEverywhere && failed.revocationFailures.keys.map { $0 } == [key])
        #expect(try await world.oauth.store.load(key) != nil)

        let again = try await world.oauth.deleteAccount("simulated", account: "phone")
        #expect(again.removed == [key] && again.revokedEverywhere)
        #expect(try await world.oauth.store.load(key) == nil)
        #expect(try await !Simulated.isActive(tokens.refreshToken, at: world.simulated))
    }

    /// A session of the same user whose tokens another authorization server issued (the descriptor re-pointed since)
    /// is not this provider's to revoke: removed without sending its tokens anywhere, and said.
    @Test func anotherServersSessionIsRemovedAndListedAsNotRevoked() async throws {
        let world = try World(files: false)
        defer { world.directory.cleanUp() }
        _ = try await world.signIn("user-ada", as: "phone")
        _ = try await world.signIn("user-ada", as: "tablet")
        let tablet = SessionKey(providerID: "simulated", account: "tablet")
        var foreign = try #require(try await world.oauth.store.load(tablet))
        foreign.authorizationServer = "https://elsewhere.example"
        try await world.oauth.store.save(foreign)
        let deletion = try await world.oauth.deleteAccount("simulated", account: "phone")
        #expect(Set(deletion.removed) == [SessionKey(providerID: "simulated", account: "phone"), tablet])
        #expect((deletion.revocationFailures[tablet] as? SessionError)?.code == .sessionMismatch && !deletion.revokedEverywhere)
        #expect(try await world.oauth.store.load(tablet) == nil)
    }

    /// A refresh under way in another process (it holds the session's lock while it stores the rotated tokens): the
    /// deletion waits for it, then revokes and removes what it stored, which is never written back after the removal.
    @Test(.timeLimit(.minutes(1))) func aRefreshUnderWayFinishesBeforeTheDeletion() async throws {
        let world = try World(files: true)
        defer { world.directory.cleanUp() }
        _ = try await world.signIn("user-ada", as: "phone")
        let key = SessionKey(providerID: "simulated", account: "phone")
        let stored = try #require(try await world.oauth.store.load(key))
        // The manager read the session before the other process took the lock: that read must not be what is revoked.
        _ = try await world.oauth.session("simulated", account: "phone").session()
        let lock = try await world.oauth.store.lock(key)
        let deleting = Task { try await world.oauth.deleteAccount("simulated", account: "phone") }
        try await Task.sleep(nanoseconds: 300_000_000)
        var refreshed = stored
        refreshed.tokens = try await world.oauth.client(for: stored).refresh(stored.tokens)
        try await world.oauth.store.save(refreshed)
        lock.release()
        let deletion = try await deleting.value
        #expect(deletion.removed == [key] && deletion.revokedEverywhere)
        #expect(try await world.oauth.store.load(key) == nil, "the session stays deleted")
        #expect(try await !Simulated.isActive(refreshed.tokens.refreshToken, at: world.simulated), "the refresh token the other process stored is the one revoked")
    }

    @Test func nobodySignedInIsNotSignedIn() async throws {
        let world = try World(files: false)
        defer { world.directory.cleanUp() }
        let error = try await #require(throws: SessionError.self) { try await world.oauth.deleteAccount("simulated", account: "nobody") }
        #expect(error.code == .notSignedIn)
        await #expect(throws: ProviderError.self) { try await world.oauth.deleteAccount("no-such-provider") }
    }
}
