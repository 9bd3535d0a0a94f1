#if CLI
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand.Login {
    /// What `login` shows while it signs in: the URL or the code on stderr, a spinner or countdown on a terminal.
    struct Reporter: Sendable {
        let provider: Provider
        let timeout: Int
        let progress: Progress
        /// The provider's authorization endpoint, from the event before the URL to open (which may be this machine's own address).
        let endpoint = EventURL()
        /// The redirect URI listened on: the wait for the browser is shown once the URL to open has been.
        let redirect = EventURL()

        var displayName: String { Output.line(provider.displayName) }

        @Sendable func show(_ event: OAuth.SignInEvent) {
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
            case let .listening(uri):
                // Said after the URL: waiting for the browser means nothing before the user knows where it goes.
                redirect.value = uri
            case let .authorizationEndpoint(url):
                endpoint.value = url
            case let .openURL(url):
                progress.stop()
                Output.stderr(signInText(url, endpoint: endpoint.value ?? provider.endpoints.authorization))
                waitForBrowser()
            case let .browserFailed(reason):
                progress.stop()
                Output.stderr("\(Output.line(reason)). Open the URL yourself.\n")
                // A plain line for the wait was printed already; a status line is drawn again.
                if progress.isTerminal { waitForBrowser() }
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

        /// The wait for the browser to come back, on the spinner line (or one plain line).
        private func waitForBrowser() {
            guard let uri = redirect.value else { return }
            progress.start("Waiting for the browser to return to \(uri.absoluteString) (timeout \(timeout) s)…")
        }

        /// Where to sign in: the provider's name and host, and the URL to open. With a pushed request the URL is
        /// the loopback receiver's start address, which names no provider: it sends the browser on to the endpoint.
        func signInText(_ url: URL, endpoint: URL?) -> String {
            guard let endpoint, let host = endpoint.host, !host.isEmpty else {
                return "Sign in to \(displayName) by opening this URL:\n\n  \(Output.line(url.absoluteString))\n\n"
            }
            let leads = url.host == host ? "" : " (an address on this machine that sends the browser on to \(Output.line(endpoint.absoluteString)))"
            return "Sign in to \(displayName) at \(Output.line(host)) by opening this URL\(leads):\n\n  \(Output.line(url.absoluteString))\n\n"
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
#endif
