import Foundation
import OAuthFlow

/// Recording a refresh answer before its checks, in the item `ACCOUNT/received`, and recovering it.
extension KeychainTokenStore {
    /// Finds out, before the refresh token is spent, that the keychain takes writes now (not while a locked device
    /// makes the items unreadable, nor without the entitlement): the record's item is written here, saying "no answer".
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation {
        let received = item(key, "received")
        if let data = try read(item(key)) {
            let session = try decode(data, item(key))
            try write(try RefreshAnswerRecord.header(keeping: session) { try $0.encoded() } + RefreshAnswerRecord.noAnswerYet, to: received)
        }
        // The first JSON encoding in a process is slow (type metadata): paid now, not between the answer and its record.
        _ = try? JSONEncoder().encode(Lease(owner: "", boot: "", until: 0))
        return Reservation(store: self, received: received)
    }

    /// The record of one refresh: placed before the request (the session to keep, "no answer yet"), the raw answer
    /// written into it on the thread that read it, made the session on commit.
    final class Reservation: TokenStoreReservation, Sendable {
        let store: KeychainTokenStore
        let received: KeychainItem
        private let state = Locked(State.reserved)

        /// `answered`: the raw answer is in the record; `recorded`: the parsed session is.
        private enum State { case reserved, placed, answered, recorded, finished }

        init(store: KeychainTokenStore, received: KeychainItem) {
            self.store = store
            self.received = received
        }

        func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)? {
            guard let header = try? RefreshAnswerRecord.header(keeping: session, encode: { try $0.encoded() }) else { return nil }
            let placed = state.withLock { state -> Bool in
                guard state == .reserved, (try? store.write(header + RefreshAnswerRecord.noAnswerYet, to: received)) != nil else { return false }
                state = .placed
                return true
            }
            guard placed else { return nil }
            return { [self] answer in
                let record = header + Data(RefreshAnswerRecord.frame(answer))
                state.withLock { state in
                    guard state == .placed, (try? store.items.update(received, data: record, owner: nil, accessibility: store.accessibility)) != nil
                    else {
                        return
                    }
                    state = .answered
                }
            }
        }

        func record(_ session: StoredSession) async throws {
            let data = try session.encoded()
            try state.withLock { state in
                switch state {
                case .reserved, .placed:
                    try store.write(data, to: received)
                    state = .recorded
                case .answered, .recorded, .finished:
                    break
                }
            }
        }

        func commit(_ session: StoredSession) async throws {
            let data = try session.encoded()
            try state.withLock { state in
                guard state != .finished else { return }
                try store.write(data, to: store.item(session.key))
                state = .finished
                // The session now holds the recorded refresh token; recovery would drop the record anyway.
                try? store.delete(received)
            }
        }

        func abandon() async {
            state.withLock { state in
                guard state != .finished else { return }
                state = .finished
                try? store.delete(received)
            }
        }
    }

    /// What a refresh recorded and did not live to commit, recovered as `FileTokenStore` recovers its
    /// `NAME.received.json`: only what may be kept before the checks (the answer's refresh token on the verified
    /// session), written over the session under the lease (taken without waiting; when another process holds it, that
    /// refresher deals with the record), and the record deleted. A record whose refresh token the session already holds
    /// (committed, then killed before tidying up), or made for another session than the stored one (signed in again
    /// since), is dropped; one with no answer yet belongs to a refresh in flight and is left alone.
    ///
    /// - Returns: The recovered session, or nil when there is none.
    func recoverReceived(_ key: SessionKey) throws -> StoredSession? {
        let received = item(key, "received")
        guard let first = try read(received) else { return nil }
        if let contents = try? contents(of: first, received), contents.kept == nil { return nil }
        var recovered: StoredSession?
        try withRecoveryExclusion(key) {
            // Read again now that no other process can be refreshing: the last holder may have finished it.
            guard let data = try read(received) else { return }
            guard let (kept, spent) = try? contents(of: data, received), kept?.key ?? key == key else {
                try write(data, to: item(key, "corrupt-\(Int(clock.now().timeIntervalSince1970))"))
                try delete(received)
                return
            }
            guard let kept else { return }
            let current = try? read(item(key)).map { try decode($0, item(key)) }
            if let current, current.tokens.refreshToken == kept.tokens.refreshToken || spent.map({ current.tokens.refreshToken != $0 }) ?? false {
                // Committed already, or replaced by a later sign-in: the session item is the session.
                try delete(received)
                recovered = current
                return
            }
            try write(try kept.encoded(), to: item(key))
            try delete(received)
            recovered = kept
        }
        return recovered
    }

    /// What the record holds: the session to keep (nil while no answer arrived) and the refresh token the refresh
    /// spent, when the record says (a raw answer's does; a session recorded after parsing does not).
    private func contents(of data: Data, _ item: KeychainItem) throws -> (kept: StoredSession?, spent: Secret??) {
        guard RefreshAnswerRecord.isRecord(data) else { return (try decode(data, item), nil) }
        let contents = try RefreshAnswerRecord.contents(of: data, path: item.description) { json, _ in try decode(json, item) }
        return (contents.answered ? contents.sessionToKeep : nil, .some(contents.refreshing.tokens.refreshToken))
    }
}
