import Foundation

/// Token type identifiers (RFC 8693 §3).
public enum TokenTypeIdentifier {
    public static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    public static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    public static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    public static let jwt = "urn:ietf:params:oauth:token-type:jwt"
    /// An Identity Assertion JWT Authorization Grant (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant): what an
    /// enterprise identity provider issues for another authorization server's JWT bearer grant.
    public static let idJAG = "urn:ietf:params:oauth:token-type:id-jag"
}
