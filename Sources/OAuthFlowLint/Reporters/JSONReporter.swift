import Foundation

/// A JSON array of `{path, line, column, severity, rule_id, message}` objects.
package struct JSONReporter: Reporter {
    public init() {}

    private struct Entry: Encodable {
        let path: String
        let line: Int
        let column: Int
        let severity: String
        let ruleID: String
        let message: String

        enum CodingKeys: String, CodingKey {
            case path, line, column, severity, ruleID = "rule_id", message
        }
    }

    public func report(_ diagnostics: [Diagnostic]) -> String {
        part(diagnostics, following: false) + end(afterAny: !diagnostics.isEmpty)
    }

    /// The array's entries for `diagnostics`, each as the pretty-printing encoder writes an
    /// element of an array (indented two spaces), after the `[` or the `,` the array needs.
    public func part(_ diagnostics: [Diagnostic], following: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var text = ""
        for (index, diagnostic) in diagnostics.enumerated() {
            let entry = Entry(
                path: diagnostic.location.path, line: diagnostic.location.line, column: diagnostic.location.column,
                severity: diagnostic.severity.rawValue, ruleID: diagnostic.ruleID, message: diagnostic.message)
            guard let data = try? encoder.encode(entry) else { continue }
            text += index == 0 && !following ? "[\n" : ",\n"
            text += String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
        }
        return text
    }

    public func end(afterAny: Bool) -> String {
        afterAny ? "\n]\n" : "[\n\n]\n"
    }
}
