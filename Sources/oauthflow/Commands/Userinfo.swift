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
            let (manager, _, _) = try await session.validManager()
            do {
                let claims = try await manager.userInfo()
                Output.stdoutExact(try Output.json(claims))
            } catch {
                throw Output.fail(error)
            }
        }
    }
}
