import Foundation
import Logging
import OAuthFlow

/// A finished sign-in, handed to the host to decide what a signed-in user is.
public struct WebSignInResult: Sendable {
    public let providerID: String
    public let displayName: String
    /// The verified ID token's claims (OpenID Connect), or nil.
    public let idToken: IDTokenClaims?
    /// What the userinfo endpoint said (checked to be about the ID token's subject), or nil.
    public let userInfo: [String: JSONValue]?
    /// Who signed in, in the one shape every provider maps to (the descriptor's `profile`).
    public let profile: UserProfile
    /// The tokens, for calling the provider's APIs on the user's behalf.
    public let tokens: TokenSet
    /// The resources the granted scopes open.
    public let resources: [Resource]
    /// The same-origin path to send the user to.
    public let returnTo: String
    /// The `Set-Cookie` value that deletes the pending cookie; add it to the response.
    public let clearPendingCookie: String
    /// The stored session, when ``WebSignIn`` has a store: keep this key in the host's own session (it is no
    /// secret: the tokens stay in the store) and pass it to ``WebSignIn/accessToken(for:)`` and
    /// ``WebSignIn/signOut(_:returnTo:)``.
    public let session: SessionKey?
    /// What else the provider put in the callback (`OAuthClient.SignInOutcome.callback`). Sign in with Apple sends
    /// the user's name here (`user`), and only on the first consent: the profile maps it when the descriptor says
    /// so, and a host that wants the name later must store it now, since it will not come again.
    public let callback: [String: JSONValue]

    /// ID token claims, completed by userinfo fields the ID token lacks.
    public var claims: [String: JSONValue] {
        var merged = userInfo ?? [:]
        for (name, value) in idToken?.all ?? [:] { merged[name] = value }
        return merged
    }

    /// The user's stable id at the provider: the profile's subject (by default the ID token's `sub`).
    public var subject: String? { profile.subject ?? idToken?.subject }
}
