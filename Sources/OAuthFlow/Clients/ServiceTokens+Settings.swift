import Foundation

extension ServiceTokens {
    /// Service tokens for the provider `descriptor` describes, with the client `oauthflow` would use: its id,
    /// secret, private key or certificate and variables from ``ClientSettingsResolver`` (the host's overrides,
    /// the environment, the clients file).
    ///
    /// ```swift
    /// let tokens = try ServiceTokens.configured(
    ///     descriptor: try registry.descriptor(named: "auth0"), resolver: ClientSettingsResolver(environment: environment))
    /// let token = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(audiences: ["https://api.example.com"]))
    /// ```
    /// - Throws: ``ClientSettingsError`` when no client is configured or its key cannot be read;
    ///   ``ProviderError`` when the descriptor does not resolve with the client's variables.
    public static func configured(
        descriptor: ProviderDescriptor, overrides: ClientSettings.Overrides = .init(), resolver: ClientSettingsResolver,
        store: any TokenStore = InMemoryTokenStore(), skew: TimeInterval = 60, defaultLifetime: TimeInterval = 300,
        environment: OAuthEnvironment = OAuthEnvironment()
    ) throws -> ServiceTokens {
        try resolved(
            descriptor: descriptor, overrides: overrides, resolver: resolver, store: store, skew: skew, defaultLifetime: defaultLifetime,
            environment: environment
        ).tokens
    }

    /// Like ``configured(descriptor:overrides:resolver:store:skew:defaultLifetime:environment:)``, also handing
    /// back the client's settings: where its secret or key came from, and what was found but left out (``ClientSettings/notes``),
    /// for a host to tell its user.
    public static func resolved(
        descriptor: ProviderDescriptor, overrides: ClientSettings.Overrides = .init(), resolver: ClientSettingsResolver,
        store: any TokenStore = InMemoryTokenStore(), skew: TimeInterval = 60, defaultLifetime: TimeInterval = 300,
        environment: OAuthEnvironment = OAuthEnvironment()
    ) throws -> (tokens: ServiceTokens, settings: ClientSettings) {
        let settings = try resolver.settings(for: descriptor.id, overrides: overrides)
        let provider = try descriptor.resolve(settings.variables)
        let client = OAuthClient(provider: provider, configuration: settings.serviceConfiguration(), environment: environment)
        return (ServiceTokens(client: client, store: store, skew: skew, defaultLifetime: defaultLifetime), settings)
    }
}
