#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Userinfo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "userinfo",
            abstract: "Print the signed-in user's claims from the userinfo endpoint, as JSON.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            try await session.withManager(validToken: true) { manager, _, _ in
                Output.stdoutExact(try Output.json(try await manager.userInfo()))
            }
        }
    }
}
#endif
