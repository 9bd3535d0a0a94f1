import Foundation

/// A JSON array of `{path, line, column, severity, rule_id, message}` objects.
public struct JSONReporter: Reporter {
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
        let entries = diagnostics.map {
            Entry(
                path: $0.location.path, line: $0.location.line, column: $0.location.column,
                severity: $0.severity.rawValue, ruleID: $0.ruleID, message: $0.message)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entries), let text = String(data: data, encoding: .utf8) else { return "[]\n" }
        return text + "\n"
    }
}
