import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Print: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "print",
            abstract: "Print a token on stdout, refreshing the access token first when it has expired.",
            discussion: "Tokens are secrets: this is the only command that prints one, and only when asked.")

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case access, refresh, id
        }

        @OptionGroup var session: SessionOptions

        @Option(help: "Which token: access, refresh or id.")
        var kind: Kind = .access

        func run() async throws {
            do {
                // The common case reads the session file alone: no descriptor, no client settings.
                if kind == .access, let stored = try await TokenManager.storedSession(key: session.key, in: FileTokenStore()) {
                    Output.stdoutExact(stored.tokens.accessToken.value + "\n")
                    return
                }
            } catch {
                throw Output.fail(error)
            }
            if kind == .access {
                let (manager, _, _) = try await session.validManager()
                do {
                    Output.stdoutExact(try await manager.validAccessToken().value + "\n")
                } catch {
                    throw Output.fail(error)
                }
                return
            }
            do {
                let (manager, _, _) = try await session.manager()
                let tokens = try await manager.session().tokens
                guard let token = kind == .refresh ? tokens.refreshToken : tokens.idToken else {
                    throw CommandFailure("the session has no \(kind.rawValue) token")
                }
                Output.stdoutExact(token.value + "\n")
            } catch {
                throw Output.fail(error)
            }
        }
    }
}
