import OAuthFlow

/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    /// Advice: shown, but never a failure, not even under `--strict`.
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }
}
