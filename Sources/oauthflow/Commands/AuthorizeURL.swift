#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct AuthorizeURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "authorize-url",
            abstract: "Print an authorization URL for a manual sign-in, and keep its state for `login --callback-url`.",
            discussion:
                "Use it where no browser can reach this machine: open the URL anywhere, then pass the redirect URL the browser ends on to `oauthflow login NAME --callback-url URL`."
        )

        @OptionGroup var options: LoginOptions

        @Option(help: "The loopback port to put in the redirect URI (default: the descriptor's fixed port, else 8765).")
        var port: Int?

        func run() async throws {
            try await Output.running(advice: Advice.clientID) {
                let settings = try await options.settings(CommandEnvironment.clients)
                LoginOptions.announce(settings)
                let oauth = options.registryOptions.oauth(clients: [options.name: settings])
                let started = try await oauth.startManualSignIn(
                    to: options.name, account: options.account, port: port, requestOfflineAccess: !options.noOffline)
                Output.stdout(started.url.absoluteString + "\n")
                var finish = LoginCommand(
                    provider: options.name, account: options.account,
                    secretEnvironment: options.credential.secretEnvironment, extra: ["--callback-url"])
                finish.providerDirectories = options.registryOptions.providerDirectories
                if port == nil, started.usesDefaultPort {
                    // No listener chose a port: the redirect URI names one the provider must take (RFC 8252 §7.3), or have registered.
                    Output.stderr(
                        "The redirect URI is \(Output.line(started.redirectURI.absoluteString)): the descriptor's port is ephemeral, so port \(OAuth.ManualSignIn.defaultPort) was put in it (a provider that takes any loopback port accepts it; --port PORT puts another).\n"
                    )
                }
                // The state and verifier kept here are good for PendingAuthorization.lifetime (RFC 6749 §4.1.2's short code life).
                let minutes = Int(PendingAuthorization.lifetime / 60)
                Output.stderr("Open the URL, sign in, then within \(minutes) minutes run: \(Output.line(finish.text)) 'REDIRECT_URL'\n")
                if let expiry = started.requestExpiresAt {
                    // RFC 9126: the URL holds only a reference to the request pushed to the provider, which forgets it soon.
                    let seconds = Int(expiry.timeIntervalSinceNow.rounded())
                    Output.stderr("The request was pushed to the provider: open the URL within \(seconds) s, or run this command again.\n")
                }
            }
        }
    }
}
#endif
