import Foundation

extension OAuth {
    /// The authorization-code sign-in with a provider by name, sending `redirectURI`, with the configuration's client
    /// for the provider: what a host whose redirect comes back its own way drives (``SignInRun``).
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
        var run = SignInRun(
            client: client(of: provider, configuration: settings.configuration(redirectURI: redirectURI, requestOfflineAccess: requestOfflineAccess)))
        // The session's manager, made before this sign-in, would keep the old tokens.
        run.stored = { [weak self] key in self?.forget(key) }
        return run
    }
}
