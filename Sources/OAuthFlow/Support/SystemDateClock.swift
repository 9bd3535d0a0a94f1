import Foundation

/// The system's wall clock.
public struct SystemDateClock: DateClock {
    public init() {}
    public func now() -> Date { Date() }
}
