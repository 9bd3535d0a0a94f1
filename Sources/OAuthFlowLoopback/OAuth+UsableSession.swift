#if NIO
import Foundation
import OAuthFlow

extension OAuth {
    /// A session whose access token is valid, in one call: the stored one while it is valid, else refreshed, else
    /// a new sign-in through the browser (or, where no browser can open and the provider declares the grant, with a
    /// device code).
    ///
    /// ```swift
    /// let oauth = OAuth(.commandLine(environment: ProcessInfo.processInfo.environment))
    /// let session = try await oauth.usableSession("google", browser: NoBrowser()) { event in
    ///     if case let .browser(.openURL(url)) = event { print("Sign in at", url) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - variables: Provider variables, over the client settings': a sign-in uses them, and a stored session signed in
    ///     with other values of them is refused (`session_mismatch`), since its tokens are another tenant's or server's.
    ///   - browser: Opens the authorization URL, for a sign-in.
    ///   - route: How a sign-in reaches the user; nil chooses as `signIn(to:browser:)` does.
    ///   - events: Receives what happens, in order; nothing when the stored session is valid.
    /// - Returns: The session, as stored.
    /// - Throws: `ClientSettingsError` (no client id configured, a secret variable unset), `ProviderError`,
    ///   `SessionError` (other than a signed-out session: `session_mismatch` for a session issued elsewhere), and what
    ///   the sign-in throws.
    public func usableSession(
        _ name: String, account: String = "default", variables: [String: String] = [:], browser: any BrowserOpener,
        route: SignInRoute? = nil, events: @escaping @Sendable (SignInEvent) -> Void = { _ in }
    ) async throws -> StoredSession {
        let key = SessionKey(providerID: name, account: account)
        // The one gate: a session another authorization server issued, another client holds, or that was signed in with
        // other values of the variables meant here, is refused here.
        if let valid = try await storedSession(name, account: account, meaning: variables) {
            return valid
        }
        if try await store.load(key) != nil {
            do {
                let manager = try await session(name, account: account)
                try requireMeant(try await manager.session(), variables: variables)
                _ = try await manager.validAccessToken()
                let refreshed = try await manager.session()
                try requireMeant(refreshed, variables: variables)
                return refreshed
            } catch let error as SessionError where error.code == .signedOut || error.code == .notSignedIn {
                events(.sessionUnusable(error))
            }
        }
        let settings = try clientSettings(for: name).overriding(variables: variables, provider: name)
        for note in settings.notes where !note.isEmpty { environment.logger.notice("\(note)", metadata: ["provider": "\(name)"]) }
        let provider = try resolve(name, variables: settings.variables)
        let result = try await signIn(
            to: provider, settings: settings, account: account, route: route ?? automaticRoute(for: provider), port: nil,
            timeout: .seconds(300), requestOfflineAccess: true, browser: browser, events: events)
        forget(key)
        return result.session
    }

    /// Like ``usableSession(_:account:variables:browser:route:events:)``, for a tool that sends the access token as a
    /// Bearer token itself (git, kubectl): a provider whose descriptor says `security.dpop: required` is refused before
    /// any sign-in, and a DPoP- or certificate-bound session after it.
    ///
    /// - Parameters:
    ///   - name: The provider.
    ///   - account: The session's account name.
    ///   - variables: Provider variables, over the client settings', as for ``usableSession(_:account:variables:browser:route:events:)``.
    ///   - tool: The tool's name, for the message (`git`).
    ///   - browser: Opens the authorization URL, for a sign-in.
    ///   - events: Receives what happens, in order; nothing when the stored session is valid.
    /// - Throws: `FlowError` `dpop` as above, `certificateBinding` for a session bound to the client certificate
    ///   (RFC 8705), and what ``usableSession(_:account:variables:browser:route:events:)`` throws.
    public func bearerSession(
        _ name: String, account: String = "default", variables: [String: String] = [:], tool: String, browser: any BrowserOpener,
        events: @escaping @Sendable (SignInEvent) -> Void = { _ in }
    ) async throws -> StoredSession {
        let refusal =
            "its tokens are DPoP-bound (RFC 9449): they work only with a proof signed by the session's key, which \(tool) cannot send. \(tool) needs a provider that issues Bearer tokens (a descriptor with `security.dpop: never`, where the server allows it); for requests to APIs use `oauthflow call`"
        let key = SessionKey(providerID: name, account: account)
        let stored = try await store.load(key)
        let known = (try? clientSettings(for: name))?.variables ?? [:]
        let signInVariables = stored?.variables ?? known.merging(variables) { _, given in given }
        if let provider = try? resolve(name, variables: signInVariables), provider.policy.dpop.use == .required {
            throw FlowError.dpopRefused("provider `\(name)` requires DPoP (`security.dpop: required`): \(refusal)")
        }
        let session = try await usableSession(name, account: account, variables: variables, browser: browser, events: events)
        guard !session.tokens.isDPoPBound else { throw FlowError.dpopRefused("the session \(key) cannot be handed to \(tool): \(refusal)") }
        guard !session.tokens.isCertificateBound else {
            throw FlowError.certificateBindingRefused(
                "the session \(key) cannot be handed to \(tool): its tokens are bound to the client certificate (RFC 8705), which \(tool) does not present; for requests to APIs use `oauthflow call`"
            )
        }
        return session
    }
}
#endif
