import Foundation

/// An authorization request that has been sent to the browser and awaits its callback.
///
/// It is `Codable` so an app can persist it and resume after a restart; it holds
/// the PKCE verifier, so store it as carefully as a token.
public struct PendingAuthorization: Sendable, Hashable, Codable {
    /// The URL to open in the user's browser.
    public let url: URL
    public let providerID: String
    public let state: Secret
    public let pkce: PKCE?
    public let nonce: Secret?
    /// The redirect URI exactly as sent; the token request repeats it.
    public let redirectURI: URL
    /// The scopes requested, joined later only if the token response omits `scope`.
    public let scopes: [String]
    public let createdAt: Date

    /// Builds the authorization request for a resolved provider (RFC 6749 §4.1.1, RFC 7636 §4.3).
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - client: The registered client.
    ///   - now: The creation time to record.
    /// - Throws: ``FlowError`` when the provider has no authorization endpoint or the
    ///   redirect URI is unsafe.
    public static func start(provider: Provider, client: ClientConfiguration, now: Date = Date()) throws -> PendingAuthorization {
        guard let endpoint = provider.endpoints.authorization else {
            throw FlowError(.missingEndpoint, "provider `\(provider.id)` has no authorization endpoint")
        }
        try RedirectPolicy.check(client.redirectURI)
        let policy = provider.policy
        var scopes = client.scopes ?? policy.scopes.defaults
        var parameters: [(String, String)] = []
        // Fixed and offline parameters first, so the reserved ones below always win.
        var extra = policy.authorizationParameters
        if client.requestOfflineAccess {
            for scope in policy.scopes.offlineScopes where !scopes.contains(scope) { scopes.append(scope) }
            extra.merge(policy.scopes.offlineParameters) { _, offline in offline }
        }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) where !DescriptorSchema.reservedParameters.contains(name) {
            parameters.append((name, value))
        }
        if policy.responseMode != .query {
            parameters.append(("response_mode", policy.responseMode.rawValue))
        }
        let state = Secret(Base64URL.random(bytes: 32))
        let pkce = policy.pkce == .unsupported ? nil : PKCE.generate()
        let nonce = policy.nonce ? Secret(Base64URL.random(bytes: 32)) : nil
        parameters += [
            ("response_type", "code"),
            ("client_id", client.clientID),
            ("redirect_uri", client.redirectURI.absoluteString),
            ("scope", policy.scopes.joined(scopes)),
            ("state", state.value),
        ]
        if let pkce {
            parameters += [("code_challenge", pkce.challenge), ("code_challenge_method", PKCE.method)]
        }
        if let nonce { parameters.append(("nonce", nonce.value)) }

        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw FlowError(.invalidURL, "the authorization endpoint of `\(provider.id)` is not a valid URL")
        }
        let names = Set(parameters.map(\.0))
        let kept = (components.queryItems ?? []).filter { !names.contains($0.name) }
        components.queryItems = kept + parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves `+` unescaped in queries, which servers read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else {
            throw FlowError(.invalidURL, "cannot build the authorization URL of `\(provider.id)`")
        }
        return PendingAuthorization(
            url: url, providerID: provider.id, state: state, pkce: pkce, nonce: nonce,
            redirectURI: client.redirectURI, scopes: scopes, createdAt: now)
    }
}

/// Which redirect URIs a native client may use (RFC 8252 §7, RFC 9700 §2.1).
enum RedirectPolicy {
    static func check(_ uri: URL) throws {
        guard let components = URLComponents(url: uri, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased() else {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` has no scheme")
        }
        if components.fragment != nil {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` must not have a fragment (RFC 6749 §3.1.2)")
        }
        if scheme == "http", !Loopback.isLoopbackHost(components.host ?? "") {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` uses plain http to a host that is not loopback")
        }
    }
}
