#if NIO
import Foundation
import OAuthFlow

/// What discovery found for an MCP server and what a sign-in would do (``MCPAuthorization/inspect(_:)``, printed by
/// `oauthflow mcp inspect`): nothing in it is a secret.
public struct MCPServerInspection: Sendable, Encodable {
    /// The MCP server's canonical URI: the resource its tokens are asked for.
    public let server: URL
    /// The Bearer challenge of the server's 401 to an unauthenticated request; nil when it answered otherwise.
    public let challenge: Challenge?
    /// Where the protected-resource metadata (RFC 9728) was read.
    public let resourceMetadata: URL
    /// Its `resource`, as written: the `resource` sent (RFC 8707).
    public let resource: String
    /// Its `authorization_servers`, in order.
    public let authorizationServers: [URL]
    /// Its `scopes_supported`.
    public let scopesSupported: [String]?
    /// The authorization server signed in at: the first the host has a client for, else the first listed.
    public let issuer: URL
    /// Where its metadata (RFC 8414 or OpenID Connect Discovery) was read.
    public let authorizationServerMetadata: URL
    /// The id of the pinned provider that names the issuer; nil when the provider is drafted from the metadata (as
    /// `oauthflow providers add` drafts one, lint-clean).
    public let pinnedProvider: String?
    /// How a client would be had there.
    public let registration: Registration
    /// The loopback redirect URI a sign-in registers and listens at (its port, when the configuration fixes none, is
    /// chosen at sign-in).
    public let redirectURI: URL
    /// The scopes a sign-in would ask for: the challenge's `scope`, else `scopes_supported`, else none.
    public let scopes: [String]
    /// Whether the authorization request is pushed (RFC 9126): the server has the endpoint and no pin says `never`.
    public let pushedAuthorizationRequests: Bool
    /// Whether the server requires pushed requests.
    public let requiresPushedAuthorizationRequests: Bool
    /// The DPoP algorithms the server offers (RFC 9449): used by a transport that carries proofs (`MCPAuthorizer.requestModifier`).
    public let dpopAlgorithms: [String]
    /// Where the session is stored.
    public let sessionKey: SessionKey
    /// Whether a session is stored there.
    public let signedIn: Bool
    /// How the tokens would be had: `authorization_code` (a user signs in at the authorization server),
    /// `enterprise_identity_provider` (an ID-JAG from the company's identity provider, presented as a JWT bearer grant)
    /// or `workload_assertion` (the workload's JWT, presented as a JWT bearer grant with no user).
    public internal(set) var grant = "authorization_code"
    /// The enterprise identity provider's id, for `enterprise_identity_provider`.
    public internal(set) var identityProvider: String?
    /// Where the workload's assertion is read, for `workload_assertion`: its file, or "the host's callback".
    public internal(set) var assertionSource: String?
    /// Why presenting an assertion would fail (the server lists no JWT bearer grant, no client for it), when it would.
    public internal(set) var grantProblem: String?

    /// The `resource` (RFC 8707) sent on the authorization request, the token request and every refresh, whether or not
    /// the authorization server says it takes one: the metadata's `resource` when it is the server's canonical URI, else
    /// (root metadata naming the bare origin) the server's canonical URI.
    public internal(set) var resourceSent = ""
    /// Whether `offline_access` would be asked for: only when the authorization server's `scopes_supported` lists it
    /// (MCP authorization 2026-07-28, "Refresh Tokens").
    public internal(set) var offlineAccess = false
    /// How the authorization response's `iss` (RFC 9207) is checked: `required` when the metadata says
    /// `authorization_response_iss_parameter_supported`, else `compared_when_present`; compared exactly either way.
    public internal(set) var issParameter = "compared_when_present"
    /// Whether the server has no protected-resource metadata and its origin stands for its authorization server
    /// (MCP 2025-03-26), `authorization_server_metadata` then naming where the default endpoints were assumed when
    /// `defaultEndpoints`.
    public internal(set) var legacyDiscovery = false
    /// Whether the authorization server has no metadata either and MCP 2025-03-26's default endpoints are used.
    public internal(set) var defaultEndpoints = false

    /// A Bearer challenge (RFC 6750 §3, RFC 9728 §5.1).
    public struct Challenge: Sendable, Encodable {
        /// Its `error`.
        public let error: String?
        /// Its `scope`, split.
        public let scopes: [String]
        /// Its `resource_metadata`.
        public let resourceMetadata: URL?

        enum CodingKeys: String, CodingKey {
            case error, scopes, resourceMetadata = "resource_metadata"
        }
    }

    /// How a client is had at the authorization server, in the MCP spec's order.
    public struct Registration: Sendable, Encodable {
        /// `host_client` (given for the issuer), `registered_before` (kept from a registration),
        /// `client_id_metadata_document`, `dynamic_registration` (RFC 7591, at ``endpoint``), or `none`.
        public let route: String
        /// The `client_id` used, when known before registering.
        public let clientID: String?
        /// The registration endpoint, for `dynamic_registration`.
        public let endpoint: URL?
        /// Why there is no route, for `none`.
        public let problem: String?

        enum CodingKeys: String, CodingKey {
            case route, clientID = "client_id", endpoint, problem
        }
    }

    enum CodingKeys: String, CodingKey {
        case server, challenge, resourceMetadata = "resource_metadata", resource, authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported", issuer, authorizationServerMetadata = "authorization_server_metadata", registration
        case pinnedProvider = "pinned_provider"
        case redirectURI = "redirect_uri", scopes, pushedAuthorizationRequests = "pushed_authorization_requests"
        case requiresPushedAuthorizationRequests = "requires_pushed_authorization_requests", dpopAlgorithms = "dpop_algorithms"
        case sessionKey = "session", signedIn = "signed_in"
        case grant, identityProvider = "identity_provider", assertionSource = "assertion_source", grantProblem = "grant_problem"
        case resourceSent = "resource_sent", offlineAccess = "offline_access", issParameter = "iss_parameter"
        case legacyDiscovery = "legacy_discovery", defaultEndpoints = "default_endpoints"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(challenge, forKey: .challenge)
        try container.encode(resourceMetadata, forKey: .resourceMetadata)
        try container.encode(resource, forKey: .resource)
        try container.encode(authorizationServers, forKey: .authorizationServers)
        try container.encode(scopesSupported, forKey: .scopesSupported)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(authorizationServerMetadata, forKey: .authorizationServerMetadata)
        try container.encode(pinnedProvider, forKey: .pinnedProvider)
        try container.encode(registration, forKey: .registration)
        try container.encode(redirectURI, forKey: .redirectURI)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(pushedAuthorizationRequests, forKey: .pushedAuthorizationRequests)
        try container.encode(requiresPushedAuthorizationRequests, forKey: .requiresPushedAuthorizationRequests)
        try container.encode(dpopAlgorithms, forKey: .dpopAlgorithms)
        try container.encode(["provider": sessionKey.providerID, "account": sessionKey.account], forKey: .sessionKey)
        try container.encode(signedIn, forKey: .signedIn)
        try container.encode(grant, forKey: .grant)
        try container.encodeIfPresent(identityProvider, forKey: .identityProvider)
        try container.encodeIfPresent(assertionSource, forKey: .assertionSource)
        try container.encodeIfPresent(grantProblem, forKey: .grantProblem)
        try container.encode(resourceSent, forKey: .resourceSent)
        try container.encode(offlineAccess, forKey: .offlineAccess)
        try container.encode(issParameter, forKey: .issParameter)
        try container.encode(legacyDiscovery, forKey: .legacyDiscovery)
        try container.encode(defaultEndpoints, forKey: .defaultEndpoints)
    }
}
#endif
