#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show the stored session without printing any token.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            Output.stdout(TokenSummary(try await Output.running { try await session.stored() }).text)
        }
    }
}
#endif
