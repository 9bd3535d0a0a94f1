import Foundation

extension OAuth {
    /// The authorization-code sign-in with a provider by name, sending `redirectURI`: its client is the
    /// configuration's for the provider, resolved with the client's variables, and shares this `OAuth`'s discovery
    /// cache. The loopback, app and web sign-ins run through one of these; a host whose redirect comes back another
    /// way (a URL the user pastes, its own routes) drives it itself (``SignInRun``). A session the run stores replaces
    /// the one this `OAuth` held: ``session(_:account:)`` and ``accessToken(for:account:)`` give its new tokens.
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
