#if CLI
import ArgumentParser
import Foundation
import Logging
import OAuthFlow

/// Options every command that reads the provider registry shares.
struct RegistryOptions: ParsableArguments {
    @Option(name: .customLong("providers-dir"), help: "An extra directory of provider descriptors, loaded after the bundled ones.")
    var providerDirectories: [String] = []

    @Flag(help: "Log registry decisions (such as overrides) on stderr.")
    var verbose = false

    private var directories: [URL] { providerDirectories.map { URL(fileURLWithPath: $0, isDirectory: true) } }

    private var logger: Logger {
        LoggingSetup.bootstrapped
        var logger = Logger(label: "oauthflow")
        logger.logLevel = verbose ? .info : .warning
        return logger
    }

    /// The front door a command goes through, made once per command: what `OAuth.Configuration.commandLine` gives
    /// (the user's providers, the `OAUTHFLOW_<PROVIDER>_*` variables and the clients file, the sessions in
    /// `$XDG_STATE_HOME/oauthflow`), with the `--providers-dir` directories and this command's logger.
    ///
    /// - Parameters:
    ///   - clients: Client settings the command's flags decided, by provider name, ahead of the environment and file.
    ///   - overrides: What the command's flags say of a provider's client, by provider name: settings are resolved
    ///     with them, ahead of the environment and the clients file, when they are needed.
    ///   - serviceClients: A service's own client settings, by provider name, already resolved.
    ///   - timeout: Each request's deadline, when the command's is not the transport's default.
    func oauth(
        clients: [String: ClientSettings] = [:], overrides: [String: ClientSettings.Overrides] = [:],
        serviceClients: [String: ClientSettings] = [:], timeout: TimeInterval? = nil
    ) -> OAuth {
        let transport = timeout.map { DefaultHTTPTransport(timeout: $0) } ?? DefaultHTTPTransport()
        var configuration = OAuth.Configuration.commandLine(environment: CommandEnvironment.variables, transport: transport)
        configuration.providerDirectories = directories
        configuration.clients = clients
        configuration.serviceClients = serviceClients
        // The process's one store and resolver (the same files and variables `commandLine` reads), so that what a
        // command reads beside the front door is what the front door reads.
        configuration.store = CommandEnvironment.store
        var resolver = CommandEnvironment.clients
        resolver.overrides = overrides
        configuration.clientSettings = resolver
        configuration.environment.logger = logger
        return OAuth(configuration)
    }
}
#endif
