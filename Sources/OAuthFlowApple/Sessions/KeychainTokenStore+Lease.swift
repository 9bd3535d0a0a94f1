import Foundation
import OAuthFlow

/// The store's lock: a lease item beside the session (`ACCOUNT/lock`).
///
/// `SecItemAdd` of a generic password whose service, account and access group exist fails with
/// `errSecDuplicateItem` (Apple, `kSecClassGenericPassword`), so adding the lease is a test-and-set that every process
/// reading the session's access group takes part in: the app, its extensions, another instance on macOS. The lease holds
/// its owner (a random value, also its `kSecAttrGeneric`) and when it expires; a process that finds an expired lease
/// deletes that owner's lease only (a delete matching the owner) and adds its own, so two processes never both take it.
/// Unlike a file lock in an app group container, nothing is held by the kernel while the app is suspended (iOS ends an
/// app that holds a file lock in a shared container when it suspends: `0xdead10cc`), and a holder the system killed
/// loses the lease when it expires.
extension KeychainTokenStore {
    /// A lease's contents.
    struct Lease: Codable {
        /// Hex of 16 random bytes.
        var owner: String
        /// Seconds since 1970.
        var expires: Double
    }

    /// The leases this process holds, by item: a task of this process that holds one (a refresh re-reading the
    /// session under it) may recover the session's record under it.
    static let heldLeases = Locked<[KeychainItem: Int]>([:])

    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock {
        let item = item(key, "lock")
        let owner = Self.newOwner()
        // Poll rather than block, so that waiting never ties up a thread of the cooperative pool.
        var delay: UInt64 = 1_000_000
        while try !takeLease(item, owner: owner) {
            try await Task.sleep(nanoseconds: delay)
            delay = min(delay * 2, 50_000_000)
        }
        Self.heldLeases.withLock { $0[item, default: 0] += 1 }
        return LeaseLock(store: self, item: item, owner: owner)
    }

    /// Adds the lease for `owner`, replacing an expired one.
    ///
    /// - Returns: false when another owner's lease stands.
    func takeLease(_ item: KeychainItem, owner: String) throws -> Bool {
        let lease = Lease(owner: owner, expires: clock.now().addingTimeInterval(leaseDuration).timeIntervalSince1970)
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
            guard let standing = try read(item) else { continue }
            guard let current = try? JSONDecoder().decode(Lease.self, from: standing) else {
                // Not a lease this store wrote: nobody can release it.
                try delete(item)
                continue
            }
            guard current.expires < clock.now().timeIntervalSince1970 else { return false }
            // Expired: its holder was killed. Only that lease goes; one another process took meanwhile stays.
            do {
                try items.delete(item, ownedBy: Data(current.owner.utf8))
            } catch let status as KeychainStatus where status == .itemNotFound {
            } catch let status as KeychainStatus {
                throw failure(status, "delete", item)
            }
        }
        return false
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
