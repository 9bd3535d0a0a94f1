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
            do {
                let (manager, _, _) = try await session.manager()
                let claims = try await manager.userInfo()
                Output.stdoutExact(try Output.json(claims))
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
        }
    }
}
