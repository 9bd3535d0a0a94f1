import Foundation

/// A provider with its variables filled in: concrete URLs, ready for the engine.
public struct Provider: Sendable, Hashable {
    /// The descriptor this provider was resolved from.
    public let descriptor: ProviderDescriptor
    /// The variable values used, defaults included.
    public let variables: [String: String]
    public let issuer: URL?
    public let discoveryURL: URL?
    public let endpoints: Endpoints
    /// Which protected resources the granted scopes open.
    public let resources: ResourceMap
    /// The profile's extra call (`profile.extra_call.url`), resolved.
    public let profileCall: URL?

    public var id: String { descriptor.id }

    /// Whether `iss` names this provider: the issuer, or one of `security.issuer_aliases`.
    public func isIssuer(_ iss: String) -> Bool {
        guard let issuer else { return false }
        return ConstantTime.equals(iss, issuer.absoluteString) || descriptor.security.issuerAliases.contains { ConstantTime.equals(iss, $0) }
    }

    /// Whether an ID token's `iss` names this provider: ``isIssuer(_:)``, or exactly the
    /// `security.id_token_issuer` template filled with the token's own claims.
    ///
    /// A claim that fills the template must be a plain identifier (letters, digits, `-`,
    /// `_`, `.`), so a hostile claim cannot bend the URL it builds.
    public func isIDTokenIssuer(_ iss: String, claims: [String: JSONValue]) -> Bool {
        if isIssuer(iss) { return true }
        guard let template = descriptor.security.idTokenIssuer else { return false }
        var complete = true
        let expected = URLTemplate(template).rendering { name in
            guard let value = claims[String(name)]?.stringValue, !value.isEmpty,
                  value.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) })
            else {
                complete = false
                return nil
            }
            return value
        }
        return complete && ConstantTime.equals(iss, expected)
    }

    /// Whether a discovery document's `issuer` names this provider: ``isIssuer(_:)``, or,
    /// for a multi-tenant provider, the `id_token_issuer` template with any placeholder
    /// name (Entra's `common` document says `https://login.microsoftonline.com/{tenantid}/v2.0`).
    public func isDiscoveryIssuer(_ iss: String) -> Bool {
        if isIssuer(iss) { return true }
        guard let template = descriptor.security.idTokenIssuer else { return false }
        func shape(_ text: String) -> String { URLTemplate(text).rendering { _ in "{}" } }
        return iss.contains("{") && shape(iss) == shape(template)
    }
    public var displayName: String { descriptor.displayName }

    /// Concrete endpoint URLs.
    public struct Endpoints: Sendable, Hashable {
        public var authorization: URL?
        public var token: URL?
        public var userinfo: URL?
        public var revocation: URL?
        public var introspection: URL?
        public var endSession: URL?
        public var deviceAuthorization: URL?
        public var jwks: URL?
    }

    init(descriptor: ProviderDescriptor, variables: [String: String], issuer: URL?, discoveryURL: URL?,
         endpoints: Endpoints, resources: ResourceMap, profileCall: URL? = nil) {
        self.descriptor = descriptor
        self.profileCall = profileCall
        self.variables = variables
        self.issuer = issuer
        self.discoveryURL = discoveryURL
        self.endpoints = endpoints
        self.resources = resources
    }
}
