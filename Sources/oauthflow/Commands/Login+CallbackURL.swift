import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Login {
    /// `login --callback-url`: finishes the sign-in `authorize-url` started, with the redirect URL the browser ended on
    /// (`OAuth.finishManualSignIn`).
    ///
    /// A URL that does not belong to the sign-in (a forged or mistyped one), or a failure before anything was
    /// sent, keeps the sign-in in progress; any other failure spends it, and says how to start again.
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
                // The client that started the sign-in finishes it: its secret or key from the flags and the clients file.
                var overrides = options.overrides
                overrides.variables = [:]
                var settings = try CommandEnvironment.clients.settings(clientID: saved.clientID, provider: options.name, overrides: overrides)
                settings.variables = saved.variables
                oauth = options.registryOptions.oauth(clients: [options.name: settings])
                return try await oauth.finishManualSignIn(to: options.name, account: options.account, callback: url) { kept in
                    Output.stderr("The stored session file could not be read; it was kept as \(kept).\n")
                }
            } catch {
                if (try? oauth.manualSignIn(to: options.name, account: options.account)) != nil {
                    // Nothing was spent: a forged or mistyped URL must not cost the user the genuine one.
                    Output.stderr("The sign-in in progress was kept; give the URL the provider redirected to.\n")
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
