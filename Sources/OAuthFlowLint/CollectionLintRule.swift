import OAuthFlow

/// A check across all files linted together (such as duplicate ids).
///
/// Files are checked in report order, each against what the files before it left: the first
/// entry with each key. A run over many files therefore keeps one entry per distinct key, and
/// a file's findings are known as soon as the file is read.
package protocol CollectionLintRule: LintRule {
    /// This file's entry, or nil when it has nothing to compare.
    func entry(for file: LintFile) -> CollectionEntry?
    /// The findings for `entry`, given the first entry with each key among the files before it.
    func validate(_ entry: CollectionEntry, earlier: [String: CollectionEntry]) -> [Diagnostic]
}

extension CollectionLintRule {
    public var acrossFiles: (any CollectionLintRule)? { self }

    public func validate(_ file: LintFile) -> [Diagnostic] { [] }

    /// The findings for `entry` against the files before it, which then counts among them:
    /// `earlier` keeps the first entry with each key.
    public func validate(_ entry: CollectionEntry, recordingIn earlier: inout [String: CollectionEntry]) -> [Diagnostic] {
        let diagnostics = validate(entry, earlier: earlier)
        if earlier[entry.key] == nil { earlier[entry.key] = entry }
        return diagnostics
    }

    /// The findings over every file's entry, in file order.
    public func validate(entries: [CollectionEntry]) -> [Diagnostic] {
        var earlier: [String: CollectionEntry] = [:]
        return entries.flatMap { validate($0, recordingIn: &earlier) }
    }

    /// The findings over files already read.
    public func validate(_ files: [LintFile]) -> [Diagnostic] {
        validate(entries: files.compactMap(entry(for:)))
    }
}
