import Foundation
import OAuthFlow

/// Shows the provider's sign-in page and hands back the URL the provider sent the browser to: what an app's sign-in
/// (``AppSignIn``) needs of `ASWebAuthenticationSession`.
///
/// `SystemWebAuthenticator` is `ASWebAuthenticationSession` on iOS, macOS and visionOS; a test plays the user
/// instead (`OAuthFlowTesting`'s `SimulatedProvider.approve(_:subject:)`, Docs/apple.md). The name is not
/// `WebAuthenticationSession`, which SwiftUI's environment value already takes in AuthenticationServices.
///
/// ```swift
/// struct ScriptedUser: WebAuthenticator {
///     let provider: SimulatedProvider
///     func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
///         try await provider.approve(url)
///     }
/// }
/// ```
public protocol WebAuthenticator: Sendable {
    /// Opens `url` and returns the first URL the browser is sent to that matches `redirectURI`: its private-use
    /// scheme (RFC 8252 §7.1), or for an https redirect its host and path (§7.2).
    ///
    /// - Parameters:
    ///   - url: The authorization URL (https).
    ///   - redirectURI: Where the provider sends the browser back.
    ///   - prefersEphemeral: Whether to share no cookies with the user's browser (no single sign-on, no saved login).
    /// - Returns: The callback URL, with its query as the provider sent it.
    /// - Throws: `FlowError` `cancelled` when the user closed the sheet or declined to open it; `CancellationError`
    ///   when the task was cancelled.
    func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL
}

extension FlowError {
    /// An app's sign-in cannot go on as set up: a redirect the session cannot wait for, a sheet that cannot show.
    static func appSignIn(_ message: String) -> FlowError {
        FlowError(.invalidRedirectURI, message)
    }
}
