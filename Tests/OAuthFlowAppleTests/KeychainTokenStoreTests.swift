import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// The keychain store's logic against a keychain that answers as Apple documents (InMemoryKeychain): what
/// FileTokenStore promises, and each defect issue 56 item 12 lists, fixed.
@Suite struct KeychainTokenStoreTests {
    let keychain = InMemoryKeychain()
    /// Each test's own: leases this process holds are kept by item, across keychains.
    let service = "com.example.\(UUID().uuidString).oauthflow"

    /// True the first time only.
    static func first(_ flag: Locked<Bool>) -> Bool {
        flag.withLock { seen in
            defer { seen = true }
            return !seen
        }
    }

    func makeStore(
        accessGroup: String? = nil, accessibility: KeychainTokenStore.Accessibility = KeychainTokenStore.defaultAccessibility,
        clock: any DateClock = SystemDateClock(), bootClock: any BootClock = SystemBootClock(), in keychain: InMemoryKeychain? = nil
    ) -> KeychainTokenStore {
        .testing(
            keychain ?? self.keychain, service: service, accessGroup: accessGroup, accessibility: accessibility, clock: clock,
            bootClock: bootClock)
    }

    @Test func aSessionIsSavedLoadedAndRemoved() async throws {
        let store = makeStore()
        let session = sampleSession()
        try await store.save(session)
        #expect(try await store.load(session.key) == session)
        let item = KeychainItem(service: store.service, account: "example/default", accessGroup: nil)
        #expect(keychain[item]?.accessibility == .afterFirstUnlockThisDeviceOnly, "background refresh reads it while the device is locked")
        try await store.save(sampleSession(access: "access-2"))
        #expect(try await store.load(session.key)?.tokens.accessToken.value == "access-2")
        try await store.remove(session.key)
        #expect(try await store.load(session.key) == nil)
        try await store.remove(session.key)
        #expect(keychain.accounts(service: store.service).isEmpty)
    }

    /// A user's sessions are found by issuer and subject (for account deletion and back-channel logout): another
    /// user's, another provider's, the items a session keeps beside it and an undecodable item are not; an account
    /// whose name needs escaping is read back as it was.
    @Test func aUsersSessionsAreListed() async throws {
        let store = makeStore()
        func session(_ account: String, _ subject: String, provider: String = "example") -> StoredSession {
            var session = sampleSession(provider)
            session.key = SessionKey(providerID: provider, account: account)
            session.providerSession = ProviderSession(issuer: "https://idp.example", subject: subject)
            return session
        }
        for each in [session("phone", "ada"), session("work/laptop ü", "ada"), session("bob", "bob"), session("ada", "ada", provider: "other")] {
            try await store.save(each)
        }
        keychain[KeychainItem(service: store.service, account: "example/broken", accessGroup: nil)] = .init(
            data: Data("{not json".utf8), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        keychain[KeychainItem(service: store.service, account: "example/phone/corrupt-1900000000", accessGroup: nil)] = .init(
            data: Data("{}".utf8), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let ada = try #require(ProviderSession.Match(issuer: "https://idp.example", subject: "ada", sessionID: nil))
        let keys = try await store.keys(of: "example", matching: ada)
        #expect(Set(keys) == [SessionKey(providerID: "example", account: "phone"), SessionKey(providerID: "example", account: "work/laptop ü")])
        #expect(keychain[KeychainItem(service: store.service, account: "example/broken", accessGroup: nil)] != nil, "left in place")
        #expect(try await makeStore(in: InMemoryKeychain()).keys(of: "example", matching: ada).isEmpty)
    }

    /// The app (`com.example.notes`) and its widget (`com.example.notes.widget`), both with the defaults: one service,
    /// so one session and one lease. With the old default (the bundle identifier and `.oauthflow`) they had two.
    @Test func theAppAndItsExtensionShareSessionsAndTheLeaseByDefault() async throws {
        let group = "TEAM.com.example.\(UUID().uuidString)"
        let app = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes", accessGroup: group, items: keychain)
        let widget = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes.widget", accessGroup: group, items: keychain)
        #expect(app.service == KeychainTokenStore.defaultService && KeychainTokenStore.defaultService == "OAuthFlow")
        let session = sampleSession()
        try await app.save(session)
        #expect(try await widget.load(session.key) == session, "the widget reads the app's session")
        let held = try await app.lock(session.key)
        #expect(try widget.takeLease(widget.item(session.key, "lock"), owner: "widget") == false, "and waits for the app's lease")
        held.release()
        #expect(try widget.takeLease(widget.item(session.key, "lock"), owner: "widget") == true)
        let named = KeychainTokenStore(service: "com.example.mine", bundleIdentifier: "com.example.notes", accessGroup: nil, items: keychain)
        #expect(named.service == "com.example.mine" && named.legacyService == nil, "a named service is kept, with nothing to move")
    }

    /// A session an earlier OAuthFlow kept under `BUNDLE-ID.oauthflow` is moved to the default service on its first load.
    @Test func aSessionUnderTheOldDefaultServiceIsMovedOnItsFirstLoad() async throws {
        let group = "TEAM.com.example.\(UUID().uuidString)"
        let session = sampleSession()
        let old = KeychainItem(service: "com.example.notes.oauthflow", account: "example/default", accessGroup: group)
        keychain[old] = .init(data: try session.encoded(), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let app = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes", accessGroup: group, items: keychain)
        #expect(try await app.load(session.key) == session)
        #expect(keychain[old] == nil, "moved, not copied")
        #expect(keychain[KeychainItem(service: "OAuthFlow", account: "example/default", accessGroup: group)]?.data == (try session.encoded()))
        let widget = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes.widget", accessGroup: group, items: keychain)
        #expect(try await widget.load(session.key) == session)
    }

    /// A session under the new service (another process moved it, then refreshed it) wins over the old item.
    @Test func aSessionMovedMeanwhileIsNotWrittenOver() async throws {
        let group = "TEAM.com.example.\(UUID().uuidString)"
        let stale = sampleSession(access: "stale")
        let old = KeychainItem(service: "com.example.notes.oauthflow", account: "example/default", accessGroup: group)
        keychain[old] = .init(data: try stale.encoded(), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let app = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes", accessGroup: group, items: keychain)
        let fresh = sampleSession(access: "fresh")
        let raced = Locked(false)
        keychain.interleaving { call, item in
            // Between this load's miss and its add, another process saves the refreshed session.
            guard call == "add", item.service == "OAuthFlow", Self.first(raced) else { return }
            #expect((try? app.write(try fresh.encoded(), to: item)) != nil)
        }
        #expect(try await app.load(stale.key)?.tokens.accessToken.value == "fresh")
        keychain.interleaving(nil)
        #expect(keychain[old] == nil)
    }

    /// Signing out removes the old item too: a later load does not bring it back.
    @Test func removingASessionRemovesItUnderTheOldServiceToo() async throws {
        let group = "TEAM.com.example.\(UUID().uuidString)"
        let session = sampleSession()
        let old = KeychainItem(service: "com.example.notes.oauthflow", account: "example/default", accessGroup: group)
        keychain[old] = .init(data: try session.encoded(), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let app = KeychainTokenStore(service: nil, bundleIdentifier: "com.example.notes", accessGroup: group, items: keychain)
        try await app.remove(session.key)
        #expect(try await app.load(session.key) == nil)
        #expect(KeychainTokenStore.legacyService(bundleIdentifier: nil) == nil && KeychainTokenStore.legacyService(bundleIdentifier: "") == nil)
    }

    /// `acme` + `-x` and `acme-` + `x` were one item (`acme--x`).
    @Test func providerAndAccountNamesCannotRunTogether() async throws {
        let store = makeStore()
        var first = sampleSession("acme", access: "first")
        first.key.account = "-x"
        var second = sampleSession("acme-", access: "second")
        second.key.account = "x"
        try await store.save(first)
        try await store.save(second)
        #expect(try await store.load(first.key)?.tokens.accessToken.value == "first")
        #expect(try await store.load(second.key)?.tokens.accessToken.value == "second")
        #expect(keychain.accounts(service: store.service) == ["acme/-x", "acme-/x"])
        #expect(KeychainTokenStore.account(for: SessionKey(providerID: "a/b", account: "c")) == "a%2Fb/c")
        #expect(KeychainTokenStore.account(for: SessionKey(providerID: "a", account: "b/c")) == "a/b%2Fc")
    }

    @Test func anotherFormatVersionIsRefusedAndKept() async throws {
        let store = makeStore()
        let session = sampleSession()
        let item = KeychainItem(service: store.service, account: "example/default", accessGroup: nil)
        var json = try JSONSerialization.jsonObject(with: try session.encoded()) as? [String: Any] ?? [:]
        json["formatVersion"] = 2
        let future = try JSONSerialization.data(withJSONObject: json)
        keychain[item] = .init(data: future, owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(session.key) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("session format 2") && error.message.contains("reads 1"), "\(error.message)")
        #expect(keychain[item]?.data == future, "left in place")
        // A new sign-in saves over it, keeping it aside.
        try await store.save(session)
        #expect(try await store.load(session.key) == session)
        let aside = keychain.accounts(service: store.service).filter { $0.hasPrefix("example/default/corrupt-") }
        #expect(aside.count == 1)
        #expect(aside.first.flatMap { keychain[KeychainItem(service: store.service, account: $0)]?.data } == future)
    }

    @Test func anUnreadableItemIsReportedAndKept() async throws {
        let store = makeStore()
        let item = KeychainItem(service: store.service, account: "example/default", accessGroup: nil)
        keychain[item] = .init(data: Data("{not json".utf8), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .corrupt && error.path == item.description)
        #expect(keychain[item]?.data == Data("{not json".utf8))
    }

    // MARK: - Named errors

    @Test func aLockedDeviceIsUnavailableByName() async throws {
        let store = makeStore(accessibility: .whenUnlockedThisDeviceOnly)
        try await store.save(sampleSession())
        keychain.device = .locked
        let error = try await #require(throws: TokenStoreError.self) { try await store.load(SessionKey(providerID: "example")) }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("errSecInteractionNotAllowed (-25308)") && error.message.contains("device is locked"), "\(error.message)")
    }

    @Test func aMissingEntitlementNamesTheAccessGroup() async throws {
        let keychain = InMemoryKeychain(entitledGroups: ["TEAM.com.example.app"])
        let store = makeStore(accessGroup: "TEAM.com.example.shared", in: keychain)
        let error = try await #require(throws: TokenStoreError.self) { try await store.save(sampleSession()) }
        #expect(error.code == .missingEntitlement)
        #expect(error.message.contains("errSecMissingEntitlement (-34018)") && error.message.contains("TEAM.com.example.shared"), "\(error.message)")
        #expect(KeychainStatus(-99999).description == "OSStatus (-99999)")
    }

    // MARK: - Add, then update

    /// Two savers both found no item and both added: the second got `errSecDuplicateItem`, thrown as an error.
    @Test func anItemAddedMeanwhileIsUpdatedNotAnError() async throws {
        let store = makeStore()
        let other = makeStore()
        let raced = Locked(false)
        let theirs = try sampleSession(access: "other").encoded()
        keychain.interleaving { call, item in
            // Another process saves the same session just before this add.
            guard call == "add", item.account == "example/default", Self.first(raced) else { return }
            #expect((try? other.write(theirs, to: item)) != nil)
        }
        try await store.save(sampleSession(access: "mine"))
        keychain.interleaving(nil)
        #expect(try await store.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "mine")
    }

    // MARK: - The lease

    @Test func theAppAndItsExtensionRefreshOneAtATime() async throws {
        let app = makeStore(accessGroup: "TEAM.com.example.shared")
        let widget = makeStore(accessGroup: "TEAM.com.example.shared")
        let key = SessionKey(providerID: "example")
        let held = try await app.lock(key)
        let taken = Locked(false)
        let waiting = Task {
            let lock = try await widget.lock(key)
            taken.withLock { $0 = true }
            lock.release()
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(!taken.current, "the extension waits while the app holds the lease")
        held.release()
        try await waiting.value
        #expect(taken.current)
        #expect(!keychain.accounts(service: app.service).contains("example/default/lock"), "released")
    }

    @Test func aLeaseWhoseHolderWasKilledExpires() async throws {
        let clock = MovableBootClock()
        let killed = makeStore(bootClock: clock)
        let next = makeStore(bootClock: clock)
        let key = SessionKey(providerID: "example")
        _ = try await killed.lock(key)  // never released
        #expect(try next.takeLease(next.item(key, "lock"), owner: "next") == false)
        clock.advance(121)
        #expect(try next.takeLease(next.item(key, "lock"), owner: "next") == true)
    }

    /// Between this taker's read of the lease item it would replace and its delete, another process takes the lease:
    /// this taker gets nothing, and the other's lease stays.
    func expectAnotherTakerWinsBetweenReadAndDelete(_ store: KeychainTokenStore, _ item: KeychainItem) throws {
        let other = Locked(false)
        keychain.interleaving { call, _ in
            guard call == "delete", Self.first(other) else { return }
            #expect((try? store.takeLease(item, owner: "other")) == true)
        }
        #expect(try store.takeLease(item, owner: "late") == false, "the lease another process took stays")
        keychain.interleaving(nil)
        #expect(keychain[item]?.owner == Data("other".utf8))
    }

    /// Two processes that find one expired lease: only one takes it.
    @Test func anExpiredLeaseGoesToOneTaker() async throws {
        let clock = MovableBootClock()
        let store = makeStore(bootClock: clock)
        let item = store.item(SessionKey(providerID: "example"), "lock")
        #expect(try store.takeLease(item, owner: "killed"))
        clock.advance(121)
        try expectAnotherTakerWinsBetweenReadAndDelete(store, item)
    }

    /// A lease that claims to last longer from now than any lease may (an item no process of this boot wrote) is stale.
    @Test func aLeaseFurtherAheadThanItsLifeIsStale() async throws {
        let clock = MovableBootClock()
        let store = makeStore(bootClock: clock)
        let item = store.item(SessionKey(providerID: "example"), "lock")
        let ahead = KeychainTokenStore.Lease(owner: "ahead", boot: clock.now().boot, until: clock.now().nanoseconds + 3 * 86_400_000_000_000)
        keychain[item] = .init(data: try JSONEncoder().encode(ahead), owner: Data("ahead".utf8), accessibility: .afterFirstUnlockThisDeviceOnly)
        #expect(try store.takeLease(item, owner: "next"))
        #expect(keychain[item]?.owner == Data("next".utf8))
        // One within its life still stands.
        #expect(try store.takeLease(item, owner: "third") == false)
        #expect(KeychainTokenStore.standing(of: Data("{}".utf8), now: clock.now(), leaseDuration: 120) == .unreadable)
    }

    /// A lease that stands longer than any lease may (a holder that renews it, a keychain that never lets it go) does not
    /// make `lock()` wait for ever: it gives up with `unavailable`.
    @Test func waitingForTheLeaseIsBounded() async throws {
        let store = KeychainTokenStore.testing(keychain, service: service, lockWait: 0.3)
        let key = SessionKey(providerID: "example")
        _ = try await makeStore().lock(key)  // held, never released
        let waiting = Task { try await store.lock(key) }
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 20_000_000_000)
            waiting.cancel()
        }
        defer { watchdog.cancel() }
        let error = try await #require(throws: TokenStoreError.self) { _ = try await waiting.value }
        #expect(error.code == .unavailable && error.message.contains("try again"), "\(error.message)")
    }

    /// Two processes that find one lease item they cannot read: only one takes it (the other's delete matches the
    /// unreadable item's owner, not the lease taken meanwhile).
    @Test func anUnreadableLeaseGoesToOneTaker() async throws {
        let store = makeStore()
        let item = store.item(SessionKey(providerID: "example"), "lock")
        keychain[item] = .init(data: Data("from a later version".utf8), owner: Data("someone".utf8), accessibility: .afterFirstUnlockThisDeviceOnly)
        try expectAnotherTakerWinsBetweenReadAndDelete(store, item)
    }

    /// An unreadable item without an owner is deleted only when it is still the one read.
    @Test func anUnreadableLeaseChangedMeanwhileStays() async throws {
        let store = makeStore()
        let item = store.item(SessionKey(providerID: "example"), "lock")
        keychain[item] = .init(data: Data("junk".utf8), owner: nil, accessibility: .afterFirstUnlockThisDeviceOnly)
        let reads = Locked(0)
        keychain.interleaving { call, _ in
            // After the first read, another process replaces the item with its lease.
            guard call == "read", reads.withLock({ count in
                count += 1
                return count == 2
            }) else { return }
            let now = SystemBootClock().now()
            let lease = KeychainTokenStore.Lease(owner: "other", boot: now.boot, until: now.nanoseconds + 60_000_000_000)
            keychain[item] = .init(data: (try? JSONEncoder().encode(lease)) ?? Data(), owner: Data("other".utf8), accessibility: .afterFirstUnlockThisDeviceOnly)
        }
        #expect(try store.takeLease(item, owner: "late") == false)
        keychain.interleaving(nil)
        #expect(keychain[item]?.owner == Data("other".utf8))
    }

    // MARK: - Refreshing through the store

    /// Two processes (the app and its widget) refresh one expired session at once: one refresh request, and both end
    /// with the rotated tokens the provider still holds live.
    @Test func twoProcessesSpendTheRefreshTokenOnce() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let client = try Simulated.appClient(simulated)
        let app = makeStore(accessGroup: "TEAM.com.example.shared")
        let session = try await Simulated.session(client, at: simulated, in: app)
        simulated.clock.advance(3600 + 10)
        let exchanges = await simulated.requestCount(.token)
        async let first = TokenManager(client: client, store: app, key: session.key).validAccessToken()
        async let second = TokenManager(
            client: client, store: makeStore(accessGroup: "TEAM.com.example.shared"), key: session.key
        ).validAccessToken()
        let (a, b) = try await (first, second)
        #expect(a == b)
        #expect(await simulated.requestCount(.token) == exchanges + 1)
        let stored = try await app.load(session.key)
        #expect(try await Simulated.isActive(stored?.tokens.refreshToken, at: simulated))
    }

    @Test func aRefreshWhileTheDeviceIsLockedWorksByDefault() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let client = try Simulated.appClient(simulated)
        let store = makeStore()
        let session = try await Simulated.session(client, at: simulated, in: store)
        simulated.clock.advance(3600 + 10)
        keychain.device = .locked
        let token = try await TokenManager(client: client, store: store, key: session.key).validAccessToken()
        #expect(token != session.tokens.accessToken)
    }

    /// With `whenUnlocked…`, a locked device is found before the refresh token is spent.
    @Test func aLockedKeychainStopsTheRefreshBeforeTheTokenIsSpent() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let client = try Simulated.appClient(simulated)
        let store = makeStore(accessibility: .whenUnlockedThisDeviceOnly)
        let session = try await Simulated.session(client, at: simulated, in: store)
        simulated.clock.advance(3600 + 10)
        let manager = TokenManager(client: client, store: store, key: session.key)
        _ = try await manager.session()
        keychain.device = .locked
        let exchanges = await simulated.requestCount(.token)
        await #expect(throws: (any Error).self) { try await manager.refresh() }
        #expect(await simulated.requestCount(.token) == exchanges, "nothing sent")
        keychain.device = .unlocked
        #expect(try await Simulated.isActive(session.tokens.refreshToken, at: simulated))
        _ = try await manager.validAccessToken()
    }
}
