#if CLI
import Foundation
import OAuthFlow

/// What every command reads from the process, read once: the library itself never reads the process environment,
/// so the command hands it the variables, the session store and the client settings it would otherwise find by default.
enum CommandEnvironment {
    /// The process's environment variables.
    static let variables = ProcessInfo.processInfo.environment
    /// The sessions in `$XDG_STATE_HOME/oauthflow`: the one store of the process, which every front door a command makes
    /// keeps its sessions in (``RegistryOptions/oauth(clients:overrides:serviceClients:timeout:)``).
    static let store = FileTokenStore(directory: FileTokenStore.standardDirectory(environment: variables))
    /// Client settings from the `OAUTHFLOW_<PROVIDER>_*` variables and the clients file: the one resolver of the process,
    /// which every front door a command makes asks, with the command's flags as its overrides.
    static let clients = ClientSettingsResolver(environment: variables)
}
#endif
