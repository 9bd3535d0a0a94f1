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

    /// Presents the sheet as ``authorize(scopes:nonce:)`` does, for `user` when one is given: the request's
    /// `ASAuthorizationAppleIDRequest.user`, the identifier the app kept for a user whose credential state is
    /// ``AppleIDCredential/State/transferred``, to migrate them to the app's new team.
    ///
    /// The default passes a request without `user` to ``authorize(scopes:nonce:)``, and refuses one with it
    /// (`FlowError` `invalid_redirect_uri`, nothing shown): an authorizer that can name the user implements this.
    func authorize(scopes: [AppleIDCredential.Scope], nonce: String, user: String?) async throws -> AppleIDCredential

    /// What Apple says of `user`'s authorization of the app (`credentialState(forUserID:)`).
    func credentialState(forUser user: String) async throws -> AppleIDCredential.State
}

extension AppleIDAuthorizer {
    public func authorize(scopes: [AppleIDCredential.Scope], nonce: String, user: String?) async throws -> AppleIDCredential {
        guard user == nil else {
            throw FlowError.appSignIn(
                "this AppleIDAuthorizer cannot ask for a user (ASAuthorizationAppleIDRequest.user): implement authorize(scopes:nonce:user:)")
        }
        return try await authorize(scopes: scopes, nonce: nonce)
    }
}
