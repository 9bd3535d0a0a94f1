#if CLI
import Foundation

/// A URL one sign-in event gives and a later one reads, on whichever thread each is delivered.
final class EventURL: @unchecked Sendable {
    private let lock = NSLock()
    private var url: URL?

    var value: URL? {
        get { lock.withLock { url } }
        set { lock.withLock { url = newValue } }
    }
}
#endif
