import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.Login {
    /// `login --callback-url`: finishes the sign-in `authorize-url` started, with the redirect URL the browser ended on.
    ///
    /// A URL that does not belong to the sign-in (a forged or mistyped one), or a failure before anything was
    /// sent, keeps the sign-in in progress; any other failure spends it, and says how to start again.
    func finishManualFlow(_ callback: String, store: FileTokenStore) async throws {
        var startAgain = LoginCommand(
            provider: options.name, account: options.account, clientID: options.clientID,
            variables: VariableOptions.values(options.variables), command: "authorize-url")
        startAgain.providerDirectories = options.registryOptions.providerDirectories
        let pendingStore = PendingAuthorizationStore(beside: store)
        let (outcome, run) = try await Output.running {
            guard let url = URL(string: callback) else { throw CommandFailure("--callback-url is not a URL") }
            guard let saved = try pendingStore.load(for: options.key) else {
                throw CommandFailure("no authorization in progress for \(options.key); run `\(startAgain.text)` first")
            }
            startAgain.clientID = saved.clientID
            startAgain.variables = saved.variables
            // Finding the provider and the client sends nothing: a failure here keeps the sign-in in progress.
            let run: SignInRun
            do {
                var overrides = options.overrides
                overrides.variables = [:]
                var settings = try CommandEnvironment.clients.settings(
                    clientID: saved.clientID, provider: saved.pending.providerID, overrides: overrides)
                settings.variables = saved.variables
                let oauth = options.registryOptions.oauth(clients: [saved.pending.providerID: settings])
                run = try oauth.signInRun(to: saved.pending.providerID, redirectURI: saved.pending.redirectURI)
            } catch {
                Output.stderr("The sign-in in progress was kept.\n")
                throw error
            }
            do {
                let outcome = try await run.client.finishSignIn(.callback(url), pending: saved.pending)
                pendingStore.remove(for: options.key)
                return (outcome, run)
            } catch let error as FlowError where [.stateMismatch, .invalidCallback].contains(error.code) {
                // Nothing was spent: a forged or mistyped URL must not cost the user the genuine one.
                Output.stderr("The sign-in in progress was kept; give the URL the provider redirected to.\n")
                throw error
            } catch {
                // Anything else may have spent the code: the sign-in in progress is over.
                pendingStore.remove(for: options.key)
                Output.stderr("The sign-in in progress is over; start again with `\(Output.line(startAgain.text))`.\n")
                throw error
            }
        }
        let result = try await Output.running {
            try await run.store(outcome, account: options.account, in: store) { kept in
                Output.stderr("The stored session file could not be read; it was kept as \(kept).\n")
            }
        }
        LoginSummary.print(result, provider: run.client.provider, path: store.path(for: options.key), json: json)
    }
}
