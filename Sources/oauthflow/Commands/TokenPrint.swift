#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Print: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "print",
            abstract: "Print a token on stdout, refreshing the access token first when it has expired.",
            discussion: "Tokens are secrets: this is the only command that prints a stored session's token, and only the one asked for.")

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case access, refresh, id
        }

        @OptionGroup var session: SessionOptions

        @Option(help: "Which token: access, refresh or id.")
        var kind: Kind = .access

        func run() async throws {
            // The common case reads the session file and the descriptor (the session's origin is checked, as every
            // stored token's is): no client secret, no network.
            if kind == .access,
                let stored = try await Output.running({
                    let record = SessionOriginRecord(
                        providerID: session.name, environment: CommandEnvironment.variables,
                        otherDirectories: !session.registryOptions.providerDirectories.isEmpty)
                    let stored = try await session.registryOptions.oauth(overrides: [session.name: session.overrides]).storedSession(
                        session.name, account: session.account)
                    // For the launcher: this session passed the check, while nothing it read changes.
                    if let stored { record.remember(stored, store: CommandEnvironment.store) }
                    return stored
                })
            {
                Output.stdoutExact(stored.tokens.accessToken.value + "\n")
                return
            }
            try await session.withManager { manager, _, _ in
                let token: Secret?
                switch kind {
                case .access: token = try await manager.validAccessToken()
                case .refresh: token = try await manager.heldTokens().refreshToken
                case .id: token = try await manager.heldTokens().idToken
                }
                guard let token else { throw CommandFailure("the session has no \(kind.rawValue) token") }
                Output.stdoutExact(token.value + "\n")
            }
        }
    }
}
#endif
