import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand.Login {
    /// What `login` shows while it signs in: the URL or the code on stderr, a spinner or countdown on a terminal.
    struct Reporter: Sendable {
        let provider: Provider
        let timeout: Int
        let progress: Progress

        var displayName: String { Output.line(provider.displayName) }

        @Sendable func show(_ event: SessionAccess.Event) {
            switch event {
            case let .signingIn(_, .deviceCode(reason?), _):
                Output.stderr("No browser can be opened here (\(reason)); signing in with a device code instead.\n")
            case .signingIn, .sessionUnusable:
                break
            case let .browser(event):
                show(event)
            case let .device(event):
                show(event)
            }
        }

        func show(_ event: LoopbackSignIn.Event) {
            switch event {
            case let .listening(redirect):
                progress.start("Waiting for the browser to return to \(redirect.absoluteString) (timeout \(timeout) s)…")
            case let .openURL(url):
                progress.stop()
                Output.stderr("Sign in to \(displayName) by opening this URL:\n\n  \(url.absoluteString)\n\n")
            case let .browserFailed(reason):
                Output.stderr("\(Output.line(reason)). Open the URL yourself.\n")
            case let .callbackIgnored(reason):
                progress.stop()
                Output.stderr("Ignored a callback that does not belong to this sign-in (\(Output.line(reason))).\n")
            case let .exchangingCode(host):
                progress.stop()
                progress.start("Callback received; getting tokens from \(Output.line(host))…")
            case let .corruptSessionKept(path):
                Output.stderr("The stored session file could not be read; it was kept as \(Output.line(path)).\n")
            case .pushedRequestRenewed:
                Output.stderr("The pushed sign-in request had expired before the browser used it; a new one was pushed.\n")
            case let .stillWaiting(redirect, after):
                progress.stop()
                Output.stderr(
                    "Nothing has come back after \(after.components.seconds) s. The redirect URI sent was \(redirect.absoluteString); it must be registered at the provider (exactly, port included, if the provider does not accept any loopback port: then fix the port with `redirect.loopback.port` or --port). A provider that refuses it shows its own error page instead of returning.\n"
                )
                progress.start("Waiting for the browser to return to \(redirect.absoluteString) (timeout \(timeout) s)…")
            }
        }

        func show(_ event: DeviceSignIn.Event) {
            switch event {
            case let .showCode(authorization):
                var text =
                    "To sign in to \(displayName), open this page on any device:\n\n  \(Output.line(authorization.verificationURI.absoluteString))\n\n"
                text += "and enter the code:\n\n    \(Output.line(authorization.displayUserCode))\n\n"
                if let complete = authorization.verificationURIComplete {
                    text += "(or open \(Output.line(complete.absoluteString)), which carries the code)\n"
                }
                if let message = authorization.message { text += Output.line(message) + "\n" }
                Output.stderr(text)
                progress.start("Waiting for the code to be approved…", deadline: authorization.expiresAt)
            case .pending:
                break
            case let .slowDown(interval):
                progress.stop()
                progress.start("The server asked to poll less often (every \(Int(interval)) s); waiting…")
            }
        }
    }
}
