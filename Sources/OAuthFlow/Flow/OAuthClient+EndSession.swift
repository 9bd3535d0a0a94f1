import Foundation

/// Ending the user's session at the provider (OpenID Connect RP-Initiated Logout 1.0, or the provider's own logout URL).
extension OAuthClient {
    /// The provider's end-session endpoint, from the descriptor or the discovery document; nil when it has none.
    public func endSessionEndpoint() async throws -> URL? {
        switch provider.endSessionSource {
        case .descriptor: return provider.endpoints.endSession
        case .discovery: return try await discoveredProvider().endpoints.endSession
        case .none: return nil
        }
    }

    /// Builds the request that ends the user's session at the provider (RP-Initiated Logout 1.0, or the descriptor's
    /// `custom` logout style).
    ///
    /// - Parameters:
    ///   - idToken: The session's ID token, so that the provider ends that session without asking who.
    ///   - postLogoutRedirectURI: Where the browser comes back; it must be registered at the provider.
    ///   - logoutHint: A hint about the user signing out, sent as `logout_hint` (RP-Initiated Logout 1.0 §2).
    ///   - uiLocales: The languages the provider's logout page should use, most preferred first (`ui_locales`).
    /// - Throws: ``FlowError`` `noEndSessionEndpoint` when the provider has none, `insecureEndpoint` for one
    ///   over plain http to another machine (the URL carries the ID token).
    public func endSessionRequest(
        idToken: Secret?, postLogoutRedirectURI: URL?, logoutHint: String? = nil, uiLocales: [String] = []
    ) async throws -> OAuthClient.EndSessionRequest {
        guard let endpoint = try await endSessionEndpoint() else {
            throw FlowError(
                .noEndSessionEndpoint,
                "\(provider.displayName) has no end-session endpoint (none in its descriptor's `endpoints.end_session` or its discovery document): signed out here only"
            )
        }
        try FlowError.requireSecure(endpoint)
        let policy = provider.policy.logout
        var parameters: [(String, String)] = []
        if policy.sendsIDTokenHint, let idToken { parameters.append(("id_token_hint", idToken.value)) }
        if let name = policy.clientIDParameter { parameters.append((name, configuration.clientID)) }
        var state: Secret?
        if let postLogoutRedirectURI {
            parameters.append((policy.redirectParameter, postLogoutRedirectURI.absoluteString))
            if policy.returnsState {
                let fresh = Secret(Base64URL.random(bytes: 32))
                parameters.append(("state", fresh.value))
                state = fresh
            }
        }
        if let logoutHint, !logoutHint.isEmpty { parameters.append(("logout_hint", logoutHint)) }
        if !uiLocales.isEmpty { parameters.append(("ui_locales", uiLocales.joined(separator: " "))) }
        let named = Set(parameters.map(\.0))
        parameters += policy.parameters.sorted { $0.key < $1.key }.filter { !named.contains($0.key) }.map { ($0.key, $0.value) }
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw FlowError(.invalidURL, "the end-session endpoint \(endpoint) does not parse")
        }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + FormEncoding.encode(parameters)
        guard let url = components.url else {
            throw FlowError(.invalidURL, "the end-session request for \(endpoint) does not form a URL")
        }
        return OAuthClient.EndSessionRequest(url: url, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
    }
}
