import Foundation

/// Identifiers seen, in this process's memory.
///
/// Bounded: when ``capacity`` entries are live, new identifiers are refused until some expire,
/// rather than forgetting one that could then be replayed.
public final class InMemoryReplayRegistry: ReplayRegistry, Sendable {
    public let capacity: Int
    private let clock: any DateClock
    private let seen = Locked<[String: Date]>([:])

    public init(capacity: Int = 100_000, clock: any DateClock = SystemDateClock()) {
        self.capacity = capacity
        self.clock = clock
    }

    public func firstUse(of identifier: String, until expiry: Date) async throws -> Bool {
        firstUse(of: identifier, until: expiry, now: clock.now())
    }

    /// Records `identifier` until `expiry`; false when it is already recorded (or the registry is full of live entries).
    public func firstUse(of identifier: String, until expiry: Date, now: Date) -> Bool {
        seen.withLock { entries in
            if let previous = entries[identifier], previous > now { return false }
            if entries.count >= capacity { entries = entries.filter { $0.value > now } }
            guard entries.count < capacity else { return false }
            entries[identifier] = expiry
            return true
        }
    }

    public func isRecorded(_ identifier: String) async throws -> Bool {
        let now = clock.now()
        return seen.withLock { entries in entries[identifier].map { $0 > now } ?? false }
    }

    public func forget(_ identifier: String) async throws {
        _ = seen.withLock { entries in entries.removeValue(forKey: identifier) }
    }
}
