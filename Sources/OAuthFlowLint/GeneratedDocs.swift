import OAuthFlow

/// The generated parts of the repository, kept here so a test can check they are current.
public enum GeneratedDocs {
    public static let beginMarker = "<!-- BEGIN GENERATED FIELD REFERENCE: run `oauthflow generate-docs` -->"
    public static let endMarker = "<!-- END GENERATED FIELD REFERENCE -->"

    /// `providers/schema.json`.
    public static var schema: String { DescriptorSchema.jsonSchema() }

    /// `Docs/lint-rules.md`.
    public static var lintRules: String { RuleCatalog.markdown() }

    /// `text` with the part between the markers replaced by the current field reference, or nil without markers.
    public static func replacingReference(in text: String) -> String? {
        guard let begin = text.range(of: beginMarker), let end = text.range(of: endMarker), begin.upperBound <= end.lowerBound else {
            return nil
        }
        return String(text[..<begin.upperBound]) + "\n\n" + DescriptorSchema.markdownReference() + String(text[end.lowerBound...])
    }
}
