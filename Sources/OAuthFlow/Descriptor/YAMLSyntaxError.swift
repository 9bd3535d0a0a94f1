/// What keeps text from being one YAML document, with where.
package struct YAMLSyntaxError: Error, Sendable {
    public enum Kind: Sendable {
        /// libyaml's reader (encoding), scanner (tokens) or parser (structure) refused the text.
        case reader, scanner, parser
        /// The events did not make one tree: an undefined alias, or a second document.
        case composer
        /// A mapping holds the same key twice; `problem` lists the repeated keys.
        case duplicateKeys([String])
        /// Collections nest deeper than the limit the caller set; the position is the first one too deep,
        /// or the alias that stands for one (`throughAlias`).
        case tooDeep(limit: Int, throughAlias: Bool)
    }

    public let kind: Kind
    /// What libyaml was reading when it failed, and where (“while scanning a simple key”).
    public let context: (text: String, line: Int, column: Int)?
    /// What went wrong.
    public let problem: String
    /// Where, 1-based.
    public let line: Int
    public let column: Int
}
