import Foundation
import OAuthFlow

extension AppleIDSignIn {
    /// The sheet answered, and its answer did not verify on this device: no network for Apple's keys right after the
    /// sheet, a device clock minutes off, an identity token that is missing or fails a check.
    ///
    /// Apple gives the name and e-mail once, on the first authorization, and to this device only: keep ``fullName``
    /// and ``email`` now, on the device, under ``credential``'s `user` (unverified until the server or a later
    /// `AppleIDSignIn.verify(_:of:)` verifies it), whatever else the app does with the failure. Then call
    /// `verify(error.credential, of: error.request)` again once the network is back, or send the identity token, the
    /// code and ``AppleIDSignIn/Request/nonce`` to the app's server, which verifies them itself
    /// (`OAuth.redeemPlatformCode`).
    public struct UnverifiedCredential: Error, Sendable, CustomStringConvertible {
        /// What the sheet handed back, unverified (its tokens are `Secret`s).
        public let credential: AppleIDCredential
        /// The request it answers: its nonce is what the identity token must carry.
        public let request: Request
        /// Why it did not verify: an `IDTokenError`, a `TransportError`, a `FlowError`.
        public let reason: any Error

        /// The name the user shared, on the first authorization only: keep it now.
        public var fullName: PersonNameComponents? { credential.fullName }
        /// The e-mail address the user shared, on the first authorization only: keep it now.
        public var email: String? { credential.email }

        public var description: String {
            "Sign in with Apple's answer did not verify on this device (\(reason)); keep the name and e-mail it carries and verify it again, or on the server"
        }
    }
}
