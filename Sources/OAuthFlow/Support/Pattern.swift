import Foundation

/// Whole-string regular expression matching for descriptor patterns.
enum Pattern {
    /// Whether `value` matches `pattern` from its first character to its last.
    ///
    /// An invalid pattern matches nothing, so a broken `pattern` rejects values
    /// rather than letting them through.
    static func matchesWhole(_ value: String, pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        let range = NSRange(value.startIndex..., in: value)
        guard let match = expression.firstMatch(in: value, options: [.anchored], range: range) else { return false }
        return match.range == range
    }

    /// Whether `pattern` compiles as a regular expression.
    static func isValid(_ pattern: String) -> Bool {
        (try? NSRegularExpression(pattern: pattern)) != nil
    }
}
