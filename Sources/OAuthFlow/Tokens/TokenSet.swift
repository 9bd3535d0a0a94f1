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

    public init(accessToken: Secret, tokenType: String, expiresAt: Date?, refreshToken: Secret?, idToken: Secret?,
                scopes: [String], issuedAt: Date, additionalFields: [String: JSONValue] = [:]) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scopes = scopes
        self.issuedAt = issuedAt
        self.additionalFields = additionalFields
    }

    /// Whether the access token has expired, or will within `skew`, at `now`.
    public func isExpired(at now: Date = Date(), skew: TimeInterval = 0) -> Bool {
        guard let expiresAt else { return false }
        return now.addingTimeInterval(skew) >= expiresAt
    }
}
