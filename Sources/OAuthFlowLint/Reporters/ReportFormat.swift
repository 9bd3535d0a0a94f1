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

    /// ``Reporter/part(_:following:)`` of this format's reporter as UTF-8 bytes, for a caller that writes bytes (the
    /// CLI): the reporters write bytes, and a `String` made of them only to be written out again had every byte
    /// validated as UTF-8 on the way (Docs/benchmarks.md).
    public func partBytes(_ diagnostics: [Diagnostic], following: Bool) -> [UInt8] {
        switch self {
        case .text: TextReporter().bytes(diagnostics)
        case .json: JSONReporter().partBytes(diagnostics, following: following)
        case .github: GitHubReporter().bytes(diagnostics)
        }
    }
}
