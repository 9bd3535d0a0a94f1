import Foundation
import OAuthFlow

/// A clock a test moves forward: tokens expire, codes age and refresh windows open without waiting.
///
/// `MovableClock()` follows the real time plus what the test added with ``advance(_:)``;
/// `MovableClock(startingAt:)` stands still at its date until the test moves it, for tests that
/// compare exact times.
///
/// ```swift
/// let clock = MovableClock()
/// clock.advance(3600)   // an hour later: the access token has expired
/// ```
///
/// Its ``sleep(seconds:)`` moves it forward instead of waiting, so a device sign-in that polls every five
/// seconds finishes at once while the provider sees the seconds go by.
public final class MovableClock: DateClock, Sendable {
    private let start: Date?
    private let offset = Locked<TimeInterval>(0)

    /// A clock that follows the real time, plus what ``advance(_:)`` adds.
    public init() {
        start = nil
    }

    /// A clock that shows `date` until ``advance(_:)`` moves it.
    public init(startingAt date: Date) {
        start = date
    }

    public func now() -> Date { (start ?? Date()).addingTimeInterval(offset.current) }

    /// Moves the clock forward by `seconds` (backward when negative).
    public func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    /// Moves the clock forward by `seconds` at once, instead of waiting.
    public func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        advance(max(0, seconds))
        await Task.yield()
    }
}
