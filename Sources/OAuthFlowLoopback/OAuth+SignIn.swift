import Foundation
import OAuthFlow

extension OAuth {
    /// Signs a user in to a provider by name and stores the session: through the browser and a loopback
    /// redirect (RFC 8252, PKCE, `state`, `nonce`, every ID token check), or, where no browser can open here
    /// and the provider declares the grant, with a device code (RFC 8628).
    ///
    /// ```swift
    /// let result = try await oauth.signIn(to: "google", browser: SystemBrowser(environment: ProcessInfo.processInfo.environment))
    /// print("signed in:", result.idToken?.subject ?? "(plain OAuth)")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name, for several sessions with one provider.
    ///   - browser: Opens the authorization URL.
    ///   - route: Nil chooses the browser, unless the host handed in `OAuth.Configuration.environmentVariables` and they
    ///     say none can open here (SSH, no display, no browser command) and the provider takes the device grant.
    ///   - port: A fixed loopback port instead of the descriptor's choice.
    ///   - timeout: How long the browser route waits for the browser to come back (300 s by default); it bounds only
    ///     that wait, as the token exchange after the callback has the transport's own deadline.
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - authorizationDetails: Rich authorization request details (RFC 9396) to ask for, in place of the client
    ///     settings' (`ClientSettings.authorizationDetails`); empty keeps those. The tokens' grant is in
    ///     `TokenSet.authorizationDetails`.
    ///   - grantManagement: What to ask of the grant (FAPI Grant Management): `.create`, or `.merge(grantID:)` into the
    ///     grant an earlier session holds (`TokenSet.grantID`); nil keeps the client settings' (`ClientSettings.grantManagement`).
    ///   - events: Receives what happens, in order: the route, then the sign-in's own steps.
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: `ClientSettingsError` without a client, `ProviderError`, and what ``LoopbackSignIn`` and
    ///   `DeviceSignIn` throw.
    @discardableResult
    public func signIn(
        to name: String, account: String = "default", browser: any BrowserOpener, route: SignInRoute? = nil, port: Int? = nil,
        timeout: Duration = .seconds(300), requestOfflineAccess: Bool = true, authorizationDetails: [AuthorizationDetail] = [],
        grantManagement: GrantManagementAction? = nil, events: @escaping @Sendable (SessionAccess.Event) -> Void = { _ in }
    ) async throws -> SignInResult {
        var settings = try clientSettings(for: name)
        if !authorizationDetails.isEmpty { settings.authorizationDetails = authorizationDetails }
        if let grantManagement { settings.grantManagement = grantManagement }
        let provider = try provider(name)
        let result = try await SessionAccess.signIn(
            to: provider, settings: settings, account: account,
            route: route ?? automaticRoute(for: provider), port: port, timeout: timeout,
            requestOfflineAccess: requestOfflineAccess, store: store, browser: browser, environment: environment, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }

    /// The browser, unless the host's variables say no browser can open here: with none handed in, the host's
    /// `browser` is trusted to show the page.
    private func automaticRoute(for provider: Provider) -> SignInRoute {
        configuration.environmentVariables.isEmpty ? .browser : .automatic(for: provider, environment: configuration.environmentVariables)
    }

    /// Signs a user out and, with ``LoopbackSignOut/ProviderSessionEnding/endInBrowser``, ends the provider's session
    /// in the browser too, waiting on a loopback address for the provider to send it back.
    ///
    /// - Throws: What ``LoopbackSignOut/signOut(_:provider:providerSession:port:timeout:events:)`` throws.
    @discardableResult
    public func signOut(
        _ name: String, account: String = "default", providerSession: LoopbackSignOut.ProviderSessionEnding, browser: any BrowserOpener,
        events: @escaping @Sendable (LoopbackSignOut.Event) -> Void = { _ in }
    ) async throws -> LoopbackSignOut.Result {
        let manager = try await session(name, account: account)
        let result = try await LoopbackSignOut(browser: browser).signOut(
            manager, provider: manager.provider, providerSession: providerSession, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }
}
