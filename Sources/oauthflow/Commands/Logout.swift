#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension OAuthFlowCommand {
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Revoke the session's tokens at the provider, then delete the stored session.",
            discussion: """
                The session is deleted even when revocation fails; the command then exits 1 and says what the server did. \
                A confidential client's session whose revocation needs a credential not given (--client-secret-env) is \
                kept instead: nothing is sent, and the tokens can be revoked once it is given. \
                With --end-session the provider's own session ends too (OpenID Connect RP-Initiated Logout, or the \
                provider's own logout URL as its descriptor's `logout` says): the browser opens the end-session URL with \
                the session's ID token, and comes back to http://127.0.0.1:PORT/logged-out (register it at the provider; \
                --port fixes PORT for providers that match it exactly), where the state sent is checked when the provider \
                returns one; with --no-browser the URL is printed instead, without a return address. A URL printed never \
                carries the ID token (no id_token_hint). Exit codes: 0 signed out; 1 revocation failed, or the provider has no end-session endpoint; \
                2 the browser did not come back from the provider's logout in time.
                """)

        @OptionGroup var session: SessionOptions

        @Flag(name: .customLong("end-session"), help: "Also end the session at the provider, in the browser.")
        var endSession = false

        @Flag(name: .customLong("no-browser"), help: "With --end-session: print the provider's end-session URL instead of opening it.")
        var noBrowser = false

        @Option(help: "With --end-session: seconds to wait for the browser to come back from the provider's logout (default 120).")
        var timeout: Int?

        @Option(help: "With --end-session: a fixed loopback port for the return address, instead of the descriptor's setting.")
        var port: Int?

        func validate() throws {
            if !endSession, noBrowser || timeout != nil || port != nil {
                throw ValidationError("--no-browser, --timeout and --port go with --end-session")
            }
            if noBrowser, port != nil || timeout != nil { throw ValidationError("--no-browser prints the URL: there is no return to wait for") }
            if let timeout, timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
            if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        }

        func run() async throws {
            let ending: LoopbackSignOut.ProviderSessionEnding = !endSession ? .keep : noBrowser ? .printURL : .endInBrowser
            let (outcome, provider) = try await session.withOAuth { oauth, stored in
                let provider = try oauth.resolve(stored.key.providerID, variables: stored.variables)
                do {
                    let result = try await oauth.signOut(
                        stored.key.providerID, account: stored.key.account, providerSession: ending,
                        browser: SystemBrowser(environment: CommandEnvironment.variables), port: port, timeout: .seconds(timeout ?? 120)
                    ) { event in
                        switch event {
                        case let .openURL(url):
                            // The browser gets the ID token as id_token_hint; what is shown leaves it out.
                            Output.stderr(
                                "Opening the browser to end the session at \(Output.line(url.host ?? "the provider")); the end-session URL, without the ID token:\n\n  \(Output.line(url.absoluteString))\n\n"
                            )
                        case let .browserFailed(reason):
                            Output.stderr(
                                "Could not open a browser (\(Output.line(reason))); open the URL above (the provider may ask you to confirm, as it carries no ID token).\n"
                            )
                        case let .returnIgnored(reason): Output.stderr("Ignored \(Output.line(reason)).\n")
                        }
                    }
                    return (Result<LoopbackSignOut.Result, LoopbackError>.success(result), provider)
                } catch let error as LoopbackError where error.code == .timedOut {
                    return (.failure(error), provider)
                }
            }
            let result: LoopbackSignOut.Result
            switch outcome {
            case let .success(value): result = value
            case let .failure(error):
                Output.stderr("error: \(Output.line(error.message))\n")
                if port == nil, provider.loopback.fixedPort == nil {
                    Output.stderr("hint: the port was chosen for this sign-out; --port PORT fixes it, so that the address can be registered\n")
                }
                throw ExitCodes.timedOut
            }
            let name = Output.line(provider.displayName)
            let local = result.local
            if !local.revocationAvailable {
                Output.stderr("\(name) has no revocation endpoint; the tokens stay valid until they expire.\n")
            }
            var failed = false
            if let failure = local.revocationError {
                Output.stderr("Deleted the local session, but revocation failed: \(Output.line(failure))\n")
                if let advice = Advice.revocationFailed(failure) { Output.stderr("hint: \(advice)\n") }
                failed = true
            }
            if let failure = local.endSessionError {
                Output.stderr("Signed out here; the session at \(name) stays: \(Output.line(failure))\n")
                failed = true
            } else if ending == .printURL, let url = result.endSessionURL {
                print(url.absoluteString)
                Output.stderr(
                    "Signed out here; open the URL above to end the session at \(name) (it carries no ID token, so the provider may ask you to confirm).\n"
                )
            } else {
                let revoked = local.revocationAvailable && local.revocationError == nil ? "; tokens revoked" : ""
                Output.stderr("Signed out of \(name)\(revoked)\(result.endedAtProvider ? "; the session at the provider ended" : "").\n")
            }
            if failed { throw ExitCode.failure }
        }
    }
}
#endif
