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

/// One finding of a lint rule, positioned in a descriptor file.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    public var severity: Severity
    public var ruleID: String
    public var message: String

    public init(location: SourceLocation, severity: Severity, ruleID: String, message: String) {
        self.location = location
        self.severity = severity
        self.ruleID = ruleID
        self.message = message
    }

    /// `path:line:column: severity: message [rule_id]`, the format compilers and editors read.
    /// A key or value quoted from a descriptor cannot break the line: control characters are escaped.
    public var description: String {
        TerminalText.escaped("\(location): \(severity.rawValue): \(message) [\(ruleID)]")
    }
}
