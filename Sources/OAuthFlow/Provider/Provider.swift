import Foundation

/// A provider resolved from its descriptor: variables filled in, every default applied, every policy typed.
///
/// The engine reads only this; the YAML model (``ProviderDescriptor``) stays behind the resolver
/// (``ProviderDescriptor/resolve(_:)``, ``ProviderRegistry/resolve(_:variables:environment:)``).
/// When the descriptor asks for discovery, ``isDiscovered`` says whether the endpoints already hold
/// what the discovery document adds; ``discovered(environment:)`` finishes it, once.
public struct Provider: Sendable, Hashable {
    public let id: String
    public let displayName: String
    public let `protocol`: ProviderProtocol
    /// The variable values used, defaults included.
    public let variables: [String: String]
    public let issuer: URL?
    /// Where the server's metadata is, when the descriptor asks for discovery.
    public let discovery: DiscoveryLocation?
    /// Concrete endpoint URLs: the descriptor's, and after discovery the document's in the gaps.
    public let endpoints: Endpoints
    /// What the engine does for this provider.
    public let policy: Provider.Policy
    /// The loopback redirect a native sign-in listens on.
    public let loopback: Loopback
    /// Where the profile's fields come from.
    package let profile: ProfileMapping
    /// Which `iss` values name this provider.
    package let issuers: IssuerMatcher
    /// Which protected resources the granted scopes open.
    public let resources: ResourceMap
    /// Whether discovery has run, or was not asked for: nothing more will fill ``endpoints``.
    public let isDiscovered: Bool
    /// What the discovery document says the server requires and supports beyond its endpoints.
    public let capabilities: ServerCapabilities
    /// The endpoints the descriptor says the provider does not have (`discovery.lacks`).
    package var lacks: Set<ProviderDescriptor.DiscoveryEndpoint> = []
    /// The servers (origins, RFC 6454) the descriptor itself names for what receives a token or the client's
    /// credentials: its written token, refresh, userinfo, revocation, introspection, end-session, device and
    /// pushed-authorization endpoints, its profile's extra call, its resources (the APIs `call` sends the access token
    /// to) and its explicit discovery document, sorted. A ``StoredSession`` records them
    /// beside ``authorizationServer``; a descriptor that names another server for any of them since gets nothing of
    /// the session. What discovery fills in is vouched for by the issuer, and is not counted.
    package var tokenServers: [String] = []

    /// What a server's discovery document says about pushed requests and DPoP (unknown before discovery).
    public struct ServerCapabilities: Sendable, Hashable {
        /// `require_pushed_authorization_requests` (RFC 9126 §5): plain authorization requests are refused.
        public var requiresPushedAuthorization = false
        /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): nil when the document does not say.
        public var dpopAlgorithms: [String]?
        /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): every authorization response carries `iss`.
        package var sendsIssuerInResponses = false
        /// `code_challenge_methods_supported` (RFC 8414 §2): nil when the document does not say.
        package var codeChallengeMethods: [String]? = nil
        /// `request_object_signing_alg_values_supported` (RFC 9101 §10.5): nil when the document does not say.
        public var requestObjectAlgorithms: [String]? = nil
        /// `require_signed_request_object` (RFC 9101 §10.5): every authorization request must be a signed request object.
        public var requiresSignedRequestObject = false
        /// `authorization_details_types_supported` (RFC 9396 §10): nil when the document does not say.
        public var authorizationDetailsTypes: [String]? = nil
        /// `grant_management_actions_supported` (FAPI Grant Management §4.1): nil when the document does not say.
        package var grantManagementActions: [String]? = nil
        /// `grant_management_action_required` (FAPI Grant Management §4.1): every authorization request names an action.
        package var requiresGrantManagementAction = false

        public init(requiresPushedAuthorization: Bool = false, dpopAlgorithms: [String]? = nil, sendsIssuerInResponses: Bool = false) {
            self.requiresPushedAuthorization = requiresPushedAuthorization
            self.dpopAlgorithms = dpopAlgorithms
            self.sendsIssuerInResponses = sendsIssuerInResponses
        }
    }

    /// Where a provider's metadata is published, and in which form.
    public struct DiscoveryLocation: Sendable, Hashable {
        public let url: URL
        /// OpenID Connect Discovery or RFC 8414; `.none` with an explicit `discovery.url`.
        public let mode: ProviderDescriptor.DiscoveryMode
        /// Whether the URL was given (`discovery.url`) rather than derived from the issuer.
        package let isExplicit: Bool
        /// The endpoints the descriptor records the document as naming none of (`discovery.lacks`).
        public let lacks: [ProviderDescriptor.DiscoveryEndpoint]
    }

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
        /// The pushed authorization request endpoint (RFC 9126).
        public var pushedAuthorization: URL?
        /// The token endpoint's mutual-TLS alias (RFC 8705 §5), from discovery's `mtls_endpoint_aliases`.
        public var mtlsToken: URL?
        /// The revocation endpoint's mutual-TLS alias (RFC 8705 §5): where a request that presents the client certificate goes.
        public var mtlsRevocation: URL? = nil
        /// The introspection endpoint's mutual-TLS alias (RFC 8705 §5).
        public var mtlsIntrospection: URL? = nil
        /// The userinfo endpoint's mutual-TLS alias (RFC 8705 §5), for certificate-bound tokens.
        public var mtlsUserinfo: URL? = nil
        /// The device authorization endpoint's mutual-TLS alias (RFC 8705 §5).
        public var mtlsDeviceAuthorization: URL? = nil
        /// The pushed authorization request endpoint's mutual-TLS alias (RFC 8705 §5).
        public var mtlsPushedAuthorization: URL? = nil
        /// Where refresh requests go when not to the token endpoint (`endpoints.refresh`: Figma, DigitalOcean).
        public var refresh: URL? = nil
        /// The grant management API (FAPI Grant Management §6), from discovery's `grant_management_endpoint`: a grant
        /// is queried and revoked at this URL with `/` and its `grant_id` appended.
        public var grantManagement: URL? = nil
        /// The grant management endpoint's mutual-TLS alias (RFC 8705 §5), for certificate-bound tokens.
        public var mtlsGrantManagement: URL? = nil

        /// Every endpoint that is set, by its YAML key, in the descriptor's order.
        public var all: [(key: String, url: URL)] {
            let urls = [
                authorization, token, userinfo, revocation, introspection, endSession, deviceAuthorization, jwks, pushedAuthorization, refresh,
            ]
            return zip(Self.keys, urls).compactMap { key, url in url.map { (key, $0) } }
        }

        /// Where a request that presents the client certificate goes instead of `endpoint` (RFC 8705 §5): the alias
        /// of the endpoint `endpoint` is, when discovery named one; nil for any other URL.
        public func mutualTLSAlias(of endpoint: URL) -> URL? {
            let pairs: [(URL?, URL?)] = [
                (token, mtlsToken), (revocation, mtlsRevocation), (introspection, mtlsIntrospection), (userinfo, mtlsUserinfo),
                (deviceAuthorization, mtlsDeviceAuthorization), (pushedAuthorization, mtlsPushedAuthorization),
                (grantManagement, mtlsGrantManagement),
            ]
            return pairs.first { $0.0 == endpoint && $0.1 != nil }?.1
        }

        /// Every endpoint's YAML key, in the descriptor's order.
        public static let keys = [
            "authorization", "token", "userinfo", "revocation", "introspection", "end_session", "device_authorization", "jwks",
            "pushed_authorization", "refresh",
        ]
    }

    init(
        id: String, displayName: String, protocol: ProviderProtocol, variables: [String: String], issuer: URL?,
        discovery: DiscoveryLocation?, endpoints: Endpoints, policy: Provider.Policy, loopback: Loopback,
        profile: ProfileMapping, issuers: IssuerMatcher, resources: ResourceMap, isDiscovered: Bool,
        capabilities: ServerCapabilities = ServerCapabilities()
    ) {
        self.id = id
        self.displayName = displayName
        self.protocol = `protocol`
        self.variables = variables
        self.issuer = issuer
        self.discovery = discovery
        self.endpoints = endpoints
        self.policy = policy
        self.loopback = loopback
        self.profile = profile
        self.issuers = issuers
        self.resources = resources
        self.isDiscovered = isDiscovered
        self.capabilities = capabilities
    }

    /// The same provider with other endpoints and capabilities.
    func with(endpoints: Endpoints, capabilities: ServerCapabilities? = nil, discovered: Bool) -> Provider {
        var provider = Provider(
            id: id, displayName: displayName, protocol: `protocol`, variables: variables, issuer: issuer, discovery: discovery,
            endpoints: endpoints, policy: policy, loopback: loopback, profile: profile, issuers: issuers, resources: resources,
            isDiscovered: discovered, capabilities: capabilities ?? self.capabilities)
        provider.lacks = lacks
        provider.tokenServers = tokenServers
        return provider
    }

    /// The origins of this provider's endpoints that receive a token or credentials, of its profile's extra call and
    /// resources, and of `discovery`, sorted and distinct: what ``tokenServers`` holds once resolved.
    func receivingServers(discovery: URL?) -> [String] {
        let receiving =
            [
                endpoints.token, endpoints.refresh, endpoints.userinfo, endpoints.revocation, endpoints.introspection, endpoints.endSession,
                endpoints.deviceAuthorization, endpoints.pushedAuthorization, discovery, profile.extraCall,
            ] + resources.entries.map(\.url)
        return Set(receiving.compactMap { $0.flatMap(Origin.init)?.description }).sorted()
    }

    /// Whether authorization requests are pushed (RFC 9126): when the descriptor says `always`, when
    /// discovery says the server requires it, or (`if_supported`) when the provider has the endpoint.
    public var pushesAuthorizationRequests: Bool {
        if policy.securityProfile?.includesFAPI2Security == true { return true }
        switch policy.pushedAuthorization {
        case .always: return true
        case .ifSupported: return capabilities.requiresPushedAuthorization || endpoints.pushedAuthorization != nil
        case .never: return capabilities.requiresPushedAuthorization
        }
    }

    /// Names the authorization server that issues this provider's tokens, as a ``StoredSession`` records it: the
    /// issuer identifier, else the discovery document's URL, else the token endpoint. Discovery does not change it.
    public var authorizationServer: String? {
        issuer?.absoluteString ?? discovery?.url.absoluteString ?? endpoints.token?.absoluteString
    }

    /// The discovery document's URL, when the descriptor asks for discovery.
    public var discoveryURL: URL? { discovery?.url }

    /// Whether the descriptor asks for discovery (`discovery.mode` other than `none`, or a `discovery.url`).
    public var usesDiscovery: Bool { discovery != nil }

    /// The RFC 9207 rule the authorization response is held to: the descriptor's `iss_parameter`, except that
    /// `if_present` becomes `required` once the server's metadata says it sends `iss` (RFC 9207 §2.4: a
    /// response without it from such a server must be refused), or under FAPI 2.0 (`security.profile`).
    public var issuerParameterRule: ProviderDescriptor.IssuerParameter {
        guard policy.issParameter == .ifPresent else { return policy.issParameter }
        return capabilities.sendsIssuerInResponses || policy.securityProfile?.includesFAPI2Security == true ? .required : .ifPresent
    }

    /// Where an endpoint comes from, as far as the descriptor says.
    public enum EndpointSource: String, Sendable {
        /// The descriptor names it.
        case descriptor
        /// The discovery document may name it.
        case discovery
        /// Nowhere: the provider has none.
        case none
    }

    /// Where the end-session endpoint comes from (``OAuthClient/endSessionEndpoint()`` reads it there).
    public var endSessionSource: EndpointSource {
        endpoints.endSession != nil ? .descriptor : usesDiscovery ? .discovery : .none
    }

    /// Whether the provider speaks OpenID Connect.
    public var isOpenIDConnect: Bool { `protocol` == .oidc }

    /// Whether `iss` names this provider: the issuer, or one of `security.issuer_aliases`.
    public func isIssuer(_ iss: String) -> Bool { issuers.matches(iss) }

    /// Whether an ID token's `iss` names this provider: ``isIssuer(_:)``, or exactly the `security.id_token_issuer`
    /// template filled with the token's own claims, each a plain identifier (letters, digits, `-`, `_`, `.`) so that
    /// a hostile claim cannot bend the URL it builds.
    package func isIDTokenIssuer(_ iss: String, claims: [String: JSONValue]) -> Bool { issuers.matchesIDToken(iss, claims: claims) }

    /// Whether a discovery document's `issuer` names this provider: ``isIssuer(_:)``, or, for a multi-tenant
    /// provider, its template with any placeholder name (Entra's `common` document says
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`).
    public func isDiscoveryIssuer(_ iss: String) -> Bool { issuers.matchesDiscovery(iss) }
}
