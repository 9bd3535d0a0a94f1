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
            let manager: TokenManager, stored: StoredSession
            do {
                (manager, stored, _) = try await session.manager()
            } catch {
                throw Output.fail(error)
            }
            do {
                let refreshed = try await manager.refresh(replacing: stored.tokens.accessToken)
                Output.stdout(TokenSummary(refreshed).text)
            } catch {
                throw session.fail(error, session: stored)
            }
        }
    }
}
