import OAuthFlow

/// The generated parts of the repository, kept here so a test can check they are current.
package enum GeneratedDocs {
    public static let beginMarker = "<!-- BEGIN GENERATED FIELD REFERENCE: run `oauthflow generate-docs` -->"
    public static let endMarker = "<!-- END GENERATED FIELD REFERENCE -->"

    /// `providers/schema.json`.
    public static var schema: String { DescriptorSchema.jsonSchema() }

    /// `Docs/lint-rules.md`.
    public static var lintRules: String { RuleCatalog.markdown() }

    /// The line that ends the generated part of `Docs/providers.md`; what follows it is written by hand and kept.
    public static let catalogEndMarker = "<!-- END GENERATED CATALOG: what follows is written by hand and kept by `oauthflow generate-docs` -->"

    /// `Docs/providers.md` as `text` holds it, its generated part (up to ``catalogEndMarker``) replaced by the current
    /// ``providerCatalog``; the hand-written sections after the marker are kept (none when `text` has no marker).
    public static func replacingCatalog(in text: String) -> String {
        let kept = text.range(of: catalogEndMarker + "\n").map { String(text[$0.upperBound...]) } ?? ""
        return providerCatalog + kept
    }

    /// The generated part of `Docs/providers.md`: every bundled descriptor's catalog entry, one table row each, the
    /// cases the descriptors state for their conditional cells as footnotes, and ``catalogEndMarker``.
    public static var providerCatalog: String {
        let registry = try? ProviderRegistry.load(includeBundled: true, includeUserDirectory: false)
        let entries = (registry?.all ?? []).map(\.descriptor.catalogEntry).sorted { $0.id < $1.id }
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        func line(_ text: String) -> String { text.split(whereSeparator: \.isNewline).joined(separator: " ") }
        var lines = [
            "# Bundled providers",
            "",
            "Generated from the descriptors in `providers/` by `oauthflow generate-docs`; `oauthflow providers list` prints the first",
            "columns (`--json` all of them). Each descriptor names, in its first comment lines and `docs_url`, the pages it was written from.",
            "",
            "- Refresh: the scope or parameter the descriptor adds to ask for a refresh token, `yes` when nothing needs adding, `conditional`",
            "  when the provider issues one only in some cases, or `no`. A footnote gives the case the descriptor states (`scopes.offline.condition`).",
            "- Revocation (RFC 7009) and Logout (RP-Initiated Logout): `yes` when the descriptor names the endpoint; `no` when it names",
            "  none and the provider's discovery document, where it publishes one, names none either (`discovery.lacks`, checked against",
            "  the dated copies in `Tests/OAuthFlowTests/Fixtures/metadata/`); `conditional` when the provider has one only in the case",
            "  a footnote gives (`revocation.condition`, `logout.condition`): a self-hosted server whose endpoints are its deployment's",
            "  configuration, read from its discovery document.",
            "- App client: whether an iOS or macOS app signs in with its own redirect URI ([apple.md](apple.md)): `private-use` (a",
            "  private-use scheme the descriptor names, RFC 8252 §7.1), `claimed https` (a universal link, §7.2), or `no`.",
            "- Variables: those without a default (`--var NAME=VALUE`).",
            "",
            "What a provider documents and the format does not say, and what the host does instead, is under",
            "[What the format leaves out, and why](#what-the-format-leaves-out-and-why), after the table.",
            "",
            "\(entries.count) providers.",
            "",
            "| Provider | Id | Protocol | PKCE | Refresh | Device flow | Revocation | Logout | Profile | App client | Variables | Documentation |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        var notes: [String] = []
        // GitHub-flavoured footnotes: the label in the cell, the sentence under the table.
        func noted(_ text: String, _ condition: String?, _ entry: ProviderRegistry.CatalogEntry, _ column: String) -> String {
            guard let condition else { return text }
            let label = "\(entry.id)-\(column.lowercased())"
            notes.append("[^\(label)]: \(line(entry.displayName)), \(column.lowercased()): \(line(condition))")
            return text + "[^\(label)]"
        }
        for entry in entries {
            let refresh = noted(entry.refresh, entry.refreshCondition, entry, "Refresh")
            let revocation = noted(entry.revocation, entry.revocationCondition, entry, "Revocation")
            let logout = noted(entry.logout, entry.logoutCondition, entry, "Logout")
            let columns = [
                entry.displayName, "`\(entry.id)`", entry.protocol, entry.pkce, refresh, entry.deviceFlow ? "yes" : "no", revocation,
                logout, entry.profileFields.joined(separator: ", "), entry.appClient,
                entry.requiredVariables.map { "`\($0)`" }.joined(separator: ", "),
                entry.docsURL.map { "[docs](\($0))" } ?? "",
            ]
            lines.append("| " + columns.map(cell).joined(separator: " | ") + " |")
        }
        if !notes.isEmpty { lines += [""] + notes }
        lines += securityEventRows(registry?.all.map(\.descriptor) ?? [])
        lines += ["", catalogEndMarker]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The providers that send security events (`security_events`): how, and which events, from their descriptors.
    static func securityEventRows(_ descriptors: [ProviderDescriptor]) -> [String] {
        let senders = descriptors.compactMap { descriptor in descriptor.securityEvents.map { (descriptor, $0) } }.sorted { $0.0.id < $1.0.id }
        guard !senders.isEmpty else { return [] }
        var lines = [
            "", "## Security events", "",
            "The providers whose descriptor has a `security_events` section tell the app when an account changes ([security-events.md](security-events.md)):",
            "`ssf` (OpenID Shared Signals Framework 1.0), `risc` (Google's Cross-Account Protection), `apple` (Sign in with Apple's",
            "server-to-server notifications). The events are those the descriptor lists; the receiver ends or marks sessions on the ones",
            "security-events.md names, and hands every one to the host.", "",
            "| Provider | Id | Format | Events |", "| --- | --- | --- | --- |",
        ]
        for (descriptor, events) in senders {
            let short = events.events.map { "`" + ($0.split(separator: "/").last.map(String.init) ?? $0) + "`" }.joined(separator: ", ")
            lines.append("| \(descriptor.displayName) | `\(descriptor.id)` | `\(events.format.rawValue)` | \(short) |")
        }
        return lines
    }

    /// `text` with the part between the markers replaced by the current field reference, or nil without markers.
    public static func replacingReference(in text: String) -> String? {
        guard let begin = text.range(of: beginMarker), let end = text.range(of: endMarker), begin.upperBound <= end.lowerBound else {
            return nil
        }
        return String(text[..<begin.upperBound]) + "\n\n" + DescriptorSchema.markdownReference() + String(text[end.lowerBound...])
    }
}
