#if Postgres
import Foundation
import Logging
import OAuthFlow

/// Forwards every log event and hands the pool's "Connection creation failed" to a recorder.
struct RecordingLogHandler: LogHandler {
    let recorder: ConnectionFailureRecorder
    var forward: any LogHandler

    var metadata: Logger.Metadata {
        get { forward.metadata }
        set { forward.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { min(forward.logLevel, .info) }
        set { forward.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { forward[metadataKey: key] }
        set { forward[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description == "Connection creation failed", let error = event.metadata?["psql_error"] ?? event.metadata?["error"] {
            recorder.record("\(error)")
        }
        if event.level >= forward.logLevel {
            forward.log(event: event)
        }
    }
}
#endif
