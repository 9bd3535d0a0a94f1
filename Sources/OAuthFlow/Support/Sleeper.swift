import Foundation

/// Waits between polls; injected so that tests take no real time.
public protocol Sleeper: Sendable {
    /// Sleeps, or throws `CancellationError` when the task is cancelled.
    func sleep(seconds: TimeInterval) async throws
}

/// `Task.sleep`: real time, cancellable.
public struct TaskSleeper: Sleeper {
    public init() {}
    public func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
