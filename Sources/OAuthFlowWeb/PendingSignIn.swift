import Crypto
import Foundation
import OAuthFlow

/// A sign-in between its start and its callback, sealed into a cookie so that any
/// instance behind a load balancer can finish what another started.
///
/// - The cookie's name is derived from the flow's `state` (`oauthflow_flow_` and 16 hex
///   digits of its SHA-256), so flows in several tabs do not overwrite each other and
///   the callback finds its own cookie from the `state` the provider hands back.
/// - Its value is `v1.KEYID.SEALED`: AES-256-GCM (`SessionKeyring`) over the pending
///   authorization (verifier, state, nonce, redirect URI), the provider id, the return
///   path and an expiry, with the cookie's name authenticated alongside. A value
///   edited, cut, sealed with an unknown key or moved to another cookie name does not open.
struct PendingSignIn: Codable, Sendable {
    var pending: PendingAuthorization
    var providerID: String
    var returnTo: String
    var expiresAt: Date

    static func cookieName(forState state: String) -> String {
        SealedCookie.name(prefix: "oauthflow_flow_", state: state)
    }

    func seal(with keyring: SessionKeyring) throws -> (name: String, value: String) {
        let name = Self.cookieName(forState: pending.state.value)
        guard let value = try SealedCookie.seal(self, name: name, purpose: "pending", keyring: keyring) else {
            throw WebSignInError(
                .configuration,
                "the pending sign-in for \(providerID) would need a cookie over \(SealedCookie.maximumLength) bytes (browsers keep 4 KiB); shorten the authorization request's extra parameters"
            )
        }
        return (name, value)
    }

    /// Opens a cookie value sealed under `name`.
    ///
    /// - Throws: ``WebSignInError`` `tampered` when it does not open or decode.
    static func open(_ value: String, name: String, keyring: SessionKeyring) throws -> PendingSignIn {
        try SealedCookie.open(value, name: name, purpose: "pending", keyring: keyring, what: "pending sign-in")
    }
}
