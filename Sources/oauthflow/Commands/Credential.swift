import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand {
    struct Credential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "credential",
            abstract: "Serve other tools as a credential helper: git, and kubectl's exec plugins.",
            subcommands: [Git.self, Kubectl.self])

        /// How the helpers get a session: the stored one, refreshed, or a sign-in with every word on stderr.
        static func access(_ registry: RegistryOptions) -> SessionAccess {
            SessionAccess(providers: { try registry.provider(named: $0, variables: $1) })
        }

        /// What a helper says while it gets a session: one `oauthflow:` line each, on stderr (stdout is the tool's).
        @Sendable static func report(_ event: SessionAccess.Event) {
            switch event {
            case let .sessionUnusable(error):
                Output.stderr("oauthflow: \(Output.line(error.message))\n")
            case let .signingIn(provider, route, settings):
                LoginOptions.announce(settings, prefix: "oauthflow: ")
                let name = Output.line(provider.displayName)
                if case let .deviceCode(reason?) = route {
                    Output.stderr("oauthflow: no browser can be opened here (\(reason)); signing in to \(name) with a device code\n")
                } else {
                    Output.stderr("oauthflow: signing in to \(name)\n")
                }
            case let .browser(.openURL(url)):
                Output.stderr("oauthflow: sign in at \(Output.line(url.absoluteString))\n")
            case let .device(.showCode(authorization)):
                Output.stderr("oauthflow: open \(Output.line(authorization.verificationURI.absoluteString)) and enter \(Output.line(authorization.displayUserCode))\n")
            case .browser, .device:
                break
            }
        }
    }
}
