#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

/// Options of the commands that get a token for a service (`token client`, `token exchange`, `call --service`):
/// the provider, its client (as `login` resolves it) and what the token is for.
struct ServiceOptions: ParsableArguments {
    @OptionGroup var wanted: ServiceRequestOptions

    @OptionGroup var credential: ClientCredentialOptions

    @OptionGroup var variableOptions: VariableOptions
    @OptionGroup var registryOptions: RegistryOptions

    /// What the token is for.
    var request: OAuthClient.ServiceTokenRequest { wanted.request }

    /// The client as the flags, the environment and the clients file give it.
    var overrides: ClientSettings.Overrides {
        credential.overrides(clientID: wanted.clientID, variables: variableOptions.values)
    }

    /// Runs `work` with the provider's service tokens, cached in the default token directory so that later runs
    /// reuse them. The resolver's notes go to stderr first; a failure says what to do about the client's credential.
    func withServiceTokens<Value>(provider name: String, _ work: (ServiceTokens) async throws -> Value) async throws -> Value {
        let registry = registryOptions
        return try await Self.withServiceTokens(
            registry: registry, overrides: overrides, provider: name, scopes: wanted.scopes, work)
    }

    /// - Parameter scopes: The scopes asked for with `--scope`, for the advice after `invalid_scope`.
    static func withServiceTokens<Value>(
        registry: RegistryOptions, overrides: ClientSettings.Overrides, provider name: String, scopes: [String] = [],
        _ work: (ServiceTokens) async throws -> Value
    ) async throws -> Value {
        let (tokens, settings) = try await Output.running {
            // The flags ahead of the environment and the clients file, as the front door resolves a service's client.
            let resolving = registry.oauth(overrides: [name: overrides])
            // The provider first: a misspelt name is an unknown provider, whatever the client settings say.
            _ = try resolving.descriptor(name)
            // Resolved once: the notes and the advice below are of the client the tokens are asked for with.
            let settings = try resolving.serviceClientSettings(for: name)
            return (try registry.oauth(serviceClients: [name: settings]).serviceTokens(for: name), settings)
        }
        for note in settings.notes { Output.stderr("note: \(note)\n") }
        // The method in use, or the one asked for when its credential is missing (the advice then names only what it takes).
        let method = (try? tokens.client.configuration.authenticationMethod(for: tokens.client.provider)) ?? tokens.client.configuration.authMethod
        let advice = { (error: any Error) in
            Advice.serviceClient(error, provider: name, method: method, settings: settings) ?? Advice.serviceScopes(error, scopes, settings: settings)
        }
        return try await Output.running(advice: advice) { try await work(tokens) }
    }
}
#endif
