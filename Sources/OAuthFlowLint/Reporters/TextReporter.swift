/// `path:line:column: severity: message [rule_id]`, one per line, as compilers print.
package struct TextReporter: Reporter {
    public init() {}

    public func report(_ diagnostics: [Diagnostic]) -> String {
        String(decoding: bytes(diagnostics), as: UTF8.self)
    }

    /// ``report(_:)``'s UTF-8 bytes: the whole batch's lines, each appended in place. A string interpolated, escaped
    /// and joined for each diagnostic cost ten thousand instructions a line (Docs/benchmarks.md).
    func bytes(_ diagnostics: [Diagnostic]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(diagnostics.reduce(0) { $0 + $1.location.path.utf8.count + $1.message.utf8.count + $1.ruleID.utf8.count + 40 })
        for diagnostic in diagnostics {
            diagnostic.appendLine(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
