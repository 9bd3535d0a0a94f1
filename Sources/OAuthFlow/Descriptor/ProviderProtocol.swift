/// Plain OAuth 2.0, or OpenID Connect on top of it.
public enum ProviderProtocol: String, Sendable, Hashable, Codable, CaseIterable {
    case oauth2, oidc
}
