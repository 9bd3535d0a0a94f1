import OAuthFlow

/// What one file contributes to a check across files: kept after the file itself is dropped,
/// so linting ten thousand files never holds ten thousand documents.
package struct CollectionEntry: Sendable {
    /// What must be unique (or otherwise compared) across files, such as an id.
    public let key: String
    /// Where a diagnostic about this file points.
    public let location: SourceLocation

    public init(key: String, location: SourceLocation) {
        self.key = key
        self.location = location
    }
}
