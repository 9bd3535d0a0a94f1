import Foundation
import OAuthFlow

extension OAuth {
    /// Signs a user in to a provider by name from an app, and stores the session: the provider's page in
    /// `authenticator` (`SystemWebAuthenticator`, `ASWebAuthenticationSession`), the redirect to the app's
    /// private-use scheme or claimed https link, PKCE, `state`, `nonce` and every ID token check.
    ///
    /// ```swift
    /// let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
    /// print("signed in:", result.idToken?.subject ?? "(plain OAuth)")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name, for several sessions with one provider.
    ///   - authenticator: Shows the provider's page.
    ///   - redirect: Which redirect URI to send; the descriptor's private-use one by default.
    ///   - prefersEphemeral: Share no cookies with the user's browser (`prefersEphemeralWebBrowserSession`).
    ///   - bundleIdentifier: The app's bundle identifier; `Bundle.main`'s by default.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - stepUp: What an API's step-up challenge asked for (`ProtectedResource.StepUp(challenges:)`, RFC 9470);
    ///     the new ID token's `acr` and `auth_time` must meet it.
    ///   - events: Receives what happens, in order.
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: `ClientSettingsError` without a client, `ProviderError`, and what ``AppSignIn`` throws (`FlowError`
    ///   `cancelled` when the user cancelled).
    @discardableResult
    public func signIn(
        to name: String, account: String = "default", authenticator: any WebAuthenticator, redirect: AppSignIn.Redirect = .privateUseScheme,
        prefersEphemeral: Bool = false, bundleIdentifier: String? = Bundle.main.bundleIdentifier, requestOfflineAccess: Bool = true,
        stepUp: ProtectedResource.StepUp? = nil, events: @escaping @Sendable (AppSignIn.Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        var settings = try clientSettings(for: name)
        stepUp?.apply(acrValues: &settings.acrValues, maximumAuthenticationAge: &settings.maximumAuthenticationAge)
        let provider = try provider(name)
        let signIn = AppSignIn(oauth: self, authenticator: authenticator, bundleIdentifier: bundleIdentifier)
        let result = try await signIn.signIn(
            to: provider, settings: settings, redirect: redirect, prefersEphemeral: prefersEphemeral,
            requestOfflineAccess: requestOfflineAccess, account: account, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }
}
