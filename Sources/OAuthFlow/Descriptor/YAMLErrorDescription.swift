import Foundation
import OAuthFlowFiles

/// Turns a YAML syntax error into a message and a position.
enum YAMLErrorDescription {
    static func describe(_ error: YAMLSyntaxError, in text: String) -> (String, (line: Int, column: Int)) {
        let position = (line: error.line, column: error.column)
        switch error.kind {
        case .scanner, .parser, .composer:
            if error.problem.contains("yaml_set_max_nest_level") {
                return ("nesting is deeper than the YAML parser allows", position)
            }
            // libyaml's "found character that cannot start any token" on a TAB says nothing about tabs.
            if let line = lines(of: text, at: error.line), line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
                return ("a TAB indents this line; YAML indents with spaces only", (error.line, 1))
            }
            let prefix = error.context.map { "\($0.text) at \($0.line):\($0.column), " } ?? ""
            // `host: {tenant}.example.com`: YAML reads a value that begins with `{` as a mapping, and libyaml's words
            // ("did not find expected key") do not say so.
            if let line = lines(of: text, at: error.line), let value = braceValue(line) {
                return (
                    "YAML syntax error: \(prefix)\(error.problem); a value that begins with `{` is read as a YAML mapping: quote it ('\(value)')",
                    position
                )
            }
            return ("YAML syntax error: \(prefix)\(error.problem)", position)
        case .reader:
            return ("YAML reader error: \(error.problem)", position)
        case let .tooDeep(limit, throughAlias):
            let alias = throughAlias ? " through this alias (it stands for its anchor's whole value)" : ""
            return ("nesting is deeper than \(limit) levels\(alias)", position)
        case let .duplicateKeys(names):
            return ("duplicate key `\(names.joined(separator: "`, `"))`; YAML keeps only one of them, so remove or rename the repeat", position)
        }
    }

    /// The value of `line` (after `key: ` or `- `) when it begins with `{` and goes on past its `}`: a template
    /// written unquoted, which YAML reads as a flow mapping.
    private static func braceValue(_ line: Substring) -> Substring? {
        let trimmed = line.drop { $0 == " " }
        let value: Substring
        if trimmed.hasPrefix("- ") {
            value = trimmed.dropFirst(2)
        } else if let colon = trimmed.range(of: ": ") {
            value = trimmed[colon.upperBound...]
        } else {
            return nil
        }
        let text = value.drop { $0 == " " }
        guard text.hasPrefix("{"), let close = text.firstIndex(of: "}") else { return nil }
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        guard let next = rest.first, next != "#", next != "," else { return nil }
        return text.prefix(200)
    }

    private static func lines(of text: String, at number: Int) -> Substring? {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        return number >= 1 && number <= all.count ? all[number - 1] : nil
    }
}
