#if NIO
import Foundation
import OAuthFlow

extension OAuth {
    /// What happens, in order, while ``signIn(to:account:browser:route:port:timeout:requestOfflineAccess:authorizationDetails:grantManagement:stepUp:events:)``
    /// or ``usableSession(_:account:variables:browser:route:events:)`` runs, for a host to show.
    public enum SignInEvent: Sendable {
        /// The stored session cannot be used any more (signed out by the server, or removed); a sign-in follows.
        case sessionUnusable(SessionError)
        /// A sign-in starts: with this provider, by this route, with these client settings (their
        /// `ClientSettings.notes` and `ClientSettings.secretSource` are for the user to see).
        case signingIn(provider: Provider, route: SignInRoute, settings: ClientSettings)
        /// A step of the sign-in through the browser.
        case browser(LoopbackSignIn.Event)
        /// A step of the sign-in with a device code.
        case device(DeviceSignIn.Event)
    }

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
    ///   - route: Nil chooses the browser, or a device code where `OAuth.Configuration.environmentVariables` say no
    ///     browser can open here and the provider takes the device grant.
    ///   - port: A fixed loopback port instead of the descriptor's choice.
    ///   - timeout: How long the browser route waits for the browser to come back (300 s by default).
    ///   - requestOfflineAccess: Whether to ask for a refresh token (the descriptor's `offline` scopes and parameters).
    ///   - authorizationDetails: Rich authorization request details (RFC 9396) to ask for instead of the client
    ///     settings' (`ClientSettings.authorizationDetails`); empty keeps those.
    ///   - grantManagement: What to ask of the grant (FAPI Grant Management), `.create` or `.merge(grantID:)`; nil
    ///     keeps the client settings' (`ClientSettings.grantManagement`).
    ///   - stepUp: What an API's step-up challenge asked for (`ProtectedResource.StepUp(challenges:)`, RFC 9470);
    ///     the new ID token's `acr` and `auth_time` must meet it, and the descriptor's `authorization.acr_values` and
    ///     `max_age`, which stay in force: a step-up can only add to them.
    ///   - events: Receives what happens, in order: the route, then the sign-in's own steps.
    /// - Returns: The stored session, with the ID token's verified claims and the profile.
    /// - Throws: `ClientSettingsError` without a client, `ProviderError`, and what ``LoopbackSignIn`` and
    ///   `DeviceSignIn` throw.
    @discardableResult
    public func signIn(
        to name: String, account: String = "default", browser: any BrowserOpener, route: SignInRoute? = nil, port: Int? = nil,
        timeout: Duration = .seconds(300), requestOfflineAccess: Bool = true, authorizationDetails: [AuthorizationDetail] = [],
        grantManagement: ManagedGrant.Action? = nil, stepUp: ProtectedResource.StepUp? = nil,
        events: @escaping @Sendable (SignInEvent) -> Void = { _ in }
    ) async throws -> SignInResult {
        var settings = try clientSettings(for: name)
        if !authorizationDetails.isEmpty { settings.authorizationDetails = authorizationDetails }
        if let grantManagement { settings.grantManagement = grantManagement }
        stepUp?.apply(acrValues: &settings.acrValues, maximumAuthenticationAge: &settings.maximumAuthenticationAge)
        let provider = try resolve(name, variables: settings.variables)
        let result = try await signIn(
            to: provider, settings: settings, account: account, route: route ?? automaticRoute(for: provider), port: port,
            timeout: timeout, requestOfflineAccess: requestOfflineAccess, browser: browser, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }

    /// A sign-in by `route` with a resolved provider and its settings, storing the session in ``OAuth/store``; its
    /// client shares this `OAuth`'s discovery cache for the provider.
    func signIn(
        to provider: Provider, settings: ClientSettings, account: String, route: SignInRoute, port: Int?, timeout: Duration,
        requestOfflineAccess: Bool, browser: any BrowserOpener, events: @escaping @Sendable (SignInEvent) -> Void
    ) async throws -> SignInResult {
        events(.signingIn(provider: provider, route: route, settings: settings))
        switch route {
        case .deviceCode:
            var device = DeviceSignIn(store: store, environment: environment)
            device.discovery = discovery(for: provider.id)
            return try await device.signIn(
                to: provider, settings: settings, requestOfflineAccess: requestOfflineAccess, account: account
            ) { events(.device($0)) }
        case .browser:
            return try await LoopbackSignIn(oauth: self, browser: browser).signIn(
                to: provider, settings: settings, requestOfflineAccess: requestOfflineAccess, account: account, port: port, timeout: timeout
            ) { events(.browser($0)) }
        }
    }

    /// The browser, unless the host's variables say no browser can open here: with none handed in, the host's
    /// `browser` is trusted to show the page.
    func automaticRoute(for provider: Provider) -> SignInRoute {
        configuration.environmentVariables.isEmpty ? .browser : .automatic(for: provider, environment: configuration.environmentVariables)
    }

    /// Signs a user out and, with ``LoopbackSignOut/ProviderSessionEnding/endInBrowser``, ends the provider's session
    /// in the browser too, waiting on a loopback address for the provider to send it back.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - providerSession: Whether and how the provider's session ends too.
    ///   - browser: Opens the end-session URL.
    ///   - port: A fixed loopback port for the provider to send the browser back to; an ephemeral one by default.
    ///   - timeout: How long to wait for the browser to come back (120 s by default).
    ///   - events: Receives what happens, in order.
    /// - Throws: What ``LoopbackSignOut/signOut(_:provider:providerSession:port:timeout:events:)`` throws.
    @discardableResult
    public func signOut(
        _ name: String, account: String = "default", providerSession: LoopbackSignOut.ProviderSessionEnding, browser: any BrowserOpener,
        port: Int? = nil, timeout: Duration = .seconds(120), events: @escaping @Sendable (LoopbackSignOut.Event) -> Void = { _ in }
    ) async throws -> LoopbackSignOut.Result {
        let manager = try await session(name, account: account)
        let result = try await LoopbackSignOut(browser: browser).signOut(
            manager, provider: manager.provider, providerSession: providerSession, port: port, timeout: timeout, events: events)
        forget(SessionKey(providerID: name, account: account))
        return result
    }
}
#endif
