import Foundation
import Logging

/// Collects log messages so tests can see what the library said.
public final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init() {}

    public var messages: [String] { lock.withLock { storage } }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let line = "\(event.message) " + (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lock.withLock { storage.append(line) }
    }
}
