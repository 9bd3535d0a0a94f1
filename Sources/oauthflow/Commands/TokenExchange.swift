#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowFiles

extension OAuthFlowCommand.Token {
    struct Exchange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exchange",
            abstract: "Exchange a token for another (RFC 8693) and print the issued token.",
            discussion: """
                The subject token is read from a file or stdin (`-`), never from the command line, where other \
                users could see it. With --requested-token-type, a token of another type is refused.
                """)

        @Argument(help: "The provider id.")
        var provider: String

        @Option(name: .customLong("subject-token-file"), help: "A file holding the token to exchange; - reads stdin.")
        var subjectTokenFile: String

        @Option(name: .customLong("subject-token-type"), help: "The subject token's type (default: an access token).")
        var subjectTokenType = TokenTypeIdentifier.accessToken

        @Option(name: .customLong("actor-token-file"), help: "A file holding the actor's token, for delegation.")
        var actorTokenFile: String?

        @Option(name: .customLong("actor-token-type"), help: "The actor token's type (default: an access token).")
        var actorTokenType: String?

        @Option(name: .customLong("requested-token-type"), help: "The type of token wanted; the answer must be of this type.")
        var requestedTokenType: String?

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            let exchange = try await Output.running {
                let subjectToken = try await Self.readToken(subjectTokenFile, what: "subject token")
                let actorToken: Secret? =
                    if let actorTokenFile { try await Self.readToken(actorTokenFile, what: "actor token") } else { nil }
                return OAuthClient.TokenExchangeRequest(
                    subjectToken: subjectToken, subjectTokenType: subjectTokenType, actorToken: actorToken, actorTokenType: actorTokenType,
                    requestedTokenType: requestedTokenType, target: service.request)
            }
            let token = try await service.withServiceTokens(provider: provider) { try await $0.exchangedToken(exchange) }
            Output.stdoutExact(token.value + "\n")
        }

        /// A token from a file or stdin, trimmed; empty is an error.
        static func readToken(_ path: String, what: String) async throws -> Secret {
            let limit = 64 * 1024
            let data: Data
            if path == "-" {
                // At most one byte past the limit: an endless stdin is refused, never held.
                let read = try await StandardInput.read(atMost: limit + 1)
                guard read.count <= limit else { throw CommandFailure("the \(what) on stdin is longer than \(limit) bytes") }
                data = read
            } else {
                do {
                    data = Data(try RawFile.read(path, limit: limit))
                } catch let error as RawFile.ReadError {
                    throw CommandFailure("cannot read the \(what) file \(path): \(error.reason)")
                }
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw CommandFailure("the \(what) is empty") }
            return Secret(text)
        }
    }
}
#endif
