import Foundation

/// The tokens a token endpoint issued, with what the engine knows about them.
///
/// Every token is a ``Secret``, so printing a `TokenSet` never shows one.
public struct TokenSet: Sendable, Hashable, Codable {
    public var accessToken: Secret
    /// The token type, lowercased (`bearer`).
    public var tokenType: String
    /// When the access token expires, if the server said (`expires_in`).
    public var expiresAt: Date?
    public var refreshToken: Secret?
    public var idToken: Secret?
    /// The scopes granted: the response's `scope`, or the requested scopes when it is absent (RFC 6749 §5.1).
    public var scopes: [String]
    /// When the tokens were issued, by the client's clock.
    public var issuedAt: Date
    /// Response fields OAuthFlow does not interpret, kept as they came (secrets excluded).
    public var additionalFields: [String: JSONValue]
    /// The key the tokens are bound to with DPoP (RFC 9449), when they are: every request they go with
    /// carries a proof signed with it. Kept with the tokens, so each store seals it as it seals them.
    public var proofKey: DPoPKey?
    /// Parameters of the authorization callback the provider wants on every refresh (VK ID's `device_id`,
    /// `token_request.callback_params_on_refresh`), kept with the tokens so that they outlive the process. Not
    /// secrets; nil when the descriptor keeps none (and in sessions stored before OAuthFlow kept them).
    public var callbackParameters: [String: String]? = nil
    /// The authorization details the tokens were granted (RFC 9396 §7): the token answer's `authorization_details`,
    /// kept through refreshes whose answers carry none. Nil when no answer named any (and in sessions stored before
    /// OAuthFlow kept them). The server may grant other details than were asked for; an API checks what it needs.
    public var authorizationDetails: [AuthorizationDetail]? = nil
    /// The grant the tokens belong to (FAPI Grant Management §5.3): the token answer's `grant_id`, kept through refreshes
    /// whose answers carry none. A later sign-in merges into or replaces this grant
    /// (``ManagedGrant/Action/merge(grantID:)``), and ``OAuthClient/grant(of:)`` and ``OAuthClient/revokeGrant(of:)``
    /// query and revoke it. Nil when no answer named one (and in sessions stored before OAuthFlow kept it).
    public var grantID: String? = nil

    /// The SHA-256 thumbprint (`x5t#S256`, base64url) of the client certificate the tokens are bound to (RFC 8705 §3),
    /// when they are: they were issued to a request that presented the client's certificate, or the token answer or the
    /// access token says `cnf.x5t#S256`. Every request they go with presents that certificate; the certificate's key
    /// is never kept here (``send(_:environment:clientIdentity:)`` takes it from the client's configuration).
    public var certificateThumbprint: String? = nil

    /// Whether the tokens are DPoP-bound: they work only with a proof from ``proofKey``, never as Bearer tokens.
    public var isDPoPBound: Bool { proofKey != nil }

    /// Whether the tokens are bound to a client certificate (``certificateThumbprint``): they are sent only over
    /// mutual TLS with that certificate, never without it.
    public var isCertificateBound: Bool { certificateThumbprint != nil }

    public init(
        accessToken: Secret, tokenType: String, expiresAt: Date?, refreshToken: Secret?, idToken: Secret?,
        scopes: [String], issuedAt: Date, additionalFields: [String: JSONValue] = [:], proofKey: DPoPKey? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scopes = scopes
        self.issuedAt = issuedAt
        self.additionalFields = additionalFields
        self.proofKey = proofKey
    }

    /// What of this refresh answer may be kept before its ID token is checked: its refresh token
    /// (a rotating server has already spent `previous`'s) on `previous`, whose identity was verified.
    ///
    /// The access token is `previous`'s, marked expired: nothing hands it out, and the next use
    /// refreshes again, checking the ID token it gets then (OpenID Connect Core §12.2).
    public func keepingRefreshToken(of previous: TokenSet) -> TokenSet {
        var kept = previous
        kept.refreshToken = refreshToken ?? previous.refreshToken
        kept.expiresAt = Date(timeIntervalSince1970: 0)
        return kept
    }

    /// Whether the access token has expired, or will within `skew`, at `now`.
    public func isExpired(at now: Date = Date(), skew: TimeInterval = 0) -> Bool {
        guard let expiresAt else { return false }
        return now.addingTimeInterval(skew) >= expiresAt
    }
}
