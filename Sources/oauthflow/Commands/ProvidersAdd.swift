import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

extension OAuthFlowCommand.Providers {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Write a descriptor for a self-hosted provider from its issuer's discovery document.",
            discussion:
                "Reads ISSUER/.well-known/openid-configuration (else RFC 8414 metadata), checks it, and writes ID.yaml to the user providers directory ($XDG_CONFIG_HOME/oauthflow/providers) only when it lints clean under --strict."
        )

        @Argument(help: "The issuer identifier, such as https://sso.example.com/realms/ops.")
        var issuer: String

        @Option(help: "The provider id (default: made of the issuer's host and path).")
        var id: String?

        @Option(help: "The directory to write ID.yaml to (default: the user providers directory).")
        var output: String?

        @Flag(help: "Replace a descriptor file that is already there.")
        var force = false

        func validate() throws {
            if let id, !DescriptorDraft.isValidID(id) {
                throw ValidationError("--id takes lowercase letters, digits, `-` and `_`, starting with a letter or digit")
            }
        }

        func run() async throws {
            try await Output.running {
                let oauth = OAuth(.commandLine(environment: CommandEnvironment.variables, transport: DefaultHTTPTransport(timeout: 10)))
                let directory = output.map { URL(fileURLWithPath: $0, isDirectory: true) }
                let added: AddedProvider
                do {
                    added = try await oauth.addProvider(issuer: issuer, id: id, directory: directory, replacing: force)
                } catch let error as AddProviderError where error.code == .notClean {
                    // One line per finding, each escaped on its own, as `lint` prints them.
                    for finding in error.findings { Output.stderr(Output.line(finding) + "\n") }
                    throw CommandFailure(error.message)
                }
                let draft = added.draft
                if (try? ProviderRegistry.load().entry(named: draft.id)) != nil {
                    Output.stderr(
                        "note: `\(draft.id)` is also a bundled provider; this file replaces it for every command that reads \(added.file.deletingLastPathComponent().path)\n"
                    )
                }
                for note in draft.notes { Output.stderr("note: \(Output.line(note))\n") }
                Output.stderr("Read \(Output.line(draft.metadataURL.absoluteString)); wrote \(added.file.path) (lint --strict: clean).\n")
                Output.stderr(
                    "Sign in with `oauthflow login \(draft.id) --client-id ID`; check it again later with `oauthflow lint --online \(added.file.path)`.\n"
                )
                Output.stdoutExact(added.file.path + "\n")
            }
        }
    }
}
