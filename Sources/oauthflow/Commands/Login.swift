import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

/// Exit codes beyond 0 (success), 1 (failure) and 64 (usage); see Docs/cli.md.
enum ExitCodes {
    /// No callback arrived before the timeout.
    static let timedOut = ExitCode(2)
}

/// Options `login` and `authorize-url` share.
struct LoginOptions: ParsableArguments {
    @Argument(help: "The provider id.")
    var name: String

    @Option(name: .customLong("client-id"), help: "The client id registered at the provider.")
    var clientID: String?

    @Option(name: .customLong("client-secret-env"), help: "An environment variable holding the client secret (never the secret itself).")
    var clientSecretEnvironment: String?

    @Option(name: .customLong("client-auth"), help: "How the client authenticates: none, client_secret_basic or client_secret_post (default: chosen from the provider).")
    var clientAuth: String?

    @Option(name: .customLong("var"), help: "A provider variable as name=value; repeat for each.")
    var variables: [String] = []

    @Option(name: .customLong("scope"), help: "A scope to request instead of the provider's defaults; repeat for each.")
    var scopes: [String] = []

    @Option(name: .customLong("add-scope"), help: "Add a scope to the stored session: sign in again with its client id, variables and scopes plus this one; repeat for each.")
    var addScopes: [String] = []

    @Flag(name: .customLong("no-offline"), help: "Do not ask for a refresh token (skip the provider's offline scopes and parameters).")
    var noOffline = false

    @Option(help: "The account name, to keep several sessions with one provider.")
    var account: String = "default"

    @OptionGroup var registryOptions: RegistryOptions

    var key: SessionKey { SessionKey(providerID: name, account: account) }

    func validate() throws {
        _ = try VariableOptions.parse(variables)
        _ = try ClientSettings.parseAuthMethod(clientAuth)
        if !addScopes.isEmpty, !scopes.isEmpty {
            throw ValidationError("--scope replaces the scopes and --add-scope adds to the stored session's; give one of them")
        }
    }

    /// The client settings; with `--add-scope`, the stored session's client id, variables and granted
    /// scopes plus the added ones (flags still win for variables and the secret).
    func settings(environment: [String: String], store: FileTokenStore = FileTokenStore()) async throws -> ClientSettings {
        var chosenClientID = clientID
        var values = try VariableOptions.parse(variables)
        var requested = scopes
        if !addScopes.isEmpty {
            guard let session = try await store.load(key) else {
                throw CommandFailure("no stored session for \(key) to add scopes to; sign in first with `\(rerun(clientID: clientID, extra: []).text)`")
            }
            if let clientID, clientID != session.clientID {
                throw CommandFailure("--add-scope keeps the session's client \(session.clientID); leave out --client-id \(clientID), or sign in anew without --add-scope")
            }
            chosenClientID = session.clientID
            values = session.variables.merging(values) { _, flag in flag }
            requested = session.tokens.scopes
            for scope in addScopes where !requested.contains(scope) { requested.append(scope) }
        }
        return try ClientSettings.resolve(provider: name, clientID: chosenClientID, secretEnvironment: clientSecretEnvironment, clientAuth: clientAuth,
                                          variables: values, scopes: requested, environment: environment)
    }

    /// This command line again, with the client id in use, for advice such as "run … again".
    func rerun(clientID: String?, extra: [String]) -> LoginCommand {
        var words = scopes.flatMap { ["--scope", $0] } + addScopes.flatMap { ["--add-scope", $0] }
        if noOffline { words.append("--no-offline") }
        if let clientAuth { words += ["--client-auth", clientAuth] }
        return LoginCommand(provider: name, account: account, clientID: clientID, variables: (try? VariableOptions.parse(variables)) ?? [:],
                            secretEnvironment: clientSecretEnvironment, extra: words + extra)
    }

    /// Says on stderr where the client secret comes from, and which configured settings are left out.
    func announce(_ settings: ClientSettings) {
        for note in settings.notes { Output.stderr("Note: \(note).\n") }
        if let source = settings.secretSource { Output.stderr("Client secret: from \(source).\n") }
    }
}

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

        @Option(help: "Seconds to wait for the browser to come back with the callback (not a limit on the whole login: the token exchange after it has its own 30 s deadline).")
        var timeout: Int = 300

        @Option(name: .customLong("callback-url"), help: "Finish an `authorize-url` flow with the redirect URL copied from the browser.")
        var callbackURL: String?

        @Flag(help: "Print the result as JSON on stdout.")
        var json = false

        @Flag(help: "Sign in with a code entered on another device (RFC 8628 device flow), for machines no browser can reach.")
        var device = false

        func validate() throws {
            if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
            if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
            if let callbackURL, URL(string: callbackURL) == nil { throw ValidationError("--callback-url is not a URL") }
        }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let store = FileTokenStore()
            if let callbackURL {
                try await finishManualFlow(callbackURL, store: store)
                return
            }
            let settings: ClientSettings
            let provider: Provider
            do {
                settings = try await options.settings(environment: environment, store: store)
                provider = try options.registryOptions.descriptor(named: options.name).resolve(settings.variables)
            } catch {
                throw Output.fail(error)
            }
            options.announce(settings)
            if device || (!noBrowser && provider.policy.supportsDeviceFlow && Self.noBrowserReason(environment) != nil) {
                if !device, let reason = Self.noBrowserReason(environment) {
                    Output.stderr("No browser can be opened here (\(reason)); signing in with a device code instead.\n")
                }
                try await deviceFlow(provider: provider, settings: settings, store: store)
                return
            }
            let progress = Progress()
            let browser: any BrowserOpener = noBrowser ? NoBrowser() : SystemBrowser(environment: environment)
            let signIn = LoopbackSignIn(store: store, browser: browser)
            let displayName = Output.line(provider.displayName)
            let limit = timeout
            let result: SignInResult
            do {
                result = try await signIn.signIn(
                    to: provider,
                    client: .init(clientID: settings.clientID, clientSecret: settings.secret, authMethod: settings.authMethod,
                                  scopes: settings.scopes, requestOfflineAccess: !options.noOffline),
                    account: options.account, port: port, timeout: .seconds(timeout)) { event in
                        switch event {
                        case let .listening(redirect):
                            progress.start("Waiting for the browser to return to \(redirect.absoluteString) (timeout \(limit) s)…")
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
                        case let .stillWaiting(redirect, after):
                            progress.stop()
                            Output.stderr("Nothing has come back after \(after.components.seconds) s. The redirect URI sent was \(redirect.absoluteString); it must be registered at the provider (exactly, port included, if the provider does not accept any loopback port: then fix the port with `redirect.loopback.port` or --port). A provider that refuses it shows its own error page instead of returning.\n")
                            progress.start("Waiting for the browser to return to \(redirect.absoluteString) (timeout \(limit) s)…")
                        }
                    }
            } catch let error as LoopbackError where error.code == .timedOut {
                progress.stop()
                Output.stderr("error: \(Output.line(error.message)); run `\(Output.line(options.rerun(clientID: settings.clientID, extra: rerunFlags).text))` again\n")
                throw ExitCodes.timedOut
            } catch {
                progress.stop()
                throw Output.fail(error, advice: Advice.clientAuthentication(error, secretSource: settings.secretSource))
            }
            progress.stop()
            printSummary(result, provider: provider, path: store.path(for: result.session.key))
        }

        /// The flags of this command that a re-run needs besides the shared ones.
        private var rerunFlags: [String] {
            var words: [String] = []
            if let port { words += ["--port", "\(port)"] }
            if noBrowser { words.append("--no-browser") }
            if timeout != 300 { words += ["--timeout", "\(timeout)"] }
            return words
        }

        /// Why no browser can be opened on this machine, or nil when one can.
        static func noBrowserReason(_ environment: [String: String]) -> String? {
            if let browser = environment["BROWSER"], !browser.isEmpty { return nil }
            if environment["SSH_CONNECTION"] != nil || environment["SSH_TTY"] != nil { return "an SSH session" }
            #if os(Linux)
            if (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return "no display" }
            #endif
            if SystemBrowser(environment: environment).command == nil { return "no browser command" }
            return nil
        }

        /// The device flow: the code and URL on stderr, a countdown on a terminal, Ctrl-C cancels (exit 130).
        private func deviceFlow(provider: Provider, settings: ClientSettings, store: FileTokenStore) async throws {
            let progress = Progress()
            let displayName = Output.line(provider.displayName)
            let signIn = DeviceSignIn(store: store)
            let task = Task {
                try await signIn.signIn(to: provider, clientID: settings.clientID, clientSecret: settings.secret, authMethod: settings.authMethod,
                                        scopes: settings.scopes, requestOfflineAccess: !options.noOffline, account: options.account) { event in
                    switch event {
                    case let .showCode(authorization):
                        var text = "To sign in to \(displayName), open this page on any device:\n\n  \(Output.line(authorization.verificationURI.absoluteString))\n\n"
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
            // Ctrl-C cancels the polling; nothing is stored.
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler { task.cancel() }
            interrupt.resume()
            defer { interrupt.cancel() }
            let result: SignInResult
            do {
                result = try await task.value
            } catch is CancellationError {
                progress.stop()
                Output.stderr("Cancelled; nothing was stored.\n")
                throw ExitCode(130)
            } catch let error as FlowError where error.code == .deviceCodeExpired {
                progress.stop()
                Output.stderr("error: \(Output.line(error.message)); run `\(Output.line(options.rerun(clientID: settings.clientID, extra: ["--device"]).text))` again\n")
                throw ExitCodes.timedOut
            } catch let error as AuthorizationServerError where error.error == "expired_token" {
                progress.stop()
                Output.stderr("error: the code expired before it was approved; run `\(Output.line(options.rerun(clientID: settings.clientID, extra: ["--device"]).text))` again\n")
                throw ExitCodes.timedOut
            } catch {
                progress.stop()
                throw Output.fail(error, advice: Advice.clientAuthentication(error, secretSource: settings.secretSource))
            }
            progress.stop()
            printSummary(result, provider: provider, path: store.path(for: result.session.key))
        }

        private func finishManualFlow(_ callback: String, store: FileTokenStore) async throws {
            var startAgain = LoginCommand(provider: options.name, account: options.account, clientID: options.clientID,
                                          variables: (try? VariableOptions.parse(options.variables)) ?? [:], secretEnvironment: nil,
                                          command: "authorize-url")
            do {
                guard let url = URL(string: callback) else { throw CommandFailure("--callback-url is not a URL") }
                let pendingStore = PendingAuthorizationStore(beside: store)
                guard let saved = try pendingStore.load(for: options.key) else {
                    throw CommandFailure("no authorization in progress for \(options.key); run `\(startAgain.text)` first")
                }
                startAgain.clientID = saved.clientID
                startAgain.variables = saved.variables
                let provider = try options.registryOptions.descriptor(named: saved.pending.providerID).resolve(saved.variables)
                let client = try ClientSettings.client(id: saved.clientID, redirectURI: saved.pending.redirectURI, provider: provider,
                                                       secretEnvironment: options.clientSecretEnvironment, clientAuth: options.clientAuth)
                let outcome = try await client.finishSignIn(callback: url, pending: saved.pending)
                pendingStore.remove(for: options.key)
                try await save(outcome, client: client, in: store)
            } catch let error as CommandFailure {
                throw Output.fail(error)   // nothing was sent: the sign-in in progress is kept
            } catch let error as ExitCode {
                throw error
            } catch let error as FlowError where [.stateMismatch, .invalidCallback].contains(error.code) {
                // Nothing was spent: a forged or mistyped URL must not cost the user the genuine one.
                Output.stderr("The sign-in in progress was kept; give the URL the provider redirected to.\n")
                throw Output.fail(error)
            } catch {
                PendingAuthorizationStore(beside: store).remove(for: options.key)
                Output.stderr("The sign-in in progress is over; start again with `\(Output.line(startAgain.text))`.\n")
                throw Output.fail(error)
            }
        }

        private func save(_ outcome: OAuthClient.SignInOutcome, client: OAuthClient, in store: FileTokenStore) async throws {
            let result: SignInResult
            do {
                if let kept = try await store.setAsideCorruptSession(options.key) {
                    Output.stderr("The stored session file could not be read; it was kept as \(kept).\n")
                }
                result = try await SignInResult.store(outcome, client: client, account: options.account,
                                                      redirectURI: client.configuration.redirectURI, in: store)
            } catch {
                throw Output.fail(error)
            }
            printSummary(result, provider: client.provider, path: store.path(for: options.key))
        }

        private func printSummary(_ result: SignInResult, provider: Provider, path: String) {
            let summary = LoginSummary(result: result, provider: provider, path: path)
            if json, let text = try? Output.json(summary) {
                Output.stdoutExact(text)
            } else {
                Output.stdout(summary.text)
            }
        }
    }
}

/// What `login` reports: never a token.
struct LoginSummary: Encodable {
    let provider: String
    let account: String
    let scopes: [String]
    let expiresAt: String?
    let refreshToken: Bool
    let idTokenSubject: String?
    /// Whether the engine verified the ID token (it does for every OpenID Connect sign-in).
    let idTokenVerified: Bool
    /// Who signed in, mapped by the descriptor's `profile` from the ID token (no extra round trip).
    let profile: UserProfile?
    let resources: [Resource]
    let storedAt: String

    enum CodingKeys: String, CodingKey {
        case provider, account, scopes, expiresAt = "expires_at", refreshToken = "refresh_token"
        case idTokenSubject = "id_token_subject", idTokenVerified = "id_token_verified", profile, resources, storedAt = "stored_at"
    }

    /// Built from what the sign-in verified: the ID token's subject and the profile come from its
    /// checked claims, never from decoding the stored token again.
    init(result: SignInResult, provider: Provider, path: String) {
        let session = result.session
        self.provider = provider.id
        account = session.key.account
        scopes = session.tokens.scopes
        expiresAt = session.tokens.expiresAt.map { ISO8601DateFormatter().string(from: $0) }
        refreshToken = session.tokens.refreshToken != nil
        idTokenSubject = result.idToken?.subject
        idTokenVerified = result.idToken != nil
        profile = result.profile
        resources = provider.resources.resources(granted: session.tokens.scopes)
        storedAt = path
    }

    var text: String {
        // Every value may come from the server or a descriptor: each is escaped so it stays on its line.
        let show = TerminalText.escaped
        var lines = ["Signed in to \(show(provider))\(account == "default" ? "" : " as account \(show(account))")."]
        lines.append("  scopes: \(show(scopes.joined(separator: " ")))")
        lines.append("  expires: \(expiresAt ?? "not stated")")
        lines.append("  refresh token: \(refreshToken ? "issued" : "not issued")")
        if let idTokenSubject { lines.append("  ID token subject: \(show(idTokenSubject))\(idTokenVerified ? " (verified)" : " (not verified)")") }
        if let profile, profile.name != nil || profile.email != nil {
            let email = profile.email.map { " <\(show($0))>\(profile.emailVerified == true ? " (verified)" : "")" } ?? ""
            lines.append("  user: \(show(profile.name ?? profile.subject ?? ""))\(email)")
        }
        for resource in resources { lines.append("  resource: \(show(resource.title)) \(show(resource.url.absoluteString))") }
        lines.append("  stored: \(show(storedAt))")
        return lines.joined(separator: "\n") + "\n"
    }
}
