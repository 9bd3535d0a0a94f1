/// `path:line:column: severity: message [rule_id]`, one per line, as compilers print.
package struct TextReporter: Reporter {
    public init() {}

    public func report(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { "\($0)\n" }.joined()
    }
}
