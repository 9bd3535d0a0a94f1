import Foundation
import OAuthFlow
@testable import OAuthFlowApple

/// The keychain as Apple documents it, in memory, for the store's tests on Linux: generic-password items keyed by
/// service, account and access group; `errSecDuplicateItem` for an add of an existing item, `errSecItemNotFound`;
/// while the device is locked, `errSecInteractionNotAllowed` for items whose accessibility needs it unlocked (and for
/// every item before the first unlock); `errSecMissingEntitlement` for access groups the app's entitlement does not list.
///
/// Several stores over one keychain are the app and its extensions (or two processes).
final class InMemoryKeychain: KeychainItems, @unchecked Sendable {
    enum Device { case unlocked, locked, beforeFirstUnlock }

    struct Stored: Equatable {
        var data: Data
        var owner: Data?
        var accessibility: KeychainTokenStore.Accessibility
    }

    private let lock = NSLock()
    private var stored: [KeychainItem: Stored] = [:]
    private var state = Device.unlocked
    /// The access groups the app may use (its `keychain-access-groups`); nil: any.
    private let entitled: Set<String>?
    /// Runs before each call, outside the lock: another process acting in between.
    private var interleave: (@Sendable (String, KeychainItem) -> Void)?
    private(set) var calls: [String] = []

    init(entitledGroups: Set<String>? = nil) {
        entitled = entitledGroups
    }

    var device: Device {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }

    /// Runs `body` before every call (`read`, `add`, `update`, `delete`) with the call's name and item.
    func interleaving(_ body: (@Sendable (String, KeychainItem) -> Void)?) {
        lock.withLock { interleave = body }
    }

    subscript(_ item: KeychainItem) -> Stored? {
        get { lock.withLock { stored[item] } }
        set { lock.withLock { stored[item] = newValue } }
    }

    /// Every item's account under `service`.
    func accounts(service: String) -> Set<String> {
        lock.withLock { Set(stored.keys.filter { $0.service == service }.map(\.account)) }
    }

    private func enter(_ call: String, _ item: KeychainItem) throws {
        let hook = lock.withLock { () -> (@Sendable (String, KeychainItem) -> Void)? in
            calls.append(call)
            return interleave
        }
        hook?(call, item)
        if let group = item.accessGroup, let entitled, !entitled.contains(group) { throw KeychainStatus.missingEntitlement }
    }

    /// Whether an item of `accessibility` may be read or written in the device's state.
    private func allowed(_ accessibility: KeychainTokenStore.Accessibility) -> Bool {
        switch state {
        case .unlocked: true
        case .beforeFirstUnlock: false
        case .locked: accessibility == .afterFirstUnlock || accessibility == .afterFirstUnlockThisDeviceOnly
        }
    }

    func read(_ item: KeychainItem) throws -> Data? {
        try enter("read", item)
        return try lock.withLock {
            guard let found = stored[item] else { return nil }
            guard allowed(found.accessibility) else { throw KeychainStatus.interactionNotAllowed }
            return found.data
        }
    }

    func readOwned(_ item: KeychainItem) throws -> (data: Data, owner: Data?)? {
        try enter("read", item)
        return try lock.withLock {
            guard let found = stored[item] else { return nil }
            guard allowed(found.accessibility) else { throw KeychainStatus.interactionNotAllowed }
            return (found.data, found.owner)
        }
    }

    func add(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws {
        try enter("add", item)
        try lock.withLock {
            guard stored[item] == nil else { throw KeychainStatus.duplicateItem }
            guard allowed(accessibility) else { throw KeychainStatus.interactionNotAllowed }
            stored[item] = Stored(data: data, owner: owner, accessibility: accessibility)
        }
    }

    func update(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws {
        try enter("update", item)
        try lock.withLock {
            guard var found = stored[item] else { throw KeychainStatus.itemNotFound }
            guard allowed(found.accessibility), allowed(accessibility) else { throw KeychainStatus.interactionNotAllowed }
            found.data = data
            if let owner { found.owner = owner }
            found.accessibility = accessibility
            stored[item] = found
        }
    }

    func accounts(service: String, accessGroup: String?) throws -> [String] {
        try enter("list", KeychainItem(service: service, account: "", accessGroup: accessGroup))
        return lock.withLock {
            stored.keys.filter { $0.service == service && (accessGroup == nil || $0.accessGroup == accessGroup) }.map(\.account).sorted()
        }
    }

    func delete(_ item: KeychainItem, ownedBy owner: Data?) throws {
        try enter("delete", item)
        try lock.withLock {
            guard let found = stored[item], owner == nil || found.owner == owner else { throw KeychainStatus.itemNotFound }
            stored[item] = nil
        }
    }
}

extension KeychainTokenStore {
    /// A store of `service` in `keychain`, as the app (or one of its extensions) would have it.
    static func testing(
        _ keychain: InMemoryKeychain, service: String = "com.example.app.oauthflow", accessGroup: String? = nil,
        accessibility: Accessibility = defaultAccessibility, clock: any DateClock = SystemDateClock(),
        bootClock: any BootClock = SystemBootClock(), leaseDuration: TimeInterval = 120, lockWait: TimeInterval? = nil
    ) -> KeychainTokenStore {
        KeychainTokenStore(
            service: service, accessGroup: accessGroup, accessibility: accessibility, items: keychain, clock: clock, bootClock: bootClock,
            leaseDuration: leaseDuration, lockWait: lockWait)
    }
}

/// A ``BootClock`` a test moves: forward (time passing, asleep or not), or to a new start of the device.
final class MovableBootClock: BootClock, @unchecked Sendable {
    private let lock = NSLock()
    private var reading: BootInstant

    init(boot: String = "boot-1", seconds: Double = 86_400) {
        reading = BootInstant(boot: boot, nanoseconds: UInt64(seconds * 1e9))
    }

    func now() -> BootInstant { lock.withLock { reading } }

    func advance(_ seconds: Double) {
        lock.withLock { reading.nanoseconds += UInt64(seconds * 1e9) }
    }

    /// The device restarted: a new boot session, its clock from `seconds`.
    func restart(at seconds: Double = 30) {
        lock.withLock { reading = BootInstant(boot: UUID().uuidString, nanoseconds: UInt64(seconds * 1e9)) }
    }
}
