#if CLI
import Logging
import OAuthFlow

/// A log handler that escapes what a server may have written (a discovered endpoint's host, an error's description,
/// a metadata value) before it reaches a terminal: control characters and line breaks appear as escapes, so no log
/// line can forge another, move the cursor or retitle the window.
struct TerminalLogHandler: LogHandler {
    private var inner: StreamLogHandler

    init(_ inner: StreamLogHandler) {
        self.inner = inner
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var escaped = event
        escaped.message = "\(TerminalText.escaped(event.message.description))"
        escaped.metadata = event.metadata?.mapValues(Self.escaped)
        if let error = event.error {
            escaped.error = nil
            escaped.metadata = (escaped.metadata ?? [:]).merging(["error": .string(TerminalText.escaped(String(describing: error)))]) { _, event in
                event
            }
        }
        inner.log(event: escaped)
    }

    /// A metadata value with every string in it escaped.
    static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case let .string(text): .string(TerminalText.escaped(text))
        case let .stringConvertible(convertible): .string(TerminalText.escaped(convertible.description))
        case let .array(values): .array(values.map(escaped))
        case let .dictionary(values): .dictionary(values.mapValues(escaped))
        }
    }
}
#endif
