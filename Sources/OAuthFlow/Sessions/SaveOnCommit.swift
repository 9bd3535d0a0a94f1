import Foundation

/// The reservation of a store with nothing to reserve: ``TokenStore/save(_:)`` on commit.
struct SaveOnCommit: TokenStoreReservation {
    let store: any TokenStore
    func record(_ session: StoredSession) async throws {}
    func commit(_ session: StoredSession) async throws { try await store.save(session) }
    func abandon() async {}
}
