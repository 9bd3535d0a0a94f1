import Crypto
import Foundation

/// Tokens already checked, by the SHA-256 of their bytes: each until its `exp` (or the end of its
/// introspection cache), and a JWT only while the JWKS that verified it is current.
///
/// Bounded by two generations: entries go into the young one; when it holds half the capacity it
/// becomes the old one and the previous old one is dropped (outside the lock). A hit in the old
/// generation moves back into the young one, so tokens in use stay; each store costs O(1).
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        /// nil: the provider said the token is not active.
        let principal: ProtectedResource.Principal?
        let until: Date
        let provider: Int
        let generation: Int?
    }

    /// The SHA-256 of a token as four words: hashed and compared without touching the digest type.
    struct Key: Hashable, Sendable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        init(_ digest: SHA256Digest) {
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            digest.withUnsafeBytes { raw in
                words = (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
            (a, b, c, d) = words
        }
    }

    enum Lookup {
        case miss
        case accepted(ProtectedResource.Principal)
        /// The provider at this index said the token is not active.
        case inactive(Int)
    }

    private struct Generations {
        var young: [Key: Entry] = [:]
        var old: [Key: Entry] = [:]
    }

    let capacity: Int
    private let generations = Locked(Generations())

    init(capacity: Int) { self.capacity = capacity }

    func lookup(_ digest: SHA256Digest, now: Date, generation: (Int) -> Int?) -> Lookup {
        let key = Key(digest)
        let found: Entry? = generations.withLock { state in
            if let entry = state.young[key] { return entry }
            guard let entry = state.old.removeValue(forKey: key) else { return nil }
            state.young[key] = entry
            return entry
        }
        guard let entry = found, now < entry.until else { return .miss }
        if let verifiedWith = entry.generation, generation(entry.provider) != verifiedWith { return .miss }
        guard let principal = entry.principal else { return .inactive(entry.provider) }
        return .accepted(principal)
    }

    func store(_ digest: SHA256Digest, principal: ProtectedResource.Principal?, until: Date, provider: Int, generation: Int?, now: Date) {
        guard capacity > 0, until > now else { return }
        let entry = Entry(principal: principal, until: until, provider: provider, generation: generation)
        let key = Key(digest)
        let dropped: [Key: Entry] = generations.withLock { state in
            state.young[key] = entry
            guard state.young.count >= max(1, capacity / 2) else { return [:] }
            let dropped = state.old
            state.old = state.young
            state.young = [:]
            return dropped
        }
        _ = dropped  // freed here, after the lock
    }
}
