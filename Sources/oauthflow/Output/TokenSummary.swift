#if CLI
import Foundation
import OAuthFlow

/// What `token show` prints: everything but the tokens themselves.
struct TokenSummary {
    let text: String

    init(_ session: StoredSession, now: Date = Date()) {
        let tokens = session.tokens
        var lines = ["session: \(session.key)", "client: \(session.clientID)", "scopes: \(tokens.scopes.joined(separator: " "))"].map(
            TerminalText.escaped)
        if let expiresAt = tokens.expiresAt {
            let seconds = Int(expiresAt.timeIntervalSince(now))
            lines.append("expires: \(ISO8601DateFormatter().string(from: expiresAt)) (\(seconds >= 0 ? "in \(seconds) s" : "expired"))")
        } else {
            lines.append("expires: not stated by the server")
        }
        lines.append("refresh token: \(tokens.refreshToken == nil ? "none" : "present")")
        lines.append("id token: \(tokens.idToken == nil ? "none" : "present")")
        lines.append("updated: \(ISO8601DateFormatter().string(from: session.updatedAt))")
        text = lines.joined(separator: "\n") + "\n"
    }
}
#endif
