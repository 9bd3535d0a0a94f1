import OAuthFlow

/// What a rule is, for people and for the generated catalog.
public struct RuleDescription: Sendable {
    /// Snake-case id shown in brackets after each diagnostic.
    public let identifier: String
    /// Short title.
    public let name: String
    /// One sentence saying what the rule checks and why.
    public let summary: String
    public let severity: Severity
    /// Descriptors this rule must flag. Each is linted as `example.yaml`.
    public let triggeringExamples: [String]
    /// Descriptors this rule must accept.
    public let nonTriggeringExamples: [String]

    public init(
        identifier: String, name: String, summary: String, severity: Severity,
        triggering: [String], nonTriggering: [String]
    ) {
        self.identifier = identifier
        self.name = name
        self.summary = summary
        self.severity = severity
        self.triggeringExamples = triggering
        self.nonTriggeringExamples = nonTriggering
    }
}
