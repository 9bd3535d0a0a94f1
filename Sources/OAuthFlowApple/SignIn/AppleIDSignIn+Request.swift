import Foundation
import OAuthFlow

extension AppleIDSignIn {
    /// One Sign in with Apple request as the app makes it: a fresh nonce (32 random bytes), the scopes asked for, and
    /// the user to migrate, if any. The sheet's request carries the nonce's SHA-256 (``hashedNonce``); the identity
    /// token must carry it back.
    public struct Request: Sendable {
        /// What the user is asked to share.
        public let scopes: [AppleIDCredential.Scope]
        /// The user identifier of a transferred user to migrate (`ASAuthorizationAppleIDRequest.user`), or nil.
        public let user: String?
        /// The nonce itself, for the app's server (`OAuth.redeemPlatformCode`); never sent to Apple.
        public let nonce: Secret
        /// The SHA-256 of ``nonce``, lowercase hex: the request's `nonce` and the identity token's.
        public var hashedNonce: String { AppleIDSignIn.hash(nonce).value }

        /// A new request, with a new nonce.
        public init(scopes: [AppleIDCredential.Scope] = [.fullName, .email], user: String? = nil) {
            self.scopes = scopes
            self.user = user
            self.nonce = Secret(Base64URL.random(bytes: 32))
        }
    }
}
