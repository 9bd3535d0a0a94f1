import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Providers {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List every provider by id.")

        @OptionGroup var registryOptions: RegistryOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        struct Row: Encodable {
            let id: String
            let displayName: String
            let `protocol`: String
            let variables: [String]
            let source: String

            enum CodingKeys: String, CodingKey {
                case id, displayName = "display_name", `protocol`, variables, source
            }
        }

        func run() async throws {
            try await Output.running {
                let registry = try registryOptions.loadRegistry()
                for skipped in registry.skipped { Output.stderr("warning: skipped: \(skipped.error)\n") }
                let rows = registry.all.map {
                    Row(
                        id: $0.descriptor.id, displayName: $0.descriptor.displayName, protocol: $0.descriptor.protocol.rawValue,
                        variables: $0.descriptor.variables.keys.sorted(), source: $0.origin.description)
                }
                if json {
                    Output.stdoutExact(try Output.json(rows))
                    return
                }
                let width = max(2, rows.map(\.id.count).max() ?? 0)
                let nameWidth = max(4, rows.map(\.displayName.count).max() ?? 0)
                for row in rows {
                    let variables = row.variables.isEmpty ? "" : "  vars: " + row.variables.joined(separator: ", ")
                    Output.stdout(
                        TerminalText.escaped(
                            row.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                                + row.displayName.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                                + row.protocol.padding(toLength: 6, withPad: " ", startingAt: 0) + variables) + "\n")
                }
            }
        }
    }
}
