#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct JWT: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "jwt",
            abstract: "Inspect JSON Web Tokens.",
            subcommands: [Decode.self])
    }
}
#endif
