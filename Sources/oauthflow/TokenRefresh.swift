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
            do {
                let (manager, stored, _) = try await session.manager()
                let refreshed = try await manager.refresh(replacing: stored.tokens.accessToken)
                Output.stdout(TokenSummary(refreshed).text)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw Output.fail(error)
            }
        }
    }
}
