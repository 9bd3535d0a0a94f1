#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Refresh the access token now, under the session's lock, and store the result.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            try await session.withManager { manager, stored, _ in
                Output.stdout(TokenSummary(try await manager.refresh(replacing: stored.tokens.accessToken)).text)
            }
        }
    }
}
#endif
