import Foundation

extension OAuth {
    /// The authorization-code sign-in with a provider by name, sending `redirectURI`: its client is the
    /// configuration's for the provider, resolved with the client's variables, and shares this `OAuth`'s discovery
    /// cache. The loopback, app and web sign-ins run through one of these; a host whose redirect comes back another
    /// way (a URL the user pastes, its own routes) drives it itself (``SignInRun``).
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - redirectURI: The redirect URI registered for the client.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    /// - Throws: ``ClientSettingsError`` without a client, ``ProviderError``.
    public func signInRun(to name: String, redirectURI: URL, requestOfflineAccess: Bool = true) throws -> SignInRun {
        let settings = try clientSettings(for: name)
        return signInRun(
            provider: try resolve(name, variables: settings.variables), settings: settings, redirectURI: redirectURI,
            requestOfflineAccess: requestOfflineAccess)
    }

    /// The sign-in with a provider this `OAuth` resolved and the settings given, its client sharing the discovery cache.
    package func signInRun(provider: Provider, settings: ClientSettings, redirectURI: URL, requestOfflineAccess: Bool = true) -> SignInRun {
        SignInRun(
            client: client(of: provider, configuration: settings.configuration(redirectURI: redirectURI, requestOfflineAccess: requestOfflineAccess)))
    }
}
