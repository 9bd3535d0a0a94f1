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

    enum CodingKeys: String, CodingKey {
        case issuer, subject, sessionID = "sid"
    }

    public init(issuer: String, subject: String, sessionID: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.sessionID = sessionID
    }

    /// The provider session a verified ID token names.
    public init(_ idToken: IDTokenClaims) {
        self.init(issuer: idToken.issuer, subject: idToken.subject, sessionID: idToken.all["sid"]?.stringValue)
    }
}
