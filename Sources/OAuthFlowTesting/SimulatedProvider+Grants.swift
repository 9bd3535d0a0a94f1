import Foundation
import OAuthFlow

/// What a simulated provider remembers of what it issued.
extension SimulatedProvider {
    /// An authorization request pushed to the PAR endpoint (RFC 9126), until it is used once or expires.
    struct PushedRequest: Sendable {
        let clientID: String
        let parameters: [String: String]
        let expiresAt: Date
        /// The key of the proof the push carried (RFC 9449 §10.1), when it carried one.
        let proofKey: String?
        /// Whether the parameters came from a signed request object (RFC 9101).
        var signed = false
    }

    /// An authorization code and everything its token request is checked against.
    struct CodeGrant: Sendable {
        let clientID: String
        let redirectURI: String
        let codeChallenge: String
        let scopes: [String]
        let nonce: String?
        let subject: String
        let sessionID: String
        let authTime: Date
        /// The authentication context class of that authentication (`acr`), when one is stated.
        var acr: String? = nil
        let expiresAt: Date
        /// `dpop_jkt` of the authorization request: the token request's proof must be made with that key.
        let dpopKey: String?
        /// The family of the tokens it was exchanged for, once it was (a code presented again revokes them).
        var family: String?
        /// The authorization details granted (RFC 9396).
        var authorizationDetails: JSONValue? = nil
    }

    /// A refresh token, one of the family one authorization started.
    struct RefreshGrant: Sendable {
        let clientID: String
        let subject: String
        let sessionID: String
        let scopes: [String]
        let family: String
        let expiresAt: Date
        /// The key a public client's refresh token is bound to (RFC 9449 §5).
        let proofKey: String?
        /// Spent by a rotation: presenting it again is a reuse.
        var spent = false
        var revoked = false
        /// The authorization details of its grant (RFC 9396), which every refresh issues again.
        var authorizationDetails: JSONValue? = nil
    }

    /// An access token.
    struct AccessGrant: Sendable {
        let clientID: String
        /// The user, or nil for a client's own token.
        let subject: String?
        let scopes: [String]
        let audience: [String]
        let issuedAt: Date
        let expiresAt: Date
        /// `cnf.jkt`: the key the token is bound to (RFC 9449 §6).
        let proofKey: String?
        let family: String?
        var revoked = false
        /// The authorization details granted (RFC 9396 §9.2: introspection says them).
        var authorizationDetails: JSONValue? = nil
        /// `cnf.x5t#S256`: the client certificate the token is bound to (RFC 8705 §3).
        var certificate: String? = nil
        /// When and how the user authenticated (`auth_time`, `acr`; RFC 9470 §4 has introspection say them).
        var authentication: (time: Date?, acr: String?) = (nil, nil)
    }

    /// A device authorization (RFC 8628) waiting for the user.
    struct DeviceGrant: Sendable {
        enum Status: Sendable { case pending, approved(subject: String), denied, spent }
        let clientID: String
        let userCode: String
        let scopes: [String]
        let expiresAt: Date
        var interval: TimeInterval
        var lastPoll: Date?
        var polls = 0
        var status = Status.pending
    }
}
