import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// The keychain lease on the boot clock (time since the device started, counting sleep, and which start), and the
/// keychain store's compare-and-delete, through the store's logic on Linux against InMemoryKeychain.
@Suite struct KeychainLeaseClockTests {
    let keychain = InMemoryKeychain()
    /// Each test's own: leases this process holds are kept by item, across keychains.
    let service = "com.example.\(UUID().uuidString).oauthflow"

    func makeStore(clock: any DateClock = SystemDateClock(), bootClock: any BootClock) -> KeychainTokenStore {
        .testing(keychain, service: service, accessGroup: "TEAM.com.example.shared", clock: clock, bootClock: bootClock)
    }

    /// The wall clock stepped three days ahead, then three days back, while the app holds the lease: the widget still
    /// finds it held (a lease on the wall clock was stale at the first step, and both refreshed with one refresh token).
    @Test func noStepOfTheWallClockShortensOrLengthensALease() async throws {
        let wall = MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000))
        let boot = MovableBootClock()
        let app = makeStore(clock: wall, bootClock: boot)
        let widget = makeStore(clock: wall, bootClock: boot)
        let item = app.item(SessionKey(providerID: "example"), "lock")
        #expect(try app.takeLease(item, owner: "app"))
        wall.advance(3 * 86_400)
        #expect(try widget.takeLease(item, owner: "widget") == false, "a step ahead does not end the lease")
        wall.advance(-6 * 86_400)
        boot.advance(100)
        #expect(try widget.takeLease(item, owner: "widget") == false, "a step back does not end it either")
        boot.advance(21)
        #expect(try widget.takeLease(item, owner: "widget"), "it ends 120 s after it was taken, on the boot clock")
        #expect(keychain[item]?.owner == Data("widget".utf8))
    }

    /// A lease taken before the device restarted is stale at once, whatever its expiry says.
    @Test func aLeaseFromBeforeARestartIsStale() async throws {
        let boot = MovableBootClock(seconds: 20)
        let store = makeStore(bootClock: boot)
        let item = store.item(SessionKey(providerID: "example"), "lock")
        #expect(try store.takeLease(item, owner: "before"))
        boot.restart(at: 25)
        #expect(try store.takeLease(item, owner: "after"))
        #expect(keychain[item]?.owner == Data("after".utf8))
    }

    /// A holder suspended (or the device asleep) for longer than a lease lasts has lost it: the boot clock counts sleep.
    @Test func aHolderSuspendedLongerThanTheLeaseLosesIt() async throws {
        let boot = MovableBootClock()
        let app = makeStore(bootClock: boot)
        let key = SessionKey(providerID: "example")
        let held = try await app.lock(key)
        boot.advance(119)
        #expect(try app.takeLease(app.item(key, "lock"), owner: "widget") == false)
        boot.advance(2)
        #expect(try app.takeLease(app.item(key, "lock"), owner: "widget"))
        // The suspended holder's release deletes only its own lease.
        held.release()
        #expect(keychain[app.item(key, "lock")]?.owner == Data("widget".utf8))
    }

    /// A lease written by an earlier OAuthFlow (its expiry on the wall clock) is not one this store reads: its owner's
    /// item goes, and the lease is taken.
    @Test func aWallClockLeaseOfAnEarlierVersionGoes() async throws {
        let store = makeStore(bootClock: MovableBootClock())
        let item = store.item(SessionKey(providerID: "example"), "lock")
        let earlier = Data(#"{"owner":"earlier","expires":4000000000}"#.utf8)
        keychain[item] = .init(data: earlier, owner: Data("earlier".utf8), accessibility: .afterFirstUnlockThisDeviceOnly)
        #expect(try store.takeLease(item, owner: "now"))
    }

    /// The system's boot clock on Linux: CLOCK_BOOTTIME and the kernel's boot_id.
    @Test func theSystemBootClockCountsAndNamesTheBoot() async throws {
        let first = SystemBootClock().now()
        try await Task.sleep(for: .milliseconds(10))
        let second = SystemBootClock().now()
        #expect(!first.boot.isEmpty && first.boot == second.boot)
        #expect(second.nanoseconds >= first.nanoseconds + 10_000_000)
        #if os(Linux)
        let bootID = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        #expect(first.boot == bootID.trimmingCharacters(in: .whitespacesAndNewlines))
        #endif
    }

    // MARK: - The compare-and-delete

    /// The app holds the lease and has read the session, then is suspended past the lease; the widget takes the lease,
    /// refreshes and saves; the app's refresh token is rejected. The widget's session stays, and the app goes on with it.
    @Test func theLoserOfARefreshRaceLeavesTheWinnersSession() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let boot = MovableBootClock()
        let widgetStore = makeStore(bootClock: boot)
        let client = try Simulated.appClient(simulated)
        let session = try await Simulated.session(client, at: simulated, in: widgetStore)
        let widget = TokenManager(client: client, store: widgetStore, key: session.key)
        let pending = Locked(true)
        let suspended = InterleavingTransport(base: simulated.transport) { request in
            guard request.url.path.hasSuffix("/token"), pending.withLock({ first in defer { first = false }; return first }) else { return }
            boot.advance(121)
            try await widget.refresh()
        }
        let appClient = try Simulated.appClient(
            simulated, environment: OAuthEnvironment(transport: suspended, clock: simulated.clock, nonces: simulated.nonces))
        let app = TokenManager(client: appClient, store: makeStore(bootClock: boot), key: session.key)
        let kept = try await app.refresh()
        let stored = try #require(try await widgetStore.load(session.key), "the widget's session was removed by the app's invalid_grant")
        #expect(stored.tokens.refreshToken != session.tokens.refreshToken)
        #expect(kept.tokens == stored.tokens)
    }

    /// A session another process wrote between this store's read and its delete (a sign-in saves without the lease)
    /// is not matched by the delete, and stays.
    @Test func aSessionWrittenBetweenTheReadAndTheDeleteStays() async throws {
        let store = makeStore(bootClock: MovableBootClock())
        let old = RefreshRaceSessions.session(refreshToken: "refresh-1")
        let newer = RefreshRaceSessions.session(refreshToken: "refresh-2")
        try await store.save(old)
        let writes = Locked(false)
        keychain.interleaving { call, item in
            guard call == "delete", !item.account.hasSuffix("/received"), KeychainTokenStoreTests.first(writes) else { return }
            try? store.write(try! newer.encoded(), to: store.item(newer.key))
        }
        #expect(try await store.remove(old.key, whileHolding: Secret("refresh-1")) == false)
        keychain.interleaving(nil)
        #expect(try await store.load(old.key) == newer)
        #expect(try await store.remove(old.key, whileHolding: Secret("refresh-2")))
        #expect(try await store.load(old.key) == nil)
    }
}

/// Sessions for the compare-and-delete tests.
enum RefreshRaceSessions {
    static func session(refreshToken: String) -> StoredSession {
        StoredSession(
            key: SessionKey(providerID: "example"), variables: [:], clientID: "client", redirectURI: URL(string: "http://127.0.0.1/callback")!,
            tokens: TokenSet(
                accessToken: Secret("access-" + refreshToken), tokenType: "Bearer", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
                refreshToken: Secret(refreshToken), idToken: nil, scopes: [], issuedAt: Date(timeIntervalSince1970: 1_900_000_000)),
            updatedAt: Date(timeIntervalSince1970: 1_900_000_000))
    }
}
