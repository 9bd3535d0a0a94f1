import Foundation
import OAuthFlow

/// Test helper: a token store that forwards everything to `base` and runs `afterRecord`
/// once a refreshed session is recorded (durable, not yet committed). The worker
/// processes use it to announce that moment, or to SIGKILL themselves right there.
public struct AfterRecordStore: TokenStore {
    let base: any TokenStore
    let afterRecord: @Sendable () -> Void

    public init(base: any TokenStore, afterRecord: @escaping @Sendable () -> Void) {
        self.base = base
        self.afterRecord = afterRecord
    }

    public func load(_ key: SessionKey) async throws -> StoredSession? { try await base.load(key) }
    public func save(_ session: StoredSession) async throws { try await base.save(session) }
    public func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        try await base.remove(key, whileHolding: refreshToken)
    }
    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock { try await base.lock(key) }
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation {
        Reservation(base: try await base.reserve(key), afterRecord: afterRecord)
    }

    struct Reservation: TokenStoreReservation {
        let base: any TokenStoreReservation
        let afterRecord: @Sendable () -> Void

        func record(_ session: StoredSession) async throws {
            try await base.record(session)
            afterRecord()
        }
        func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)? {
            base.answerRecorder(refreshing: session)
        }
        func commit(_ session: StoredSession) async throws { try await base.commit(session) }
        func abandon() async { await base.abandon() }
    }
}
