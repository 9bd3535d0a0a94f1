import OAuthFlow

/// One finding of a lint rule, positioned in a descriptor file.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    public var severity: Severity
    public var ruleID: String
    public var message: String

    public init(location: SourceLocation, severity: Severity, ruleID: String, message: String) {
        self.location = location
        self.severity = severity
        self.ruleID = ruleID
        self.message = message
    }

    /// Whether this finding keeps its file from being read as a descriptor (its YAML, an unknown key, a wrong type, a
    /// required key missing): the rules that read a descriptor did not run on that file, and run once it is fixed.
    public var isStructural: Bool { DescriptorProblem.Kind.allCases.contains { $0.rawValue == ruleID } }

    /// `path:line:column: severity: message [rule_id]`, the format compilers and editors read.
    /// A key or value quoted from a descriptor cannot break the line: control characters are escaped.
    public var description: String {
        var line: [UInt8] = []
        appendLine(to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// ``description``'s UTF-8 bytes appended to `bytes`, as the text report writes each diagnostic: part by part,
    /// with no interpolated string made and escaped again whole. Escaping maps each Unicode scalar on its own, so
    /// the parts escaped one by one are the line escaped whole.
    func appendLine(to bytes: inout [UInt8]) {
        bytes.append(terminalText: location.path)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(decimal: location.line)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(decimal: location.column)
        bytes.append(text: ": ")
        bytes.append(text: severity.rawValue)
        bytes.append(text: ": ")
        bytes.append(terminalText: message)
        bytes.append(text: " [")
        bytes.append(terminalText: ruleID)
        bytes.append(UInt8(ascii: "]"))
    }
}
