import Foundation
import OAuthFlow

/// A clock stopped at one moment.
public struct FixedClock: DateClock {
    public let date: Date

    public init(date: Date) {
        self.date = date
    }

    public func now() -> Date { date }
}

/// A clock tests move forward, from the real time.
public final class MovableClock: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    public init() {}

    public func now() -> Date { Date().addingTimeInterval(lock.withLock { offset }) }
    public func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
}
