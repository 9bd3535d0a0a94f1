#if CLI
import ArgumentParser
import Foundation

@main
struct OAuthFlowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauthflow",
        abstract: "Sign in with any OAuth 2.0 / OpenID Connect provider described by a YAML file.",
        discussion:
            "Exit codes: 0 success; 1 failure (including a missing session, an unknown provider or resource); 2 login timed out; 64 a malformed command line; 130 interrupted. See Docs/cli.md.",
        subcommands: [
            Login.self, AuthorizeURL.self, Userinfo.self, Token.self, Resources.self, Call.self, Logout.self, Providers.self, Lint.self, JWT.self,
            Credential.self, MCP.self, Schema.self, GenerateDocs.self, VerifyToken.self,
        ]
    )

    /// Runs the command line. `oauthflow lint PATH…` (hooks and CI run it on every commit) goes straight to
    /// ``LintRun``; everything else, and any lint with an option, through the argument parser.
    static func main() async {
        guard let paths = LintRun.plainPaths(Array(CommandLine.arguments.dropFirst())) else {
            await main(nil)
            return
        }
        do {
            try await LintRun(paths: paths).run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}
#endif
