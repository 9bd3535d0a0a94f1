#if CLI
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand.Credential {
    /// What a helper says while it gets a session: one `oauthflow:` line each, on stderr (stdout is the tool's).
    @Sendable static func report(_ event: OAuth.SignInEvent) {
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
            Output.stderr(
                "oauthflow: open \(Output.line(authorization.verificationURI.absoluteString)) and enter \(Output.line(authorization.displayUserCode))\n"
            )
        case .browser, .device:
            break
        }
    }
}
#endif
