extension ProviderDescriptor {
    /// This descriptor's catalog entry.
    public var catalogEntry: ProviderRegistry.CatalogEntry {
        let refreshCondition = scopes.offline.condition
        let refresh: String
        if !grantTypes.contains(GrantType.refreshToken.rawValue) {
            refresh = "no"
        } else if let scope = scopes.offline.scopes.first {
            refresh = scope
        } else if let (name, value) = scopes.offline.params.sorted(by: { $0.key < $1.key }).first {
            refresh = "\(name)=\(value)"
        } else {
            refresh = refreshCondition == nil ? "yes" : "conditional"
        }
        // RFC 8414 metadata names a revocation endpoint; only OpenID Connect's names an end-session endpoint.
        func availability(_ endpoint: String?, _ member: ProviderDescriptor.DiscoveryEndpoint, condition: String? = nil, metadata: Bool) -> String {
            if endpoint != nil { return "yes" }
            if condition != nil { return "conditional" }
            return metadata && asksForDiscovery && !discovery.lacks.contains(member) ? "not stated" : "no"
        }
        var logoutText = availability(endpoints.endSession, .endSession, condition: logout.condition, metadata: `protocol` == .oidc)
        if logout.backchannelLogoutSupported { logoutText += ", back-channel" }
        let fields = profile.sources.reduce(into: [String]()) { fields, source in
            if !fields.contains(source.field) { fields.append(source.field) }
        }
        var appForms: [String] = []
        if redirect.privateUseScheme != nil { appForms.append("private-use") }
        if redirect.claimedHTTPS != nil { appForms.append("claimed https") }
        let posts = authorization.responseMode == .formPost || authorization.responseMode == .formPostJWT
        let appClient = redirect.webOnly || posts || appForms.isEmpty ? "no" : appForms.joined(separator: ", ")
        return ProviderRegistry.CatalogEntry(
            id: id, displayName: displayName, protocol: `protocol`.rawValue, pkce: security.pkce.rawValue, refresh: refresh,
            refreshCondition: refreshCondition, deviceFlow: grantTypes.contains(GrantType.deviceCode.rawValue),
            revocation: availability(endpoints.revocation, .revocation, condition: revocation.condition, metadata: true),
            revocationCondition: revocation.condition, logout: logoutText,
            logoutCondition: logout.condition, profileFields: fields, appClient: appClient,
            requiredVariables: variables.filter { $0.value.default == nil }.keys.sorted(), docsURL: docsURL)
    }
}
