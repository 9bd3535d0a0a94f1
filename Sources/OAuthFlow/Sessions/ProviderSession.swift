import Foundation

/// The provider's side of a session: who signed in, and the provider's session id (`sid`), as the
/// verified ID token stated them. Logout tokens and front-channel logout requests name sessions so.
public struct ProviderSession: Sendable, Hashable, Codable {
    /// The ID token's `iss`.
    public var issuer: String
    /// The ID token's `sub`.
    public var subject: String
    /// The ID token's `sid` (Front-Channel and Back-Channel Logout 1.0), when the provider sends one.
    public var sessionID: String?
    /// When the user signed in, as the sign-in's ID token says (`auth_time`, else `iat`): a security event about the
    /// user from before then does not end this session. Nil in sessions stored before OAuthFlow kept it.
    public var signedInAt: Date?

    enum CodingKeys: String, CodingKey {
        case issuer, subject, sessionID = "sid", signedInAt
    }

    public init(issuer: String, subject: String, sessionID: String? = nil, signedInAt: Date? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.sessionID = sessionID
        self.signedInAt = signedInAt
    }

    /// The provider session a verified ID token names.
    public init(_ idToken: IDTokenClaims) {
        let time = (idToken.all["auth_time"] ?? idToken.all["iat"])?.numericDate
        self.init(
            issuer: idToken.issuer, subject: idToken.subject, sessionID: idToken.all["sid"]?.stringValue,
            signedInAt: time.map(Date.init(timeIntervalSince1970:)))
    }

    /// Whether the user signed in after `moment` (nil: never): such a session outlives what happened at that moment.
    package func signedIn(after moment: Date?) -> Bool {
        guard let moment, let signedInAt else { return false }
        return signedInAt > moment
    }
}
