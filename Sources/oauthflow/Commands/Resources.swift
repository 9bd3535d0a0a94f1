#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Resources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resources",
            abstract: "List the resources the stored session's granted scopes open.")

        @OptionGroup var session: SessionOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            // The session and its provider only: listing what the granted scopes open needs no client settings.
            try await Output.running {
                let stored = try await session.stored()
                let provider = try session.registryOptions.oauth().resolve(stored.key.providerID, variables: stored.variables)
                let resources = provider.resources.resources(granted: stored.scopes)
                if json {
                    Output.stdoutExact(try Output.json(resources))
                    return
                }
                if resources.isEmpty { Output.stderr("no resources are open to the granted scopes\n") }
                for resource in resources {
                    Output.stdout(
                        [resource.title, resource.scope, resource.url.absoluteString].map(TerminalText.escaped).joined(separator: "\t") + "\n")
                }
            }
        }
    }
}
#endif
