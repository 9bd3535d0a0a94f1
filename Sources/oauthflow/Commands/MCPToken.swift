#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowMCPAuth

extension OAuthFlowCommand.MCP {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a valid access token for an MCP server on stdout, refreshing it first when it is about to expire.",
            discussion: """
                For tools that take a bearer token. Reads the session `oauthflow mcp login` stored; nothing is \
                registered and nobody signs in. Tokens are secrets: printed on stdout only, never logged. Exit codes: \
                0 printed; 1 not signed in, or the refresh failed (`invalid_grant` ends the session: sign in again).
                """)

        @OptionGroup var options: MCPOptions

        @OptionGroup var grant: MCPGrantOptions

        @Flag(help: "Print JSON on stdout: access_token, token_type, expires_at, scopes.")
        var json = false

        func run() async throws {
            let authorization = try await grant.authorization(options)
            let server = options.server
            // A session signed in with a client given, through an identity provider or with a workload's JWT is found along
            // the same route.
            let routeHint: String? =
                grant.isEmpty
                ? "a session `mcp login` stored with `--client-id`, `--via IDP` or `--assertion-file FILE` is found with the same flags and `--issuer`"
                : nil
            let advice = { (error: any Error) -> String? in
                switch (error as? MCPAuthorizationError)?.code {
                case .notSignedIn?:
                    "run `oauthflow mcp login \(server.absoluteString)` first" + (routeHint.map { "; " + $0 } ?? "")
                case .dpopProofsMissing?: "this command prints Bearer tokens: run `oauthflow mcp login \(server.absoluteString)` for one"
                case .noClient?: routeHint
                default: grant.advice(error)
                }
            }
            let tokens = try await Output.running(advice: advice) { try await authorization.validTokens(for: server) }
            if json {
                var answer: [String: JSONValue] = [
                    "access_token": .string(tokens.accessToken.value), "token_type": .string("Bearer"),
                    "scopes": .array(tokens.scopes.map(JSONValue.string)),
                ]
                if let expires = tokens.expiresAt { answer["expires_at"] = .number(expires.timeIntervalSince1970.rounded()) }
                Output.stdoutExact(try Output.json(answer))
            } else {
                Output.stdoutExact(tokens.accessToken.value + "\n")
            }
        }
    }
}
#endif
