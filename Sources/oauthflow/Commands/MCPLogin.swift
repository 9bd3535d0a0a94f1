#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCPAuth

extension OAuthFlowCommand.MCP {
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in to an MCP server through the browser (or an enterprise identity provider) and store the session.",
            discussion: """
                Discovers the server's authorization server, registers a client there the first time, opens the \
                authorization URL with $BROWSER, xdg-open or open (always printing it on stderr) and stores the session \
                0600. A session already stored is replaced. With --client-id and --issuer the client registered there \
                beforehand is used instead of a registration, and only at that issuer. With --via IDP the user signs in at that identity provider instead \
                (once: its session is reused), whose ID token is exchanged there for an identity assertion grant that the \
                server's authorization server takes from the client --client-id names; no browser visits that server. With \
                --assertion-file the workload's JWT is presented instead, with no user. Exit codes: 0 signed in; 1 discovery, registration or the \
                sign-in failed; 2 no callback before the timeout; 64 a malformed command line.
                """)

        @OptionGroup var options: MCPOptions

        @OptionGroup var grant: MCPGrantOptions

        @Option(
            name: .customLong("scope"),
            help: "A scope to ask for (repeatable); by default those of the session stored, and those the server's challenge or metadata says.")
        var scopes: [String] = []

        @Flag(name: .customLong("no-browser"), help: "Only print the URL; do not open a browser.")
        var noBrowser = false

        @Option(help: "Seconds to wait for the browser to come back with the callback.")
        var timeout: Int = 300

        @Flag(help: "Print the result as JSON on stdout (no token in it).")
        var json = false

        /// Shows the URL to sign in at, whether or not the browser opened.
        @Sendable static func show(_ event: LoopbackSignIn.Event) {
            switch event {
            case let .openURL(url): Output.stderr("Sign in at: \(url.absoluteString)\n")
            case let .browserFailed(reason): Output.stderr("The browser did not open (\(reason)); open the URL above.\n")
            default: break
            }
        }

        func validate() throws {
            if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
        }

        func run() async throws {
            let browser: any BrowserOpener = noBrowser ? NoBrowser() : SystemBrowser(environment: CommandEnvironment.variables)
            let authorization = try await grant.authorization(options) { try $0.authorization(browser: browser, timeout: timeout, events: Self.show) }
            let server = options.server
            let tokens = try await Output.running(advice: grant.advice) {
                do {
                    return try await authorization.signIn(to: server, scopes: scopes.isEmpty ? nil : scopes)
                } catch let error as LoopbackError where error.code == .timedOut {
                    Output.stderr("error: \(Output.line(error.message)); run `oauthflow mcp login \(Output.line(server.absoluteString))` again\n")
                    if options.port == nil {
                        // A server that compares loopback ports (against RFC 8252 §7.3) shows an error page for the port-less
                        // URI registered: a fixed port is registered with it, and listened on every time.
                        Output.stderr(
                            "hint: if the browser showed an error about the redirect URI, the authorization server compares loopback ports (RFC 8252 §7.3 says it must take any): fix the port with `--port PORT`, which registers the redirect URI with it (`oauthflow mcp login \(LoginCommand.shellQuoted(server.absoluteString)) --port 8765`)\n"
                        )
                    }
                    throw ExitCodes.timedOut
                }
            }
            let key = await authorization.sessionKey(for: server)
            let path = key.map { CommandEnvironment.store.path(for: $0) }
            if json {
                var summary: [String: JSONValue] = [
                    "server": .string(server.absoluteString), "scopes": .array(tokens.scopes.map(JSONValue.string)),
                ]
                if let key { summary["session"] = .object(["provider": .string(key.providerID), "account": .string(key.account)]) }
                if let path { summary["path"] = .string(path) }
                if let expires = tokens.expiresAt { summary["expires_at"] = .number(expires.timeIntervalSince1970.rounded()) }
                Output.stdoutExact(try Output.json(summary))
            } else {
                let scopes = tokens.scopes.isEmpty ? "no scopes" : tokens.scopes.joined(separator: " ")
                Output.stderr("Signed in to \(server.absoluteString) (\(Output.line(scopes))); session stored in \(path ?? "the session store").\n")
            }
        }
    }
}
#endif
