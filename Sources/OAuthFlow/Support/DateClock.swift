import Foundation

/// The wall clock, and how the library waits on it: injected so expiry logic and polling can be tested
/// without waiting.
public protocol DateClock: Sendable {
    /// What time it is.
    func now() -> Date
    /// Waits `seconds` by this clock (the device flow's wait between polls), or throws `CancellationError`
    /// when the task is cancelled. By default, `Task.sleep`: real time.
    func sleep(seconds: TimeInterval) async throws
}

extension DateClock {
    public func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
