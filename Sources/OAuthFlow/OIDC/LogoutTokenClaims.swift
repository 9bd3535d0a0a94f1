import Foundation

/// A verified logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): who, or which session, the
/// provider signed out.
package struct LogoutTokenClaims: Sendable, Hashable {
    package let issuer: String
    /// `sub`: every session of this user ends, when no `sid` narrows it.
    package let subject: String?
    /// `sid`: the provider session that ended.
    package let sessionID: String?
    package let audiences: [String]
    package let issuedAt: Date
    /// `exp`, when the provider sets one.
    package let expiresAt: Date?
    /// `jti`, remembered to refuse a replay.
    package let tokenID: String
    /// Every claim, as it came.
    package let all: [String: JSONValue]
}
