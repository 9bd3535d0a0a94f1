import Foundation

/// Whole-string regular expression matching for descriptor patterns.
enum Pattern {
    /// Compiled expressions by pattern text; descriptors repeat the same few patterns.
    private static let cache = ExpressionCache()

    /// Whether `value` matches `pattern` from its first character to its last.
    ///
    /// An invalid pattern matches nothing, so a broken `pattern` rejects values
    /// rather than letting them through.
    static func matchesWhole(_ value: String, pattern: String) -> Bool {
        guard let expression = cache.expression(for: pattern) else { return false }
        let range = NSRange(value.startIndex..., in: value)
        guard let match = expression.firstMatch(in: value, options: [.anchored], range: range) else { return false }
        return match.range == range
    }
}

/// A thread-safe cache of compiled regular expressions.
private final class ExpressionCache: @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression?] = [:]

    func expression(for pattern: String) -> NSRegularExpression? {
        lock.lock()
        defer { lock.unlock() }
        if let known = compiled[pattern] { return known }
        let expression = try? NSRegularExpression(pattern: pattern)
        if compiled.count < 1_024 { compiled[pattern] = expression }
        return expression
    }
}
