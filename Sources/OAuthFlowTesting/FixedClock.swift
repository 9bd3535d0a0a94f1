import Foundation
import OAuthFlow

/// A clock stopped at one moment.
///
/// ```swift
/// let clock = FixedClock(date: Date(timeIntervalSince1970: 1_900_000_000))
/// ```
public struct FixedClock: DateClock {
    /// The moment every call to ``now()`` returns.
    public let date: Date

    /// - Parameter date: The moment the clock shows.
    public init(date: Date) {
        self.date = date
    }

    public func now() -> Date { date }

    /// Returns at once: the clock never moves, so there is nothing to wait for.
    public func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        await Task.yield()
    }
}
