import Crypto
import Foundation

/// The claims of a validated ID token.
public struct IDTokenClaims: Sendable, Hashable {
    public let issuer: String
    public let subject: String
    public let audiences: [String]
    public let expiresAt: Date
    public let issuedAt: Date
    public let nonce: String?
    public let authorizedParty: String?
    /// Every claim, as it came.
    public let all: [String: JSONValue]
}
