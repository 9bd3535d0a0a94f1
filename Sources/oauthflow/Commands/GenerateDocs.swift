import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

extension OAuthFlowCommand {
    struct GenerateDocs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate-docs",
            abstract: "Regenerate providers/schema.json, Docs/lint-rules.md and the field reference in Docs/descriptor-format.md.",
            shouldDisplay: false)

        @Option(help: "The repository root.")
        var root: String = "."

        func run() async throws {
            let base = URL(fileURLWithPath: root, isDirectory: true)
            try GeneratedDocs.schema.write(to: base.appendingPathComponent("providers/schema.json"), atomically: true, encoding: .utf8)
            try GeneratedDocs.lintRules.write(to: base.appendingPathComponent("Docs/lint-rules.md"), atomically: true, encoding: .utf8)
            let formatURL = base.appendingPathComponent("Docs/descriptor-format.md")
            let current = try String(contentsOf: formatURL, encoding: .utf8)
            guard let updated = GeneratedDocs.replacingReference(in: current) else {
                throw ValidationError("Docs/descriptor-format.md lacks the reference markers")
            }
            try updated.write(to: formatURL, atomically: true, encoding: .utf8)
            Output.stderr("wrote providers/schema.json, Docs/lint-rules.md, Docs/descriptor-format.md\n")
        }
    }
}
