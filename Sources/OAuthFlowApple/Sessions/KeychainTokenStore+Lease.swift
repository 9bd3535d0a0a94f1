import Foundation
import OAuthFlow

/// The store's lock: a lease item beside the session (`ACCOUNT/lock`).
///
/// `SecItemAdd` of a generic password whose service, account and access group exist fails with
/// `errSecDuplicateItem` (Apple, `kSecClassGenericPassword`), so adding the lease is a test-and-set that every process
/// reading the session's access group takes part in: the app, its extensions, another instance on macOS. The lease holds
/// its owner (a random value, also its `kSecAttrGeneric`) and when it expires on the ``BootClock``: time since the device
/// started, counting sleep, with the start it belongs to, so that no step of the wall clock shortens or lengthens it. A
/// process that finds a stale lease (expired, taken before the device restarted, or expiring further ahead than a lease
/// lasts) deletes that owner's lease only (a delete matching the owner) and adds its own, so two processes never both
/// take it. A waiter gives up, `unavailable`, a little after the longest a lease can last.
/// Unlike a file lock in an app group container, nothing is held by the kernel while the app is suspended (iOS ends an
/// app that holds a file lock in a shared container when it suspends: `0xdead10cc`), and a holder the system killed
/// loses the lease when it expires.
extension KeychainTokenStore {
    /// A lease's contents.
    struct Lease: Codable {
        /// Hex of 16 random bytes.
        var owner: String
        /// The start of the device it was taken in (``BootInstant/boot``).
        var boot: String
        /// When it expires: nanoseconds since that start, on the ``BootClock``.
        var until: UInt64
    }

    /// The leases this process holds, by item: a task of this process that holds one (a refresh re-reading the
    /// session under it) may recover the session's record under it.
    static let heldLeases = Locked<[KeychainItem: Int]>([:])

    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock {
        let item = item(key, "lock")
        let owner = Self.newOwner()
        // Poll rather than block, so that waiting never ties up a thread of the cooperative pool. The wait is counted
        // in the sleeps asked for, not by the wall clock, which may jump.
        var delay: UInt64 = 1_000_000
        var waited: UInt64 = 0
        while try !takeLease(item, owner: owner) {
            guard Double(waited) < lockWait * 1e9 else {
                throw TokenStoreError(
                    .unavailable,
                    "another process held the refresh lease of the \(item) for the whole \(Int(lockWait)) s this process waited (a lease lasts at most \(Int(leaseDuration)) s); nothing was changed: try again",
                    path: item.description)
            }
            try await Task.sleep(nanoseconds: delay)
            waited += delay
            delay = min(delay * 2, 50_000_000)
        }
        Self.heldLeases.withLock { $0[item, default: 0] += 1 }
        return LeaseLock(store: self, item: item, owner: owner)
    }

    /// What a standing lease item means to a process that wants it.
    enum Standing: Equatable {
        /// Another owner's lease, within its life: wait.
        case held
        /// Expired (its holder was killed, or suspended for longer than a lease lasts), taken before the device
        /// restarted, or claiming to last longer from now than any lease may: its owner's lease may go.
        case stale(owner: Data)
        /// Not a lease this store wrote: nobody can release it.
        case unreadable
    }

    /// What the lease `data` means at `now`, for leases that last `leaseDuration`. A lease of an earlier format (its
    /// expiry on the wall clock) is not one this store reads: its owner's item goes (``Standing/unreadable``).
    static func standing(of data: Data, now: BootInstant, leaseDuration: TimeInterval) -> Standing {
        guard let lease = try? JSONDecoder().decode(Lease.self, from: data) else { return .unreadable }
        guard lease.boot == now.boot, lease.until >= now.nanoseconds, lease.until - now.nanoseconds <= nanoseconds(leaseDuration) else {
            return .stale(owner: Data(lease.owner.utf8))
        }
        return .held
    }

    /// `duration` in nanoseconds, from 0 to 10⁹ s.
    static func nanoseconds(_ duration: TimeInterval) -> UInt64 {
        UInt64(max(0, min(duration, 1e9)) * 1e9)
    }

    /// Adds the lease for `owner`, replacing a stale one or one that is not a lease.
    ///
    /// - Returns: false when another owner's lease stands.
    func takeLease(_ item: KeychainItem, owner: String) throws -> Bool {
        let taken = bootClock.now()
        let lease = Lease(owner: owner, boot: taken.boot, until: min(taken.nanoseconds, .max / 2) + Self.nanoseconds(leaseDuration))
        let data = try JSONEncoder().encode(lease)
        for _ in 0..<2 {
            do {
                try items.add(item, data: data, owner: Data(owner.utf8), accessibility: accessibility)
                return true
            } catch let status as KeychainStatus where status == .duplicateItem {
                // Read below.
            } catch let status as KeychainStatus {
                throw failure(status, "add", item)
            }
            guard let standing = try readOwned(item) else { continue }
            switch Self.standing(of: standing.data, now: bootClock.now(), leaseDuration: leaseDuration) {
            case .held:
                return false
            case .stale(let holder):
                // Only that lease goes; one another process took meanwhile stays.
                try deleteLease(item, ownedBy: holder)
            case .unreadable:
                try deleteUnreadable(item, standing)
            }
        }
        return false
    }

    /// Deletes the item that is not a lease, only while it is still the one read: by its owner when it has one (the
    /// delete matches it), else after reading it again unchanged. A lease another process took meanwhile stays.
    private func deleteUnreadable(_ item: KeychainItem, _ read: (data: Data, owner: Data?)) throws {
        if let owner = read.owner {
            try deleteLease(item, ownedBy: owner)
            return
        }
        guard let again = try readOwned(item), again.data == read.data, again.owner == nil else { return }
        try deleteLease(item, ownedBy: nil)
    }

    private func deleteLease(_ item: KeychainItem, ownedBy owner: Data?) throws {
        do {
            try items.delete(item, ownedBy: owner)
        } catch let status as KeychainStatus where status == .itemNotFound {
        } catch let status as KeychainStatus {
            throw failure(status, "delete", item)
        }
    }

    private func readOwned(_ item: KeychainItem) throws -> (data: Data, owner: Data?)? {
        do {
            return try items.readOwned(item)
        } catch let status as KeychainStatus {
            throw failure(status, "read", item)
        }
    }

    /// Runs `body` where no other process refreshes the session: under its lease, taken without waiting, or under
    /// one this process already holds. When another process holds it, `body` does not run (that refresher finishes
    /// what `body` would have done).
    func withRecoveryExclusion(_ key: SessionKey, _ body: () throws -> Void) throws {
        let item = item(key, "lock")
        if Self.heldLeases.withLock({ $0[item, default: 0] > 0 }) {
            try body()
            return
        }
        let owner = Self.newOwner()
        guard try takeLease(item, owner: owner) else { return }
        defer { try? items.delete(item, ownedBy: Data(owner.utf8)) }
        try body()
    }

    static func newOwner() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    private struct LeaseLock: TokenStoreLock {
        let store: KeychainTokenStore
        let item: KeychainItem
        let owner: String

        func release() {
            KeychainTokenStore.heldLeases.withLock { held in
                held[item, default: 1] -= 1
                if held[item] == 0 { held[item] = nil }
            }
            // Only this owner's lease: after an expiry another process may hold the item.
            try? store.items.delete(item, ownedBy: Data(owner.utf8))
        }
    }
}
