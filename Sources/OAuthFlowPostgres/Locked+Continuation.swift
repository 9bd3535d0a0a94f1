#if Postgres
import OAuthFlow

/// A continuation behind a lock, resumed once: whichever of two racing tasks (an answer, a deadline)
/// comes first delivers, and the other's resume does nothing. `current == nil` once it was resumed.
extension Locked {
    /// Resumes the continuation with `value` unless it was resumed already.
    ///
    /// - Returns: false when it was (the value was not delivered).
    @discardableResult
    func resume<T>(returning value: sending T) -> Bool where Value == CheckedContinuation<T, any Error>? {
        guard let continuation = withLock({ $0.take() }) else { return false }
        continuation.resume(returning: value)
        return true
    }

    /// Resumes the continuation with `error` unless it was resumed already.
    func resume<T>(throwing error: any Error) where Value == CheckedContinuation<T, any Error>? {
        withLock { $0.take() }?.resume(throwing: error)
    }
}
#endif
