#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Token {
    struct Client: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client",
            abstract: "Print an access token for the client itself (client credentials), cached until shortly before it expires.",
            discussion: """
                The client and its credential (a secret, a private key or a certificate) come from the flags, \
                OAUTHFLOW_<PROVIDER>_* variables or the clients file, as for `login`. Tokens are cached in the \
                token directory per provider, client, scopes and APIs, and renewed 60 s before they expire; \
                however many processes ask at once, one request is made.
                """)

        @Argument(help: "The provider id.")
        var provider: String

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            let token = try await service.withServiceTokens(provider: provider) { try await $0.accessToken(service.request) }
            Output.stdoutExact(token.value + "\n")
        }
    }
}
#endif
