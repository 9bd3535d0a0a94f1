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
