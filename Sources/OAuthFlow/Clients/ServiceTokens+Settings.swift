import Foundation
import Logging

extension ServiceTokens {
    /// Service tokens for the provider `descriptor` describes, with the client `oauthflow` would use: its id,
    /// secret, private key or certificate and variables from ``ClientSettingsResolver`` (the host's overrides,
    /// the environment, the clients file).
    ///
    /// ```swift
    /// let tokens = try ServiceTokens.configured(
    ///     descriptor: try registry.provider(named: "auth0"), store: FileTokenStore())
    /// let token = try await tokens.accessToken(ServiceTokenRequest(audiences: ["https://api.example.com"]))
    /// ```
    /// - Throws: ``ClientSettingsError`` when no client is configured or its key cannot be read;
    ///   ``ProviderError`` when the descriptor does not resolve with the client's variables.
    public static func configured(
        descriptor: ProviderDescriptor, overrides: ClientSettings.Overrides = .init(), resolver: ClientSettingsResolver = .init(),
        store: any TokenStore = InMemoryTokenStore(), skew: TimeInterval = 60, defaultLifetime: TimeInterval = 300,
        transport: any HTTPTransport = DefaultHTTPTransport(), clock: any DateClock = SystemDateClock(),
        logger: Logger = Logger(label: "oauthflow", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> ServiceTokens {
        try resolved(
            descriptor: descriptor, overrides: overrides, resolver: resolver, store: store, skew: skew, defaultLifetime: defaultLifetime,
            transport: transport, clock: clock, logger: logger
        ).tokens
    }

    /// Like ``configured(descriptor:overrides:resolver:store:skew:defaultLifetime:transport:clock:logger:)``, also handing
    /// back the client's settings: where its secret or key came from, and what was found but left out (``ClientSettings/notes``),
    /// for a host to tell its user.
    public static func resolved(
        descriptor: ProviderDescriptor, overrides: ClientSettings.Overrides = .init(), resolver: ClientSettingsResolver = .init(),
        store: any TokenStore = InMemoryTokenStore(), skew: TimeInterval = 60, defaultLifetime: TimeInterval = 300,
        transport: any HTTPTransport = DefaultHTTPTransport(), clock: any DateClock = SystemDateClock(),
        logger: Logger = Logger(label: "oauthflow", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> (tokens: ServiceTokens, settings: ClientSettings) {
        let settings = try resolver.settings(for: descriptor.id, overrides: overrides)
        let provider = try descriptor.resolve(settings.variables)
        let client = OAuthClient(
            provider: provider, configuration: settings.serviceConfiguration(), transport: transport, logger: logger, clock: clock)
        return (ServiceTokens(client: client, store: store, skew: skew, defaultLifetime: defaultLifetime, clock: clock, logger: logger), settings)
    }
}
