#if Postgres
import Foundation
import Logging
import OAuthFlow

/// Keeps why PostgresNIO's pool last failed to connect.
///
/// The pool retries failed connections in the background and a waiting query learns
/// nothing but that it waited; this turns the pool's own log line into a short reason
/// (authentication failed, connection refused, the server's message) for the store's errors.
final class ConnectionFailureRecorder: Sendable {
    private let reason = Locked<String?>(nil)

    var latest: String? { reason.current }

    /// Forgets the failure once the server answers again.
    func clear() {
        reason.withLock { if $0 != nil { $0 = nil } }
    }

    func record(_ description: String) {
        let summary = Self.summarize(description)
        reason.withLock { $0 = summary }
    }

    /// A one-line reason from PostgresNIO's debug description of a connection error.
    static func summarize(_ description: String) -> String {
        var parts: [String] = []
        if let message = field("message", in: description) { parts.append(message) }
        if let state = field("sqlState", in: description) {
            switch state {
            case "28P01", "28000": parts.append("authentication failed: wrong user name or password, or not allowed to log in")
            case "3D000": parts.append("the database does not exist")
            case "53300": parts.append("the server has too many connections")
            case "57P03": parts.append("the server is starting up or shutting down")
            default: parts.append("SQLSTATE \(state)")
            }
        }
        if parts.isEmpty {
            let lower = description.lowercased()
            if lower.contains("connection refused") || lower.contains("econnrefused") {
                parts.append("connection refused (is PostgreSQL running and listening there?)")
            } else if lower.contains("timeout") || lower.contains("timedout") {
                parts.append("connecting timed out")
            } else if lower.contains("ssl") || lower.contains("tls") {
                parts.append("the TLS handshake failed")
            } else {
                parts.append("the connection could not be established")
            }
        }
        return parts.joined(separator: "; ")
    }

    /// The value of `name: VALUE` in a debug description, up to the next `,` or `]`.
    private static func field(_ name: String, in text: String) -> String? {
        guard let range = text.range(of: "\(name): ") else { return nil }
        let rest = text[range.upperBound...]
        let end = rest.firstIndex { $0 == "," || $0 == "]" || $0 == ")" } ?? rest.endIndex
        let value = rest[..<end].trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : String(value.prefix(200))
    }
}
#endif
