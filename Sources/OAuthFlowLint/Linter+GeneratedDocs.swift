import Foundation
import OAuthFlow

extension Linter {
    /// The JSON Schema of provider descriptors (`oauthflow schema`, `providers/schema.json`).
    public static var descriptorJSONSchema: String { GeneratedDocs.schema }

    /// Writes the repository's generated files under `root` (`oauthflow generate-docs`, for maintainers):
    /// `providers/schema.json`, `Docs/lint-rules.md`, the field reference in `Docs/descriptor-format.md` and the
    /// catalog of `Docs/providers.md` (their hand-written parts kept), and the bundled descriptors' index.
    ///
    /// - Returns: The files written, relative to `root`.
    /// - Throws: ``LintError`` when `Docs/descriptor-format.md` lacks the reference markers (nothing is written then),
    ///   and what reading or writing throws.
    @discardableResult
    public static func writeGeneratedDocs(root: URL) throws -> [String] {
        let formatURL = root.appendingPathComponent("Docs/descriptor-format.md")
        // A wrong root is found before anything is written.
        let current = try String(contentsOf: formatURL, encoding: .utf8)
        guard let updated = GeneratedDocs.replacingReference(in: current) else {
            throw LintError("\(formatURL.path) lacks the reference markers")
        }
        let catalogURL = root.appendingPathComponent("Docs/providers.md")
        let catalog = (try? String(contentsOf: catalogURL, encoding: .utf8)) ?? ""
        let bundled = "Sources/OAuthFlow/BundledProviders"
        let index = try BundledCatalog.text(describing: root.appendingPathComponent(bundled, isDirectory: true))
        let files = [
            ("providers/schema.json", GeneratedDocs.schema), ("Docs/lint-rules.md", GeneratedDocs.lintRules),
            ("Docs/descriptor-format.md", updated), ("Docs/providers.md", GeneratedDocs.replacingCatalog(in: catalog)),
            (bundled + "/" + BundledCatalog.fileName, index),
        ]
        for (path, text) in files {
            try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }
        return files.map(\.0)
    }
}
