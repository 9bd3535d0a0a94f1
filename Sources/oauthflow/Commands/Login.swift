#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand {
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Sign in through the browser and store the session.",
            discussion: """
                Listens on a loopback address for the redirect (RFC 8252), opens the authorization URL with $BROWSER, \
                xdg-open or open (always printing it on stderr), exchanges the code and stores the session 0600 under \
                $XDG_STATE_HOME/oauthflow. Exit codes: 0 signed in; 1 the provider refused, the exchange failed or \
                nothing is configured to sign in with; 2 no callback before the timeout; 64 a malformed command line.
                """)

        @OptionGroup var options: LoginOptions

        @Option(help: "A fixed loopback port, instead of the descriptor's setting.")
        var port: Int?

        @Flag(name: .customLong("no-browser"), help: "Only print the URL; do not open a browser.")
        var noBrowser = false

        @Option(
            help:
                "Seconds to wait for the browser to come back with the callback (not a limit on the whole login: the token exchange after it has its own 30 s deadline)."
        )
        var timeout: Int = 300

        @Option(name: .customLong("callback-url"), help: "Finish an `authorize-url` flow with the redirect URL copied from the browser.")
        var callbackURL: String?

        @Flag(help: "Print the result as JSON on stdout.")
        var json = false

        @Flag(help: "Sign in with a code entered on another device (RFC 8628 device flow), for machines no browser can reach.")
        var device = false

        @Option(
            name: .customLong("acr-values"),
            help: "A step-up an API asked for (RFC 9470): the authentication context classes, space-separated; the new ID token's `acr` must be one.")
        var acrValues: String?

        @Option(
            name: .customLong("max-age"),
            help: "A step-up an API asked for (RFC 9470): the user must have signed in within this many seconds (`auth_time` checked).")
        var maximumAge: Int?

        /// What `--acr-values` and `--max-age` ask for; nil for neither.
        var stepUp: ProtectedResource.StepUp? {
            let acr = (acrValues ?? "").split(separator: " ").map(String.init)
            guard !acr.isEmpty || maximumAge != nil else { return nil }
            return ProtectedResource.StepUp(acrValues: acr, maximumAge: maximumAge)
        }

        func validate() throws {
            if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
            if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
            if let callbackURL, URL(string: callbackURL) == nil { throw ValidationError("--callback-url is not a URL") }
            if let maximumAge, maximumAge < 0 { throw ValidationError("--max-age is a number of seconds, 0 or more") }
            if stepUp != nil, callbackURL != nil {
                throw ValidationError(
                    "--acr-values and --max-age are asked for when a sign-in starts; --callback-url finishes one `authorize-url` started")
            }
        }

        func run() async throws {
            let store = CommandEnvironment.store
            if let callbackURL {
                try await finishManualFlow(callbackURL, store: store)
                return
            }
            let environment = CommandEnvironment.variables
            let (oauth, settings, provider) = try await Output.running(advice: Advice.clientID) {
                let settings = try await options.settings(CommandEnvironment.clients, store: store)
                let oauth = options.registryOptions.oauth(clients: [options.name: settings])
                return (oauth, settings, try oauth.provider(options.name))
            }
            LoginOptions.announce(settings)
            // --no-browser keeps the code flow; otherwise the device flow where no browser can open and the provider takes it.
            let route: SignInRoute = device ? .deviceCode(nil) : noBrowser ? .browser : .automatic(for: provider, environment: environment)
            let browser: any BrowserOpener = noBrowser ? NoBrowser() : SystemBrowser(environment: environment)
            let progress = Progress()
            let report = Reporter(provider: provider, timeout: timeout, progress: progress)
            let work = Task {
                try await oauth.signIn(
                    to: options.name, account: options.account, browser: browser, route: route, port: port,
                    timeout: .seconds(timeout), requestOfflineAccess: !options.noOffline, stepUp: stepUp, events: report.show)
            }
            // Ctrl-C cancels the device flow's polling; nothing is stored.
            let interrupt = route == .browser ? nil : Self.cancelOnInterrupt(work)
            defer { interrupt?.cancel() }
            let hint = { (error: any Error) in
                Advice.clientAuthentication(error, secretSource: settings.secretSource)
                    ?? Advice.publicClientServerError(error, provider: provider, secretSource: settings.secretSource)
                    ?? Advice.credential(error)
            }
            let result = try await Output.running(advice: hint) {
                do {
                    let result = try await work.value
                    progress.stop()
                    return result
                } catch {
                    progress.stop()
                    throw exitCode(for: error, settings: settings) ?? error
                }
            }
            LoginSummary.print(result, provider: provider, path: store.path(for: result.session.key), json: json)
        }

        /// The exit code of a sign-in that ended without a failure to report as `error:`: cancelled (130), or
        /// timed out waiting for the browser or for the code's approval (2, with the command that starts again).
        private func exitCode(for error: any Error, settings: ClientSettings) -> ExitCode? {
            let message: String, extra: [String]
            switch error {
            case is CancellationError:
                Output.stderr("Cancelled; nothing was stored.\n")
                return ExitCodes.interrupted
            case let error as LoopbackError where error.code == .timedOut:
                (message, extra) = (error.message, rerunFlags)
            case let error as FlowError where error.code == .deviceCodeExpired:
                (message, extra) = (error.message, ["--device"])
            case let error as AuthorizationServerError where error.error == "expired_token":
                (message, extra) = ("the code expired before it was approved", ["--device"])
            default:
                return nil
            }
            Output.stderr(
                "error: \(Output.line(message)); run `\(Output.line(options.rerun(clientID: settings.clientID, extra: extra).text))` again\n")
            return ExitCodes.timedOut
        }

        /// The flags of this command that a re-run needs besides the shared ones.
        private var rerunFlags: [String] {
            var words: [String] = []
            if let port { words += ["--port", "\(port)"] }
            if noBrowser { words.append("--no-browser") }
            if timeout != 300 { words += ["--timeout", "\(timeout)"] }
            if let acrValues { words += ["--acr-values", acrValues] }
            if let maximumAge { words += ["--max-age", "\(maximumAge)"] }
            return words
        }

        /// Cancels `task` on SIGINT instead of ending the process.
        private static func cancelOnInterrupt(_ task: Task<SignInResult, any Error>) -> any DispatchSourceSignal {
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { task.cancel() }
            interrupt.resume()
            return interrupt
        }
    }
}
#endif
