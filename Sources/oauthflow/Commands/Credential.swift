#if CLI
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

        /// The browser a helper's sign-in opens: the user's, found as `login` finds it.
        static var browser: any BrowserOpener { SystemBrowser(environment: CommandEnvironment.variables) }
    }
}
#endif
