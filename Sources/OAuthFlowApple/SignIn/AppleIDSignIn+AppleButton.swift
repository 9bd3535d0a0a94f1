// Apple's own Sign in with Apple buttons through the library. SwiftUI's `SignInWithAppleButton` makes its own request
// and hands back its own completion: `fill` sets the request as `signIn` would (scopes, the nonce's SHA-256, the user
// to migrate) and `verify` checks the completion as `signIn` does (AppleIDSignIn.verify(_:of:), tested on Linux).
// UIKit's `ASAuthorizationAppleIDButton` is a control: its action calls `signIn()`. Type-checked on Linux against
// Shims/AppleSDK, run only on an Apple platform.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
import OAuthFlow

extension AppleIDSignIn {
    /// Fills the request of Apple's button (SwiftUI's `SignInWithAppleButton`, its `onRequest`) as ``signIn(scopes:user:)``
    /// would: the scopes, a new nonce's SHA-256, and the user to migrate, if any. Keep what it returns for
    /// `verify(_:of:)`.
    ///
    /// ```swift
    /// SignInWithAppleButton(.signIn) { request in
    ///     pending = apple.fill(request)
    /// } onCompletion: { completion in
    ///     Task { await model.finish(try await apple.verify(completion, of: pending)) }
    /// }
    /// ```
    ///
    /// - Returns: The request as made, with its nonce: what the completion is verified against.
    public func fill(_ request: ASAuthorizationAppleIDRequest, scopes: [AppleIDCredential.Scope] = [.fullName, .email], user: String? = nil)
        -> Request
    {
        let made = Request(scopes: scopes, user: user)
        SystemAppleIDAuthorizer.fill(request, scopes: scopes, nonce: made.hashedNonce, user: user)
        return made
    }

    /// Verifies the completion of Apple's button (its `onCompletion`) against the request `fill(_:scopes:user:)` made,
    /// as ``signIn(scopes:user:)`` verifies the sheet's answer.
    ///
    /// - Throws: `FlowError` `cancelled` when the user cancelled; `FlowError` `invalid_redirect_uri` when no request
    ///   was filled (`request` nil: the button's `onRequest` did not call `fill(_:scopes:user:)`) or the completion
    ///   holds no Apple ID credential; the system's error otherwise; ``UnverifiedCredential`` when the credential did
    ///   not verify.
    @MainActor
    public func verify(_ completion: Swift.Result<ASAuthorization, any Error>, of request: Request?) async throws -> Result {
        let credential: AppleIDCredential
        switch completion {
        case .success(let authorization):
            credential = try AppleIDCredential(authorization)
        case .failure(let error):
            throw AppleIDCredential.failure(error)
        }
        guard let request else {
            throw FlowError.appSignIn(
                "Sign in with Apple's button completed a request the library did not fill: call apple.fill(request) in its onRequest and pass what it returns"
            )
        }
        return try await verify(credential, of: request)
    }
}
#endif
