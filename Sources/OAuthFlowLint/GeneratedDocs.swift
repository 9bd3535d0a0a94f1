import OAuthFlow

/// The generated parts of the repository, kept here so a test can check they are current.
public enum GeneratedDocs {
    public static let beginMarker = "<!-- BEGIN GENERATED FIELD REFERENCE: run `oauthflow generate-docs` -->"
    public static let endMarker = "<!-- END GENERATED FIELD REFERENCE -->"

    /// `providers/schema.json`.
    public static var schema: String { DescriptorSchema.jsonSchema() }

    /// `Docs/lint-rules.md`.
    public static var lintRules: String { RuleCatalog.markdown() }

    /// `Docs/providers.md`: every bundled descriptor's catalog entry, one table row each.
    public static var providerCatalog: String {
        let registry = try? ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
        let entries = (registry?.all ?? []).map(\.descriptor.catalogEntry).sorted { $0.id < $1.id }
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines = [
            "# Bundled providers",
            "",
            "Generated from the descriptors in `providers/` by `oauthflow generate-docs`; `oauthflow providers list` prints the first",
            "columns (`--json` all of them). Each descriptor names, in its first comment lines and `docs_url`, the pages it was written from. Refresh says",
            "how a refresh token is had: a scope, a parameter, always (`yes`) or never; revocation and logout are `discovery` when the",
            "provider's discovery document names the endpoint; variables are those without a default (`--var NAME=VALUE`).",
            "",
            "\(entries.count) providers.",
            "",
            "| Provider | Id | Protocol | PKCE | Refresh | Device flow | Revocation | Logout | Profile | Variables | Documentation |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for entry in entries {
            let columns = [
                entry.displayName, "`\(entry.id)`", entry.protocol, entry.pkce, entry.refresh, entry.deviceFlow ? "yes" : "no", entry.revocation,
                entry.logout, entry.profileFields.joined(separator: ", "), entry.requiredVariables.map { "`\($0)`" }.joined(separator: ", "),
                entry.docsURL.map { "[docs](\($0))" } ?? "",
            ]
            lines.append("| " + columns.map(cell).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` with the part between the markers replaced by the current field reference, or nil without markers.
    public static func replacingReference(in text: String) -> String? {
        guard let begin = text.range(of: beginMarker), let end = text.range(of: endMarker), begin.upperBound <= end.lowerBound else {
            return nil
        }
        return String(text[..<begin.upperBound]) + "\n\n" + DescriptorSchema.markdownReference() + String(text[end.lowerBound...])
    }
}
