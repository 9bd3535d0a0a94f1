#if CLI
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
                let written = try Linter.writeGeneratedDocs(root: URL(fileURLWithPath: root, isDirectory: true))
                Output.stderr("wrote \(written.joined(separator: ", "))\n")
            }
        }
    }
}
#endif
