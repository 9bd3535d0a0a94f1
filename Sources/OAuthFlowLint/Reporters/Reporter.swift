/// Turns diagnostics into text for one kind of reader.
public protocol Reporter: Sendable {
    /// The whole report for a lint run; empty when there is nothing to say.
    func report(_ diagnostics: [Diagnostic]) -> String

    /// The report written as the diagnostics arrive: `part(_:following:)` for each batch
    /// (`following` says whether any diagnostic came before it), then `end(afterAny:)`.
    /// Joined, the parts are ``report(_:)`` of every batch together.
    func part(_ diagnostics: [Diagnostic], following: Bool) -> String
    /// What closes a report written in parts.
    func end(afterAny: Bool) -> String
}

extension Reporter {
    /// One line or more per diagnostic, with nothing around them: a part is the report of its diagnostics.
    public func part(_ diagnostics: [Diagnostic], following: Bool) -> String { report(diagnostics) }
    public func end(afterAny: Bool) -> String { "" }
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

    /// ``Reporter/part(_:following:)`` of this format's reporter as UTF-8 bytes, for a caller that writes bytes (the
    /// CLI): the reporters write bytes, and a `String` made of them only to be written out again had every byte
    /// validated as UTF-8 on the way (Docs/benchmarks.md).
    package func partBytes(_ diagnostics: [Diagnostic], following: Bool) -> [UInt8] {
        switch self {
        case .text: TextReporter().bytes(diagnostics)
        case .json: JSONReporter().partBytes(diagnostics, following: following)
        case .github: GitHubReporter().bytes(diagnostics)
        }
    }
}
