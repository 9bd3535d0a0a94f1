import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

extension OAuthFlowCommand {
    struct GenerateDocs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate-docs",
            abstract:
                "Regenerate providers/schema.json, Docs/lint-rules.md, Docs/providers.md, the field reference in Docs/descriptor-format.md and the bundled providers' index.",
            shouldDisplay: false)

        @Option(help: "The repository root.")
        var root: String = "."

        func run() async throws {
            try await Output.running {
                let base = URL(fileURLWithPath: root, isDirectory: true)
                let formatURL = base.appendingPathComponent("Docs/descriptor-format.md")
                // A wrong --root is a state of the files, not a malformed command line: checked before anything is written.
                let current = try String(contentsOf: formatURL, encoding: .utf8)
                guard let updated = GeneratedDocs.replacingReference(in: current) else {
                    throw CommandFailure("\(formatURL.path) lacks the reference markers")
                }
                try GeneratedDocs.schema.write(to: base.appendingPathComponent("providers/schema.json"), atomically: true, encoding: .utf8)
                try GeneratedDocs.lintRules.write(to: base.appendingPathComponent("Docs/lint-rules.md"), atomically: true, encoding: .utf8)
                try updated.write(to: formatURL, atomically: true, encoding: .utf8)
                // The catalog's hand-written sections, after its marker, are kept.
                let catalogURL = base.appendingPathComponent("Docs/providers.md")
                let catalog = (try? String(contentsOf: catalogURL, encoding: .utf8)) ?? ""
                try GeneratedDocs.replacingCatalog(in: catalog).write(to: catalogURL, atomically: true, encoding: .utf8)
                // The bundled descriptors' listing, which `providers list` reads instead of parsing them.
                let bundled = base.appendingPathComponent("Sources/OAuthFlow/BundledProviders", isDirectory: true)
                try BundledCatalog.text(describing: bundled).write(
                    to: bundled.appendingPathComponent(BundledCatalog.fileName), atomically: true, encoding: .utf8)
                Output.stderr(
                    "wrote providers/schema.json, Docs/lint-rules.md, Docs/descriptor-format.md, Docs/providers.md, Sources/OAuthFlow/BundledProviders/\(BundledCatalog.fileName)\n"
                )
            }
        }
    }
}
