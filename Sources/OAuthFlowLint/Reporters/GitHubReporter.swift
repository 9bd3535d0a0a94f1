/// GitHub Actions workflow commands, which annotate the lines in a pull request.
package struct GitHubReporter: Reporter {
    public init() {}

    public func report(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map {
            "::\($0.severity == .info ? "notice" : $0.severity.rawValue) file=\(escapeProperty($0.location.path)),line=\($0.location.line),col=\($0.location.column),title=\(escapeProperty($0.ruleID))::\(escapeData($0.message))\n"
        }.joined()
    }

    /// Escapes a message as the workflow-command syntax requires.
    private func escapeData(_ value: String) -> String {
        value.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Escapes a property value, which additionally may not contain `:` or `,`.
    private func escapeProperty(_ value: String) -> String {
        escapeData(value).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
