#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

/// Options `login` and `authorize-url` share.
struct LoginOptions: ParsableArguments {
    @Argument(help: "The provider id.")
    var name: String

    @Option(name: .customLong("client-id"), help: "The client id registered at the provider.")
    var clientID: String?

    @OptionGroup var credential: ClientCredentialOptions

    @Option(name: .customLong("var"), help: "A provider variable as name=value; repeat for each.")
    var variables: [String] = []

    @Option(name: .customLong("scope"), help: "A scope to request instead of the provider's defaults; repeat for each.")
    var scopes: [String] = []

    @Option(
        name: .customLong("add-scope"),
        help: "Add a scope to the stored session: sign in again with its client id, variables and scopes plus this one; repeat for each.")
    var addScopes: [String] = []

    @Flag(name: .customLong("no-offline"), help: "Do not ask for a refresh token (skip the provider's offline scopes and parameters).")
    var noOffline = false

    @Option(help: "The account name, to keep several sessions with one provider.")
    var account: String = "default"

    @OptionGroup var registryOptions: RegistryOptions

    var key: SessionKey { SessionKey(providerID: name, account: account) }

    func validate() throws {
        try VariableOptions.validate(variables)
        if !addScopes.isEmpty, !scopes.isEmpty {
            throw ValidationError("--scope replaces the scopes and --add-scope adds to the stored session's; give one of them")
        }
    }

    /// What the flags say about the client, ahead of the environment and the clients file.
    var overrides: ClientSettings.Overrides {
        credential.overrides(clientID: clientID, variables: VariableOptions.values(variables), scopes: scopes)
    }

    /// The client settings; with `--add-scope`, the stored session's client id, variables and granted
    /// scopes plus the added ones (flags still win for variables and the secret).
    func settings(_ resolver: ClientSettingsResolver, store: FileTokenStore = CommandEnvironment.store) async throws -> ClientSettings {
        var given = overrides
        if !addScopes.isEmpty {
            guard let session = try await store.load(key) else {
                throw CommandFailure(
                    "no stored session for \(key) to add scopes to; sign in first with `\(rerun(clientID: clientID, extra: []).text)`")
            }
            if let clientID, clientID != session.clientID {
                throw CommandFailure(
                    "--add-scope keeps the session's client \(session.clientID); leave out --client-id \(clientID), or sign in anew without --add-scope"
                )
            }
            given.clientID = session.clientID
            given.variables = session.variables.merging(given.variables) { _, flag in flag }
            var requested = session.tokens.scopes
            for scope in addScopes where !requested.contains(scope) { requested.append(scope) }
            given.scopes = requested
        }
        return try resolver.settings(for: name, overrides: given)
    }

    /// This command line again, with the client id in use, for advice such as "run … again".
    func rerun(clientID: String?, extra: [String]) -> LoginCommand {
        var words = scopes.flatMap { ["--scope", $0] } + addScopes.flatMap { ["--add-scope", $0] }
        if noOffline { words.append("--no-offline") }
        if let method = credential.method { words += ["--client-auth", method] }
        var command = LoginCommand(
            provider: name, account: account, clientID: clientID, variables: VariableOptions.values(variables),
            secretEnvironment: credential.secretEnvironment, extra: words + extra)
        command.providerDirectories = registryOptions.providerDirectories
        return command
    }

    /// Says on stderr where the client secret comes from, and which configured settings are left out.
    static func announce(_ settings: ClientSettings, prefix: String = "") {
        for note in settings.notes { Output.stderr("\(prefix)Note: \(note).\n") }
        if let source = settings.secretSource { Output.stderr("\(prefix)Client secret: from \(source.named).\n") }
    }
}
#endif
