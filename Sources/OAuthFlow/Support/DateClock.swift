import Foundation

/// The wall clock, injected so expiry logic can be tested without waiting.
public protocol DateClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemDateClock: DateClock {
    public init() {}
    public func now() -> Date { Date() }
}
