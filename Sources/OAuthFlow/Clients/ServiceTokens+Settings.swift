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
        let settings = try resolver.settings(for: descriptor.id, overrides: overrides)
        let provider = try descriptor.resolve(settings.variables)
        let client = OAuthClient(
            provider: provider, configuration: settings.serviceConfiguration(), transport: transport, logger: logger, clock: clock)
        return ServiceTokens(client: client, store: store, skew: skew, defaultLifetime: defaultLifetime, clock: clock, logger: logger)
    }
}
