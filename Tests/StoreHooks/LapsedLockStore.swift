import Foundation
import OAuthFlow

/// Test helper: a token store that forwards everything to `base` but takes no lock: a process that found another
/// holder's lease stale (the holder suspended for longer than a lease lasts) and refreshes while that holder still
/// runs. The worker processes use it to lose and win a refresh race against a process that holds the real lock.
public struct LapsedLockStore: TokenStore {
    let base: any TokenStore

    public init(base: any TokenStore) {
        self.base = base
    }

    public func load(_ key: SessionKey) async throws -> StoredSession? { try await base.load(key) }
    public func save(_ session: StoredSession) async throws { try await base.save(session) }
    public func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        try await base.remove(key, whileHolding: refreshToken)
    }
    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock { Unheld() }
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation { try await base.reserve(key) }

    struct Unheld: TokenStoreLock {
        func release() {}
    }
}
