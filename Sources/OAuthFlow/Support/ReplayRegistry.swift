import Foundation

/// Identifiers seen (a logout token's `jti`, a DPoP proof's), each kept until a token carrying it
/// would be refused anyway, so that a replay is recognised. Share one between instances (PostgreSQL,
/// `OAuthFlowPostgres`) when any instance may receive the replay.
public protocol ReplayRegistry: Sendable {
    /// Records `identifier` until `expiry`.
    ///
    /// - Returns: False when it was already recorded and has not expired: a replay.
    /// - Throws: When the registry cannot be reached; the caller must then refuse the token.
    func firstUse(of identifier: String, until expiry: Date) async throws -> Bool
}

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
}
