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

    func loadRegistry() throws -> ProviderRegistry {
        try ProviderRegistry.load(directories: directories, includeUserDirectory: true, environment: CommandEnvironment.variables, logger: logger)
    }

    /// One provider by id, reading only its own files (see ``ProviderRegistry/descriptor(named:directories:includeBundled:includeUserDirectory:environment:logger:)``).
    func descriptor(named name: String) throws -> ProviderDescriptor {
        try ProviderRegistry.descriptor(
            named: name, directories: directories, includeUserDirectory: true, environment: CommandEnvironment.variables, logger: logger)
    }

    /// One provider by id, resolved with `variables`.
    func provider(named name: String, variables: [String: String]) throws -> Provider {
        try descriptor(named: name).resolve(variables)
    }
}
