/// Turns diagnostics into text for one kind of reader.
public protocol Reporter: Sendable {
    /// The whole report for a lint run; empty when there is nothing to say.
    func report(_ diagnostics: [Diagnostic]) -> String
}

/// The output formats `oauthflow lint --format` accepts.
public enum ReportFormat: String, Sendable, CaseIterable {
    case text, json, github

    public var reporter: any Reporter {
        switch self {
        case .text: TextReporter()
        case .json: JSONReporter()
        case .github: GitHubReporter()
        }
    }
}
