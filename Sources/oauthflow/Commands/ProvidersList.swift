import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Providers {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List every provider: id, name, protocol, PKCE, refresh, device flow, revocation, variables.")

        @OptionGroup var registryOptions: RegistryOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        struct Row: Encodable {
            let id: String
            let displayName: String
            let `protocol`: String
            let variables: [String]
            let source: String
            /// The catalog columns (Docs/providers.md).
            let catalog: ProviderCatalogEntry

            enum CodingKeys: String, CodingKey {
                case id, displayName = "display_name", `protocol`, variables, source, catalog
            }
        }

        func run() async throws {
            try await Output.running {
                let registry = try registryOptions.loadRegistry()
                for skipped in registry.skipped { Output.stderr("warning: skipped: \(skipped.error)\n") }
                let rows = registry.all.map {
                    Row(
                        id: $0.descriptor.id, displayName: $0.descriptor.displayName, protocol: $0.descriptor.protocol.rawValue,
                        variables: $0.descriptor.variables.keys.sorted(), source: $0.origin.description, catalog: $0.descriptor.catalogEntry)
                }
                if json {
                    Output.stdoutExact(try Output.json(rows))
                    return
                }
                let width = max(2, rows.map(\.id.count).max() ?? 0)
                let nameWidth = max(4, rows.map(\.displayName.count).max() ?? 0)
                let refreshWidth = max(7, rows.map(\.catalog.refresh.count).max() ?? 0)
                func pad(_ text: String, _ length: Int) -> String { text.padding(toLength: max(length, text.count), withPad: " ", startingAt: 0) }
                for row in rows {
                    let entry = row.catalog
                    let variables = entry.requiredVariables.isEmpty ? "" : "  vars: " + entry.requiredVariables.joined(separator: ", ")
                    let line =
                        pad(row.id, width) + "  " + pad(row.displayName, nameWidth) + "  " + pad(row.protocol, 6) + "  pkce "
                        + pad(entry.pkce, 11) + "  refresh " + pad(entry.refresh, refreshWidth) + "  device "
                        + pad(entry.deviceFlow ? "yes" : "no", 3)
                        + "  revoke " + pad(entry.revocation, 9) + variables
                    Output.stdout(TerminalText.escaped(String(line.reversed().drop { $0 == " " }.reversed())) + "\n")
                }
            }
        }
    }
}
