import Foundation
import OAuthFlow

extension OAuth {
    /// "Sign in with …" for a web server: the providers named, each with its client from the configuration,
    /// behind one set of routes (`OAuthFlowHummingbird` or `OAuthFlowVapor` mounts them).
    ///
    /// ```swift
    /// let web = try oauth.webSignIn(enabling: ["google", "auth0"], origin: URL(string: "https://app.example.com")!, keyring: keyring)
    /// ```
    ///
    /// - Parameters:
    ///   - names: The providers to offer; listed by display name.
    ///   - origin: The site's public origin; plain `http` only for loopback (development).
    ///   - keyring: Seals the pending sign-in cookies; share it between instances.
    ///   - replays: The logout token `jti`s seen; share one (`PostgresReplayRegistry`) between instances.
    ///   - basePath: The routes' prefix.
    ///   - pendingLifetime: How long a started sign-in (or sign-out) may take before its cookie expires, in seconds.
    /// - Throws: `ClientSettingsError` for a provider without a client, `ProviderError`, and ``WebSignInError``
    ///   `configuration` for an origin, base path or client that cannot work.
    public func webSignIn(
        enabling names: [String], origin: URL, keyring: SessionKeyring, replays: any ReplayRegistry = InMemoryReplayRegistry(),
        basePath: String = "/auth", pendingLifetime: TimeInterval = 600
    ) throws -> WebSignIn {
        var providers: [(Provider, ClientSettings)] = []
        for name in names {
            let settings = try clientSettings(for: name)
            providers.append((try resolve(name, variables: settings.variables), settings))
        }
        providers.sort { ($0.0.displayName, $0.0.id) < ($1.0.displayName, $1.0.id) }
        return try WebSignIn(
            providers: providers, origin: origin, keyring: keyring, sessions: store as? any SessionDirectory, replays: replays,
            basePath: basePath, pendingLifetime: pendingLifetime, oauth: self)
    }
}
