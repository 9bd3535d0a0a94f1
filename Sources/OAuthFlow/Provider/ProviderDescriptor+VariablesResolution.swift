extension ProviderDescriptor.Variable {
    /// Why the variable's `pattern` cannot be used (bad syntax, or a construct outside the
    /// linear-time subset described in Docs/descriptor-format.md), or nil.
    public var patternProblem: String? {
        pattern.flatMap(Pattern.problem(in:))
    }

    /// Checks a value against the variable's enum, pattern and the characters no URL part may take.
    ///
    /// - Throws: ``ProviderError`` with code ``ErrorCode/invalidVariable``.
    public func validate(_ value: String, name: String, provider: String) throws {
        guard let reason = problem(with: value) else { return }
        throw ProviderError(.invalidVariable, "variable `\(name)` of provider `\(provider)` \(reason)", provider: provider, variable: name)
    }

    /// Why ``validate(_:name:provider:)`` refuses a value, as the end of a sentence about the
    /// variable ("is empty", "must be one of …"), or nil. The `example` is offered after a pattern
    /// mismatch unless `citingExample` answers false (asked only then: when the example itself is
    /// what is checked, or does not fit).
    public func problem(with value: String, citingExample: @autoclosure () -> Bool = true) -> String? {
        // Values are quoted cut short: a long one (a hostile default, a pasted file) must not flood the
        // message. Quoted only for a refusal: most values pass.
        var quoted: String { TerminalText.quoted(value) }
        if value.isEmpty { return "is empty" }
        if ProviderDescriptor.holdsForbiddenInVariables(value) {
            return "contains a character that would change the URL's structure: \(quoted)"
        }
        // A whole path segment of `.` or `..` moves the path itself (RFC 3986 §5.2.4 removes it, or
        // the segment before it); in a host it leaves an empty label.
        if value == "." || value == ".." {
            return "is the dot segment \(quoted), which would move the URL's path"
        }
        if let allowed = self.enum, !allowed.contains(value) {
            return "must be one of \(allowed.map { "`\($0)`" }.joined(separator: ", ")), not \(quoted)"
        }
        if let pattern, !Pattern.matchesWhole(value, pattern: pattern) {
            var reason = "does not match the pattern `\(pattern)`: \(quoted)"
            if let example, example != value, citingExample() { reason += " (example: \(TerminalText.quoted(example)))" }
            return reason
        }
        return nil
    }
}
