import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand {
    struct Credential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credential",
            abstract: "Serve other tools as a credential helper: git, and kubectl's exec plugins.",
            subcommands: [Git.self, Kubectl.self])

        /// How the helpers get a session: the stored one, refreshed, or a sign-in with every word on stderr.
        static func access(_ registry: RegistryOptions) -> SessionAccess {
            SessionAccess(
                store: CommandEnvironment.store, clients: CommandEnvironment.clients,
                providers: { try registry.provider(named: $0, variables: $1) })
        }
    }
}
