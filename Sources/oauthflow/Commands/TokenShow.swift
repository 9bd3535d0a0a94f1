import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show the stored session without printing any token.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            let stored: StoredSession
            do {
                guard let loaded = try await FileTokenStore().load(session.key) else {
                    throw SessionError.notSignedInMessage(session.key)
                }
                stored = loaded
            } catch {
                throw Output.fail(error)
            }
            Output.stdout(TokenSummary(stored).text)
        }
    }
}
