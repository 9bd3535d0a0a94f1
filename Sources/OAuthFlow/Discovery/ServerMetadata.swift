import Foundation
import Logging

/// An authorization server's metadata (OpenID Connect Discovery 1.0, RFC 8414).
package struct ServerMetadata: Sendable, Hashable, Codable {
    public var issuer: String
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    public var userinfoEndpoint: URL?
    public var jwksURI: URL?
    public var revocationEndpoint: URL?
    public var introspectionEndpoint: URL?
    public var endSessionEndpoint: URL?
    public var deviceAuthorizationEndpoint: URL?
    public var codeChallengeMethodsSupported: [String]?
    public var tokenEndpointAuthMethodsSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    public var authorizationResponseIssParameterSupported: Bool?
    /// `scopes_supported`: scopes the server accepts (RECOMMENDED only, so often incomplete).
    public var scopesSupported: [String]?
    /// `grant_types_supported`; when absent, RFC 8414 §2 reads it as `authorization_code` and `implicit`.
    public var grantTypesSupported: [String]?
    /// `mtls_endpoint_aliases` (RFC 8705 §5): endpoints to use with a client certificate. Kept as it came, so
    /// that an odd value here cannot make the whole document unreadable; ``mtlsAlias(_:)`` reads it.
    public var mtlsEndpointAliases: JSONValue?
    /// `token_endpoint_auth_signing_alg_values_supported`: what client assertions may be signed with.
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    /// `pushed_authorization_request_endpoint` (RFC 9126 §5).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `require_pushed_authorization_requests` (RFC 9126 §5).
    public var requirePushedAuthorizationRequests: Bool?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `request_object_signing_alg_values_supported` (RFC 9101 §10.5, OpenID Connect Discovery §3).
    public var requestObjectSigningAlgValuesSupported: [String]?
    /// `require_signed_request_object` (RFC 9101 §10.5): unsigned authorization requests are refused.
    public var requireSignedRequestObject: Bool?
    /// `backchannel_logout_supported` and `backchannel_logout_session_supported` (Back-Channel Logout 1.0 §2.1).
    public var backchannelLogoutSupported: Bool?
    public var backchannelLogoutSessionSupported: Bool?
    /// `frontchannel_logout_supported` and `frontchannel_logout_session_supported` (Front-Channel Logout 1.0 §3).
    public var frontchannelLogoutSupported: Bool?
    public var frontchannelLogoutSessionSupported: Bool?
    /// `authorization_details_types_supported` (RFC 9396 §10).
    public var authorizationDetailsTypesSupported: [String]?
    /// `grant_management_endpoint`, `grant_management_actions_supported` and `grant_management_action_required` (FAPI
    /// Grant Management for OAuth 2.0 §4.1).
    public var grantManagementEndpoint: URL?
    public var grantManagementActionsSupported: [String]?
    public var grantManagementActionRequired: Bool?

    /// The mutual-TLS alias of the endpoint named `name` (`token_endpoint`, say), when the document gives one as a string.
    public func mtlsAlias(_ name: String) -> URL? {
        guard case let .object(aliases)? = mtlsEndpointAliases, let text = aliases[name]?.stringValue else { return nil }
        return URL(string: text)
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case scopesSupported = "scopes_supported", grantTypesSupported = "grant_types_supported"
        case mtlsEndpointAliases = "mtls_endpoint_aliases"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case requestObjectSigningAlgValuesSupported = "request_object_signing_alg_values_supported"
        case requireSignedRequestObject = "require_signed_request_object"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case frontchannelLogoutSupported = "frontchannel_logout_supported"
        case frontchannelLogoutSessionSupported = "frontchannel_logout_session_supported"
        case authorizationDetailsTypesSupported = "authorization_details_types_supported"
        case grantManagementEndpoint = "grant_management_endpoint"
        case grantManagementActionsSupported = "grant_management_actions_supported"
        case grantManagementActionRequired = "grant_management_action_required"
    }
}
