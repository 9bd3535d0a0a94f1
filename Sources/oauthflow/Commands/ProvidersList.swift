import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

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
                // What the registry loads, the bundled descriptors read from their shipped index (Docs/benchmarks.md).
                let listing = try registryOptions.oauth().providerListing()
                for skipped in listing.skipped { Output.stderr("warning: skipped: \(skipped.error)\n") }
                warnOfLintErrors(skipped: Set(listing.skipped.map(\.name)))
                let rows = listing.rows.map {
                    let catalog = $0.provider.catalog
                    return Row(
                        id: catalog.id, displayName: catalog.displayName, protocol: catalog.protocol, variables: $0.provider.variables,
                        source: $0.origin.description, catalog: catalog)
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

        /// A warning on stderr for each descriptor of the user's or a `--providers-dir` directory that the registry
        /// loaded although `lint` finds an error in it: the file is listed, and may still be refused or act wrongly when used.
        /// The bundled descriptors pass lint in CI; the skipped files were warned of already.
        func warnOfLintErrors(skipped: Set<String>) {
            let directories =
                registryOptions.providerDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }
                + [ProviderRegistry.userProvidersDirectory(environment: CommandEnvironment.variables)]
            var isDirectory: ObjCBool = false
            let existing = directories.filter { FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory) && isDirectory.boolValue }
            guard !existing.isEmpty, let diagnostics = try? Linter().lint(paths: existing) else { return }
            var errors: [String: [Diagnostic]] = [:]
            for diagnostic in diagnostics where diagnostic.severity == .error { errors[diagnostic.location.path, default: []].append(diagnostic) }
            for (path, found) in errors.sorted(by: { $0.key < $1.key }) {
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                guard !skipped.contains(name), let first = found.first else { continue }
                let count = found.count == 1 ? "1 error" : "\(found.count) errors"
                Output.stderr(
                    "warning: \(Output.line(path)) fails lint (\(count); line \(first.location.line): \(Output.line(first.message))); see `oauthflow lint \(LoginCommand.shellQuoted(path))`\n"
                )
            }
        }
    }
}
