/// A position in a descriptor file, as people and editors count it.
///
/// Lines and columns start at 1. Columns count Unicode scalars, as libyaml does.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file the position is in, as it was given to the loader.
    public var path: String
    /// The line, starting at 1.
    public var line: Int
    /// The column, starting at 1.
    public var column: Int

    public init(path: String, line: Int, column: Int) {
        self.path = path
        self.line = max(1, line)
        self.column = max(1, column)
    }

    public var description: String { "\(path):\(line):\(column)" }
}
