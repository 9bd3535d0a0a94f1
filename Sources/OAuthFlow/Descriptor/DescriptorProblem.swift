/// Something wrong with a descriptor file that stops it from being read.
///
/// Problems come from the YAML parser and from checking the document against
/// ``DescriptorSchema``. Each carries the position of the offending node, so a
/// loader error and a lint diagnostic point at the same place.
package struct DescriptorProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is; lint maps each kind to one rule.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The bytes are not a YAML document we can read: syntax errors, binary
        /// data, an empty file, a file too large or nested too deeply.
        case malformedYAML = "malformed_yaml"
        /// A key the schema does not define.
        case unknownKey = "unknown_key"
        /// A value of the wrong YAML type or outside its allowed values.
        case wrongType = "wrong_type"
        /// A required key is absent.
        case missingField = "missing_required_field"
    }

    public var kind: Kind
    public var location: SourceLocation
    public var message: String
    /// The key path of the node, dotted (`security.pkce`); empty for the document.
    public var keyPath: String

    public init(kind: Kind, location: SourceLocation, message: String, keyPath: String = "") {
        self.kind = kind
        self.location = location
        self.message = message
        self.keyPath = keyPath
    }

    /// `path:line:column: message` on one line, control characters escaped.
    public var description: String { TerminalText.escaped("\(location): \(message)") }
}
