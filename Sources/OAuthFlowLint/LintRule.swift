import OAuthFlow

/// A check over one descriptor file.
package protocol LintRule: Sendable {
    static var description: RuleDescription { get }
    init()
    /// The rule's findings in one file. Rules return values; they never print.
    func validate(_ file: LintFile) -> [Diagnostic]
    /// The rule as a check across files, or nil. The linter asks this instead of casting: a
    /// cast to a protocol searches the binary's ten thousand conformance records for each
    /// rule type, a millisecond and more of every run.
    var acrossFiles: (any CollectionLintRule)? { get }
}

extension LintRule {
    public var acrossFiles: (any CollectionLintRule)? { nil }
}

extension LintRule {
    /// A diagnostic from this rule at the value of `keyPath` in `file`.
    func diagnostic(_ file: LintFile, _ keyPath: [String], _ message: String, atKey: Bool = false, severity: Severity? = nil) -> Diagnostic {
        let location = atKey ? file.document.keyLocation(of: keyPath) : file.document.location(of: keyPath)
        return Diagnostic(
            location: location, severity: severity ?? Self.description.severity,
            ruleID: Self.description.identifier, message: message)
    }

    /// The resolver's refusals of the setting at `keyPath` (of its items instead, with `items`: a list's
    /// entries, a map's keys) as this rule's diagnostics, each at the value refused and with the resolver's
    /// message: what the resolver refuses is written there once, and lint reports it where it is written. A security
    /// profile's refusals (`security_profile`) are rule `fapi2_profile`'s alone, and a fixed parameter's undeclared
    /// variable (`unknown_variable`) rule `undeclared_variable`'s.
    func refusals(_ file: LintFile, at keyPath: [String], items: Bool = false, atKey: Bool = false) -> [Diagnostic] {
        guard !file.refusals.isEmpty else { return [] }
        return file.refusals.compactMap { refusal in
            guard refusal.code != .securityProfile, refusal.code != .unknownVariable, let refused = refusal.keyPath,
                refused.count == keyPath.count + (items ? 1 : 0),
                refused.starts(with: keyPath)
            else {
                return nil
            }
            return diagnostic(file, refused, refusal.message, atKey: atKey)
        }
    }
}
