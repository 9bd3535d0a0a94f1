import Foundation

/// A value behind a lock, for state read on every request where an actor hop would cost more
/// than the work (the checks of an API's access tokens).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; keep it short and never suspend in it.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// The value, copied out under the lock.
    public var current: Value { withLock { $0 } }
}
