/// "Did you mean" suggestions by edit distance.
package enum Spelling {
    /// The candidate closest to `word`, if it is close enough to be a likely typo.
    ///
    /// - Parameters:
    ///   - word: What was written.
    ///   - candidates: What could have been meant.
    /// - Returns: The nearest candidate within a third of the word's length (at least 2 edits), or nil.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(2, word.count / 3)
        let lowered = word.lowercased()
        let length = lowered.count
        var best: (String, Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            // The distance is at least the difference in length: skip what cannot be within
            // the limit, so a hostile 500,000-character key costs no quadratic comparison.
            guard abs(other.count - length) <= limit else { continue }
            let distance = editDistance(lowered, other)
            if distance <= limit, distance < (best?.1 ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.0
    }

    /// What `word` may have meant, as the end of a sentence ("did you mean `a`?"), or nil: every candidate `word`
    /// begins when it begins two or more (`client_secret` for `client_secret_basic`, `client_secret_post` and
    /// `client_secret_jwt`, in the candidates' order, none picked for the writer), else ``closest(to:among:)``.
    public static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        let extensions = lowered.isEmpty ? [] : candidates.filter { $0.lowercased().hasPrefix(lowered) && $0.count > word.count }
        if extensions.count > 1 {
            let quoted = extensions.map { "`\($0)`" }
            return "did you mean " + quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1] + "?"
        }
        return closest(to: word, among: candidates).map { "did you mean `\($0)`?" }
    }

    /// Levenshtein distance between two strings, counted in characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
