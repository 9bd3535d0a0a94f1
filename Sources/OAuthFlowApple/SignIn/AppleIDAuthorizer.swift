import Foundation
import OAuthFlow

/// Shows the system's Sign in with Apple sheet and asks Apple about a user: the one seam between
/// ``AppleIDSignIn``'s checks, compiled and tested on Linux, and `ASAuthorizationController`
/// (`SystemAppleIDAuthorizer` in an app).
public protocol AppleIDAuthorizer: Sendable {
    /// Presents the sheet asking for `scopes`, with `nonce` as the request's nonce (the SHA-256 of the app's own
    /// nonce, which the identity token carries back).
    ///
    /// - Throws: `FlowError` `cancelled` when the user cancelled; the system's error otherwise.
    func authorize(scopes: [AppleIDCredential.Scope], nonce: String) async throws -> AppleIDCredential

    /// Whether `user` still authorizes the app (`getCredentialState(forUserID:)`).
    func credentialState(forUser user: String) async throws -> AppleIDCredential.State
}
