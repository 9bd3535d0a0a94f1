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
                let registry = try registryOptions.oauth().registry()
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
                // Columns as wide as their longest cell, up to a limit: one huge display name (a descriptor may hold
                // 1 MiB) would otherwise pad every row to its width.
                func columnWidth(_ cells: [String], least: Int) -> Int { min(max(least, cells.map(\.count).max() ?? 0), 48) }
                let width = columnWidth(rows.map(\.id), least: 2)
                let nameWidth = columnWidth(rows.map(\.displayName), least: 4)
                let refreshWidth = columnWidth(rows.map(\.catalog.refresh), least: 7)
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
