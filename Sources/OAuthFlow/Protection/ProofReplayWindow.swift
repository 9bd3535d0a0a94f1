import Foundation

/// The DPoP proofs an API accepted while they could be replayed (RFC 9449 §11.1), in this process's memory.
///
/// Bounded twice: at most ``capacity`` live proofs, and at most a quarter of them for one key, so that one client
/// sending proofs as fast as it can (with its own token and key) fills its share and is refused, while every other
/// client's proofs are still taken. A proof is never forgotten while it is live: a full window refuses, it does not
/// evict. Proofs leave in the order they expire, each in constant time.
final class ProofReplayWindow: Sendable {
    let capacity: Int
    /// The most live proofs of one key.
    let perKey: Int

    private struct Entry {
        let key: String
        let identifier: String
        let expiry: Date
    }

    private struct State {
        var live: Set<String> = []
        var byKey: [String: Int] = [:]
        /// Entries in the order they were taken; `head` is the oldest still held.
        var queue: [Entry] = []
        var head = 0

        mutating func expire(now: Date) {
            while head < queue.count, queue[head].expiry <= now {
                let entry = queue[head]
                live.remove(entry.identifier)
                let left = (byKey[entry.key] ?? 1) - 1
                byKey[entry.key] = left > 0 ? left : nil
                head += 1
            }
            // Dropped entries are reclaimed once they are half of the queue.
            if head > 1_024, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
    }

    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        perKey = max(1, self.capacity / 4)
    }

    /// What became of a proof.
    enum Use: Equatable {
        /// Taken: never seen while live.
        case first
        /// Seen before, while live: a replay.
        case again
        /// The key's share of the window is full: refused without being seen.
        case keyFull
        /// The whole window is full: refused without being seen.
        case full
    }

    /// Takes the proof `jti` of the key `thumbprint` until `expiry`, unless it was taken before or there is no room.
    func use(key thumbprint: String, jti: String, until expiry: Date, now: Date) -> Use {
        let identifier = thumbprint + " " + jti
        return state.withLock { state in
            state.expire(now: now)
            guard !state.live.contains(identifier) else { return .again }
            guard state.live.count < capacity else { return .full }
            guard state.byKey[thumbprint, default: 0] < perKey else { return .keyFull }
            state.live.insert(identifier)
            state.byKey[thumbprint, default: 0] += 1
            state.queue.append(Entry(key: thumbprint, identifier: identifier, expiry: expiry))
            return .first
        }
    }
}
