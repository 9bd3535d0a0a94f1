import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// The crash-safe refresh of the keychain store, through the scenarios the file and PostgreSQL stores pass
/// (InterruptedRefresh, and InterruptedRefreshTests' and TokenManagerTests' own): iOS killing the app between the token
/// answer and the save never loses the rotated refresh token.
@Suite struct KeychainReservationTests {
    let keychain = InMemoryKeychain()
    let service = "com.example.\(UUID().uuidString).oauthflow"

    /// A store over the test's keychain: each call is another process's (the app after a relaunch, its extension).
    func process() -> KeychainTokenStore {
        .testing(keychain, service: service)
    }

    func received(_ key: SessionKey) -> KeychainItem {
        KeychainItem(service: service, account: KeychainTokenStore.account(for: key, suffix: "received"))
    }

    @Test func aRecordedAnswerWithAnUncheckedIDTokenKeepsOnlyItsRefreshToken() async throws {
        let store = process()
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let item = received(session.key)
        let keychain = self.keychain
        let task = try await InterruptedRefresh.stalledRefresh(store: store, key: session.key) {
            guard let data = keychain[item]?.data else { return false }
            return (try? RefreshAnswerRecord.contents(of: data, path: "") { json, _ in try StoredSession.decoded(from: json) })?.answered == true
        }
        // The next launch, while the first is stuck (or after iOS killed it): a store of its own.
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await process().load(session.key))
        await task.value
        #expect(keychain[item] == nil, "the record is gone")
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await store.load(session.key))
    }

    @Test func aRecordWhoseRefreshTokenTheSessionAlreadyHoldsIsDropped() async throws {
        let store = process()
        var session = InterruptedRefresh.session()
        try await store.save(session)
        // A refresh that recorded, committed the checked session, and was killed before deleting the record.
        let reservation = try await store.reserve(session.key)
        var recorded = session
        recorded.tokens = TokenSet(
            accessToken: Secret("access-2"), tokenType: "bearer", expiresAt: nil, refreshToken: Secret("refresh-2"), idToken: nil, scopes: [],
            issuedAt: Date()
        ).keepingRefreshToken(of: session.tokens)
        try await reservation.record(recorded)
        session.tokens.accessToken = Secret("access-2")
        session.tokens.refreshToken = Secret("refresh-2")
        session.tokens.expiresAt = Date().addingTimeInterval(3600)
        try await process().save(session)
        let loaded = try await process().load(session.key)
        #expect(loaded?.tokens.accessToken.value == "access-2", "the committed session wins over a stale record of the same refresh")
        #expect(loaded?.tokens.isExpired(at: Date()) == false)
        #expect(keychain[received(session.key)] == nil)
    }

    /// The app was killed right after the answer's last byte was read and recorded.
    func diedOnArrival(of answer: String) async throws -> StoredSession {
        let store = process()
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let reservation = try await store.reserve(session.key)
        let recorder = try #require(reservation.answerRecorder(refreshing: session))
        recorder(Data(answer.utf8))
        return session
    }

    @Test(arguments: [
        #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2","id_token":"x.y.z"}"#,
        "access_token=access-2&token_type=bearer&refresh_token=refresh-2",
    ])
    func aRawAnswerRecordedOnArrivalKeepsOnlyItsRefreshToken(answer: String) async throws {
        let session = try await diedOnArrival(of: answer)
        InterruptedRefresh.expectOnlyTheRefreshTokenAdopted(try await process().load(session.key))
    }

    @Test func aRawAnswerWithoutARefreshTokenKeepsTheSessionsOwn() async throws {
        let session = try await diedOnArrival(of: #"{"access_token":"access-2","token_type":"Bearer"}"#)
        let loaded = try await process().load(session.key)
        #expect(loaded?.tokens.refreshToken == session.tokens.refreshToken, "a server that does not rotate leaves the old one valid")
        #expect(loaded?.tokens.idToken?.value == InterruptedRefresh.verifiedIDToken)
        #expect(loaded?.tokens.isExpired(at: Date()) == true)
    }

    /// The first launch after the kill recovers the record; every later reader, in any process, reads a plain session.
    @Test func aRecoveredRecordLeavesASessionEveryLaterReaderReads() async throws {
        let session = try await diedOnArrival(of: #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2"}"#)
        for reader in 0..<3 {
            #expect(try await process().load(session.key)?.tokens.refreshToken?.value == "refresh-2", "reader \(reader)")
        }
        let item = KeychainItem(service: service, account: KeychainTokenStore.account(for: session.key))
        let stored = try #require(keychain[item]?.data)
        #expect(!RefreshAnswerRecord.isRecord(stored))
        #expect(try StoredSession.decoded(from: stored).tokens.refreshToken?.value == "refresh-2")
        #expect(keychain.accounts(service: service) == [item.account], "no record, lease or copy left")
    }

    /// A record with no answer belongs to a refresh in flight (or one killed before its answer): the session stands.
    @Test func aRecordWithoutAnAnswerIsLeftToItsRefresh() async throws {
        let store = process()
        let session = InterruptedRefresh.session()
        try await store.save(session)
        let reservation = try await store.reserve(session.key)
        _ = try #require(reservation.answerRecorder(refreshing: session))
        let loaded = try await process().load(session.key)
        #expect(loaded?.tokens.accessToken == session.tokens.accessToken && loaded?.tokens.refreshToken == session.tokens.refreshToken)
        #expect(keychain[received(session.key)] != nil)
        await reservation.abandon()
        #expect(keychain[received(session.key)] == nil)
    }

    /// While another process holds the lease, a reader leaves that refresher its record and reads the session as it is.
    @Test func aReaderLeavesTheRecordToTheProcessThatHoldsTheLease() async throws {
        let session = try await diedOnArrival(of: #"{"access_token":"access-2","token_type":"Bearer","refresh_token":"refresh-2"}"#)
        let holder = process()
        #expect(try holder.takeLease(holder.item(session.key, "lock"), owner: "another-process"))
        #expect(try await process().load(session.key)?.tokens.refreshToken?.value == "refresh-1")
        #expect(keychain[received(session.key)] != nil)
        try holder.delete(holder.item(session.key, "lock"))
        #expect(try await process().load(session.key)?.tokens.refreshToken?.value == "refresh-2")
    }

    @Test func anAbandonedReservationLeavesTheSessionAndNoItems() async throws {
        let store = process()
        try await store.save(sampleSession())
        let reservation = try await store.reserve(SessionKey(providerID: "example"))
        try await reservation.record(sampleSession(access: "failed-its-checks"))
        await reservation.abandon()
        #expect(try await store.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "access-1")
        #expect(keychain.accounts(service: service) == ["example/default"])
    }

    @Test func aRecordedRefreshIsRecoveredByTheNextLoad() async throws {
        let store = process()
        try await store.save(sampleSession())
        do {
            let reservation = try await store.reserve(SessionKey(providerID: "example"))
            try await reservation.record(sampleSession(access: "received", refresh: "rotated"))
        }
        let recovered = try #require(try await process().load(SessionKey(providerID: "example")))
        #expect(recovered.tokens.accessToken.value == "received" && recovered.tokens.refreshToken?.value == "rotated")
        #expect(keychain.accounts(service: service) == ["example/default"])
    }

    @Test func removingASessionRemovesItsRecord() async throws {
        let session = try await diedOnArrival(of: #"{"access_token":"access-2","token_type":"Bearer","refresh_token":"refresh-2"}"#)
        try await process().remove(session.key)
        #expect(try await process().load(session.key) == nil, "a sign-out is not undone by a refresh's record")
    }

    /// The whole refresh against a provider that rotates: committed, the record gone, the new refresh token live.
    @Test func aRefreshCommitsAndLeavesNoRecord() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let client = try Simulated.appClient(simulated)
        let store = process()
        let session = try await Simulated.session(client, at: simulated, in: store)
        simulated.clock.advance(3600 + 10)
        _ = try await TokenManager(client: client, store: store, key: session.key).validAccessToken()
        let stored = try await process().load(session.key)
        #expect(stored?.tokens.refreshToken != session.tokens.refreshToken)
        #expect(try await Simulated.isActive(stored?.tokens.refreshToken, at: simulated))
        #expect(keychain.accounts(service: service) == [KeychainTokenStore.account(for: session.key)])
    }
}
