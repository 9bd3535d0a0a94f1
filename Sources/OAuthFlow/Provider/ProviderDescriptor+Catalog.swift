/// What a person choosing a provider wants to know, read from its descriptor alone (no variables, no network):
/// the columns of `oauthflow providers list` and of Docs/providers.md.
public struct ProviderCatalogEntry: Sendable, Hashable, Codable {
    public var id: String
    public var displayName: String
    public var `protocol`: String
    /// `required`, `supported` or `unsupported`.
    public var pkce: String
    /// How a refresh token is had: `offline_access` (a scope), `access_type=offline` (a parameter), `yes`
    /// (always), or `no`.
    public var refresh: String
    /// The device authorization grant (RFC 8628).
    public var deviceFlow: Bool
    /// Token revocation (RFC 7009): `yes`, `discovery` (when the document names an endpoint) or `no`.
    public var revocation: String
    /// Ending the provider's session: `yes`, `discovery`, or `no`; with back-channel logout when declared.
    public var logout: String
    /// The profile fields the descriptor maps (`subject`, `name`, `email`, `email_verified`, `picture`).
    public var profileFields: [String]
    /// The variables without a default: what `--var` must give.
    public var requiredVariables: [String]
    /// The page the descriptor was written from.
    public var docsURL: String?

    enum CodingKeys: String, CodingKey {
        case id, displayName = "display_name", `protocol`, pkce, refresh, deviceFlow = "device_flow", revocation, logout
        case profileFields = "profile_fields", requiredVariables = "required_variables", docsURL = "docs_url"
    }
}

extension ProviderDescriptor {
    /// This descriptor's catalog entry.
    public var catalogEntry: ProviderCatalogEntry {
        let refresh: String
        if !grantTypes.contains(GrantType.refreshToken.rawValue) {
            refresh = "no"
        } else if let scope = scopes.offline.scopes.first {
            refresh = scope
        } else if let (name, value) = scopes.offline.params.sorted(by: { $0.key < $1.key }).first {
            refresh = "\(name)=\(value)"
        } else {
            refresh = "yes"
        }
        func availability(_ endpoint: String?) -> String {
            endpoint != nil ? "yes" : asksForDiscovery && `protocol` == .oidc ? "discovery" : "no"
        }
        var logoutText = availability(endpoints.endSession)
        if logout.backchannelLogoutSupported { logoutText += ", back-channel" }
        let fields = profile.sources.reduce(into: [String]()) { fields, source in
            if !fields.contains(source.field) { fields.append(source.field) }
        }
        return ProviderCatalogEntry(
            id: id, displayName: displayName, protocol: `protocol`.rawValue, pkce: security.pkce.rawValue, refresh: refresh,
            deviceFlow: grantTypes.contains(GrantType.deviceCode.rawValue), revocation: availability(endpoints.revocation),
            logout: logoutText, profileFields: fields, requiredVariables: variables.filter { $0.value.default == nil }.keys.sorted(),
            docsURL: docsURL)
    }
}
