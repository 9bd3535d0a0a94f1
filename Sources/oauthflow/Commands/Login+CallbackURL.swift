#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Login {
    /// `login --callback-url`: finishes the sign-in `authorize-url` started, with the redirect URL the browser ended on
    /// (`OAuth.finishManualSignIn`).
    ///
    /// A failure before the provider's response is accepted (a forged, mistyped or cut URL, a client that cannot
    /// authenticate) keeps the sign-in in progress; any later failure spends it, and says how to start again.
    func finishManualFlow(_ callback: String, store: FileTokenStore) async throws {
        var startAgain = LoginCommand(
            provider: options.name, account: options.account, clientID: options.clientID,
            variables: VariableOptions.values(options.variables), command: "authorize-url")
        startAgain.providerDirectories = options.registryOptions.providerDirectories
        var oauth = options.registryOptions.oauth()
        let result = try await Output.running {
            guard let url = URL(string: callback) else { throw CommandFailure("--callback-url is not a URL") }
            guard let saved = try oauth.manualSignIn(to: options.name, account: options.account) else {
                throw CommandFailure("no authorization in progress for \(options.key); run `\(startAgain.text)` first")
            }
            startAgain.clientID = saved.clientID
            startAgain.variables = saved.variables
            do {
                // The client that started the sign-in finishes it: its secret or key from the flags and the clients file,
                // left out when the sign-in's variables move it to another server than the clients file's entry names.
                var overrides = options.overrides
                overrides.variables = saved.variables
                var settings = try CommandEnvironment.clients.settings(clientID: saved.clientID, provider: options.name, overrides: overrides)
                settings.variables = saved.variables
                oauth = options.registryOptions.oauth(clients: [options.name: settings])
                return try await oauth.finishManualSignIn(to: options.name, account: options.account, callback: url) { kept in
                    Output.stderr("The stored session file could not be read; it was kept as \(kept).\n")
                }
            } catch {
                if (try? oauth.manualSignIn(to: options.name, account: options.account)) != nil {
                    // Nothing was spent: a forged, mistyped or cut URL must not cost the user the genuine one.
                    let notItsResponse =
                        (error as? FlowError).map { [.stateMismatch, .invalidCallback, .missingCode, .issuerMismatch].contains($0.code) } ?? false
                    Output.stderr(
                        "The sign-in in progress was kept\(notItsResponse ? "; give the whole URL the provider redirected to, in quotes" : "").\n")
                } else {
                    Output.stderr("The sign-in in progress is over; start again with `\(Output.line(startAgain.text))`.\n")
                }
                throw error
            }
        }
        let provider = try oauth.provider(options.name)
        LoginSummary.print(result, provider: provider, path: store.path(for: options.key), json: json)
    }
}
#endif
