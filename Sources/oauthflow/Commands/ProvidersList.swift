#if CLI
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
            let catalog: ProviderRegistry.CatalogEntry

            enum CodingKeys: String, CodingKey {
                case id, displayName = "display_name", `protocol`, variables, source, catalog
            }
        }

        func run() async throws {
            try await Output.running {
                // Identities first: a file changed while the listing is made leaves no memo (ProviderListRecord).
                let record = ProviderListRecord(arguments: Array(CommandLine.arguments.dropFirst()))
                // What the registry loads, the bundled descriptors read from their shipped index (Docs/benchmarks.md).
                let listing = try registryOptions.oauth().providerListing()
                var errors = listing.skipped.map { "warning: skipped: \($0.error)\n" }.joined()
                errors += lintWarnings(skipped: Set(listing.skipped.map(\.name)))
                let rows = listing.rows.map {
                    let catalog = $0.provider.catalog
                    return Row(
                        id: catalog.id, displayName: catalog.displayName, protocol: catalog.protocol, variables: $0.provider.variables,
                        source: $0.origin.description, catalog: catalog)
                }
                // What goes out, as Output writes it: the table escaped, JSON exact but on a terminal.
                let written = TerminalText.sanitized(errors)
                let output =
                    json
                    ? (isatty(STDOUT_FILENO) != 0 ? TerminalText.sanitized(try Output.json(rows)) : try Output.json(rows))
                    : TerminalText.sanitized(table(rows))
                Output.stderrControl(written)
                Output.stdoutWritten(Data(output.utf8))
                record?.remember(output: Array(output.utf8), errors: Array(written.utf8))
            }
        }

        /// The table: columns as wide as their longest cell, up to a limit (one huge display name, in a descriptor of
        /// up to 1 MiB, would otherwise pad every row to its width), each line's trailing spaces dropped.
        func table(_ rows: [Row]) -> String {
            func columnWidth(_ cells: [String], least: Int) -> Int { min(max(least, cells.map(\.count).max() ?? 0), 48) }
            let width = columnWidth(rows.map(\.id), least: 2)
            let nameWidth = columnWidth(rows.map(\.displayName), least: 4)
            let refreshWidth = columnWidth(rows.map(\.catalog.refresh), least: 7)
            // Padded by appending spaces, and trailing ones dropped in place: Foundation's `padding` and a reversed copy
            // of each line were a quarter of the command's time.
            func pad(_ text: String, _ length: Int) -> String {
                let count = text.count
                return count >= length ? text : text + String(repeating: " ", count: length - count)
            }
            var text = ""
            for row in rows {
                let entry = row.catalog
                let variables = entry.requiredVariables.isEmpty ? "" : "  vars: " + entry.requiredVariables.joined(separator: ", ")
                var line: String =
                    pad(row.id, width) + "  " + pad(row.displayName, nameWidth) + "  " + pad(row.protocol, 6) + "  pkce "
                    + pad(entry.pkce, 11) + "  refresh " + pad(entry.refresh, refreshWidth) + "  device "
                    + pad(entry.deviceFlow ? "yes" : "no", 3)
                    + "  revoke " + pad(entry.revocation, 9) + variables
                while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
                text += TerminalText.escaped(line) + "\n"
            }
            return text
        }

        /// A warning for stderr for each descriptor of the user's or a `--providers-dir` directory that the registry
        /// loaded although `lint` finds an error in it: the file is listed, and may still be refused or act wrongly when used.
        /// The bundled descriptors pass lint in CI; the skipped files were warned of already.
        func lintWarnings(skipped: Set<String>) -> String {
            let directories =
                registryOptions.providerDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) }
                + [ProviderRegistry.userProvidersDirectory(environment: CommandEnvironment.variables)]
            var isDirectory: ObjCBool = false
            let existing = directories.filter { FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory) && isDirectory.boolValue }
            guard !existing.isEmpty, let diagnostics = try? Linter().lint(paths: existing) else { return "" }
            var errors: [String: [Diagnostic]] = [:]
            for diagnostic in diagnostics where diagnostic.severity == .error { errors[diagnostic.location.path, default: []].append(diagnostic) }
            var warnings = ""
            for (path, found) in errors.sorted(by: { $0.key < $1.key }) {
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                guard !skipped.contains(name), let first = found.first else { continue }
                let count = found.count == 1 ? "1 error" : "\(found.count) errors"
                warnings +=
                    "warning: \(Output.line(path)) fails lint (\(count); line \(first.location.line): \(Output.line(first.message))); see `oauthflow lint \(LoginCommand.shellQuoted(path))`\n"
            }
            return warnings
        }
    }
}
#endif
