#if CLI
import ArgumentParser
import Foundation

extension OAuthFlowCommand {
    struct MCP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mcp",
            abstract: "Sign in to an MCP server from its URL, print its access token, or show what discovery finds.",
            discussion: """
                Follows the Model Context Protocol's authorization spec: the server's protected-resource metadata \
                (RFC 9728), its authorization server's metadata, a client (registered once with Dynamic Client \
                Registration and kept 0600 under $XDG_STATE_HOME/oauthflow/mcp-clients), and a loopback sign-in with \
                PKCE and the `resource` indicator (RFC 8707). Sessions are stored with the others, under \
                $XDG_STATE_HOME/oauthflow. See Docs/cli.md.
                """,
            subcommands: [Login.self, Token.self, Inspect.self])
    }
}
#endif
