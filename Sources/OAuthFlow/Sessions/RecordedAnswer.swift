import Foundation

/// The part of a refresh answer that was recorded, if the answer arrived.
final class RecordedAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var value: StoredSession?
    private var failure: (any Error)?
    private var raw: TransportResponse?

    /// The answer as it arrived (a 2xx), before its checks.
    var response: TransportResponse? {
        get { lock.withLock { raw } }
        set { lock.withLock { raw = newValue } }
    }

    var session: StoredSession? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }

    /// Why the store could not record it, if it could not.
    var recordError: (any Error)? {
        get { lock.withLock { failure } }
        set { lock.withLock { failure = newValue } }
    }
}
