extension ProviderDescriptor {
    /// When a request carries the `scope` parameter: the authorization request, the device authorization request,
    /// and token requests that name scopes (a refresh asked for fewer, the client-credentials and other service grants).
    public enum ScopeParameter: String, Sendable, Hashable, Codable, CaseIterable {
        /// When the request asks for at least one scope (RFC 6749 §3.3 makes `scope` optional).
        case whenListed = "when_listed"
        /// On every such request, empty when no scope is asked for (Notion).
        case always
        /// On none: the provider fixes the scopes when the app is registered and refuses the parameter (Bungie, Pipedrive).
        case never
    }
}
