#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Inspect and refresh the stored session's tokens, and get tokens for services.",
            subcommands: [Show.self, Refresh.self, Print.self, Revoke.self, Client.self, Exchange.self])
    }
}
#endif
