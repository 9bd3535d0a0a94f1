import Foundation
import OAuthFlow

/// What every command reads from the process, read once: the library itself never reads the process environment,
/// so the command hands it the variables, the session store and the client settings it would otherwise find by default.
enum CommandEnvironment {
    /// The process's environment variables.
    static let variables = ProcessInfo.processInfo.environment
    /// `$XDG_STATE_HOME/oauthflow`.
    static var store: FileTokenStore { FileTokenStore(directory: FileTokenStore.standardDirectory(environment: variables)) }
    /// Client settings from the `OAUTHFLOW_<PROVIDER>_*` variables and the clients file.
    static var clients: ClientSettingsResolver { ClientSettingsResolver(environment: variables) }
}
