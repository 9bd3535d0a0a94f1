#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Providers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "providers",
            abstract: "List, inspect and add the providers in the registry.",
            subcommands: [List.self, Show.self, Add.self])
    }
}
#endif
