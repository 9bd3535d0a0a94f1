#if NIO
import Foundation
import OAuthFlow

/// Signing out from a native app or the command line: the session's tokens revoked (RFC 7009) and the
/// session forgotten, and, when asked, the provider's own session ended too (OpenID Connect RP-Initiated
/// Logout 1.0) in the user's browser, with its return to a loopback receiver checked for the `state` sent.
///
/// ```swift
/// let browser = SystemBrowser(environment: ProcessInfo.processInfo.environment)
/// let result = try await LoopbackSignOut(browser: browser).signOut(manager, provider: provider, providerSession: .endInBrowser)
/// ```
public struct LoopbackSignOut: Sendable {
    /// What happens to the provider's session.
    public enum ProviderSessionEnding: Sendable, Hashable {
        /// It stays: only this app's session ends.
        case keep
        /// Ended in the browser, which comes back to `http://127.0.0.1:PORT/logged-out` (register it at the
        /// provider as a post-logout redirect URI). When the provider returns `state`, the return must carry the
        /// one sent; when it returns none (a `custom` logout URL), the first GET to the path ends the wait.
        case endInBrowser
        /// Ended when the user opens ``Result/endSessionURL`` (no return address, so no `state`).
        case printURL
    }

    /// Progress, for a command line or a UI.
    public enum Event: Sendable {
        /// The URL being opened in the browser, as it may be shown: without its `id_token_hint`, since the ID token is
        /// a credential (a Kubernetes one through `credential kubectl`) and what is shown must not carry it
        /// (``LoopbackSignOut/shown(_:)``). Opened as it is, it still ends the session; the provider may ask the user
        /// to confirm.
        case openURL(URL)
        case browserFailed(String)
        /// A request to the receiver that does not carry this sign-out's `state`; still waiting.
        case returnIgnored(String)
    }

    /// What ``LoopbackSignOut/signOut(_:provider:providerSession:port:timeout:events:)`` did.
    public struct Result: Sendable {
        /// Revocation and deletion of the session here.
        public let local: TokenManager.SignOut
        /// Whether the provider sent the browser back from its logout with the state sent (``ProviderSessionEnding/endInBrowser``).
        public let endedAtProvider: Bool
        /// The URL that ends the provider's session (``ProviderSessionEnding/printURL``, or the one opened), without
        /// its `id_token_hint` (``LoopbackSignOut/shown(_:)``): meant to be shown, it carries no token. The provider
        /// then asks the user to confirm, or ends the session of the browser that opens it.
        public let endSessionURL: URL?
    }

    public let browser: any BrowserOpener
    /// The path of the post-logout redirect URI on the loopback receiver.
    public static let returnPath = Provider.Loopback.postLogoutPath

    public init(browser: any BrowserOpener) {
        self.browser = browser
    }

    /// Signs `manager`'s session out.
    ///
    /// - Parameters:
    ///   - manager: The session's token manager: it revokes the tokens and forgets the session.
    ///   - provider: The session's provider, for its loopback redirect settings.
    ///   - providerSession: What happens to the provider's own session.
    ///   - port: The loopback port of the return address; nil for the descriptor's `redirect.loopback.port` when it
    ///     is fixed, else an ephemeral one.
    ///   - timeout: How long to wait for the browser to come back from the provider's logout.
    ///   - events: Receives the URL opened, a browser that failed, and returns that do not carry the `state` sent.
    /// - Throws: What `TokenManager.signOut(endingProviderSession:)` throws (the session was not deleted);
    ///   ``LoopbackError`` `timedOut` when the provider did not send the browser back in time (the session
    ///   here is gone all the same).
    public func signOut(
        _ manager: TokenManager, provider: Provider, providerSession: ProviderSessionEnding, port: Int? = nil, timeout: Duration = .seconds(120),
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> Result {
        switch providerSession {
        case .keep:
            return Result(local: try await manager.signOut(), endedAtProvider: false, endSessionURL: nil)
        case .printURL:
            let local = try await manager.signOut(endingProviderSession: .init())
            return Result(local: local, endedAtProvider: false, endSessionURL: local.endSession.map { Self.shown($0.url) })
        case .endInBrowser:
            let receiver = try await LoopbackReceiver.start(
                host: provider.loopback.host, port: port ?? provider.loopback.fixedPort ?? 0, path: Self.returnPath)
            do {
                let result = try await endInBrowser(manager, receiver: receiver, timeout: timeout, events: events)
                await receiver.close()
                return result
            } catch {
                await receiver.close()
                throw error
            }
        }
    }

    private func endInBrowser(
        _ manager: TokenManager, receiver: LoopbackReceiver, timeout: Duration, events: @escaping @Sendable (Event) -> Void
    ) async throws -> Result {
        let local = try await manager.signOut(endingProviderSession: .init(postLogoutRedirectURI: receiver.redirectURI))
        guard let request = local.endSession else {
            return Result(local: local, endedAtProvider: false, endSessionURL: nil)
        }
        events(.openURL(Self.shown(request.url)))
        do {
            try await browser.open(request.url)
        } catch {
            events(.browserFailed("\(error)"))
        }
        do {
            try await receiver.waitForCallback(timeout: timeout) { returned in
                guard returned.method == "GET", request.acceptsReturn(query: returned.url.query) else {
                    events(.returnIgnored("a request to \(Self.returnPath) without this sign-out's state"))
                    return LoopbackResponse(
                        status: 400,
                        html: LoopbackPages.page(title: "Not this sign-out", message: "This request does not match the sign-out in progress."),
                        finishes: false)
                }
                return LoopbackResponse(
                    status: 200,
                    html: LoopbackPages.page(title: "Signed out", message: "You are signed out. You can close this tab."), finishes: true)
            }
        } catch let error as LoopbackError where error.code == .timedOut {
            throw LoopbackError(code: .timedOut, message: Self.timedOut(local, returnAddress: receiver.redirectURI, timeout: timeout))
        }
        return Result(local: local, endedAtProvider: true, endSessionURL: Self.shown(request.url))
    }

    /// The sign-out that waited in vain: what happened here (the tokens revoked, or deleted and still valid), the return
    /// address the provider must have registered, and what the browser may show.
    private static func timedOut(_ local: TokenManager.SignOut, returnAddress: URL, timeout: Duration) -> String {
        let tokens =
            if !local.revocationAvailable {
                "the tokens were deleted here, but the provider has no revocation endpoint, so they stay valid until they expire"
            } else if local.revocationError != nil {
                "the tokens were deleted here, but revocation failed, so they may stay valid until they expire"
            } else {
                "the tokens were revoked"
            }
        return
            "signed out here (\(tokens)), but the provider did not send the browser back from its logout to \(returnAddress.absoluteString) within \(timeout.components.seconds) s. Look at the browser first: some providers end the session without sending the browser back (they stay on their own page, or show their portal, as LemonLDAP::NG does after a sign-in that ended on its consent page), others wait for the user to confirm; if it shows no sign-out, the session there may remain. If it shows an error about the address, the provider compares post-logout redirect URIs exactly: register \(returnAddress.absoluteString) as a post-logout redirect URI of this client (it stays the same with the descriptor's fixed `redirect.loopback.port`, or a port the caller fixes, `--port` on the command line)"
    }

    /// An end-session URL as it may be shown or logged: without `id_token_hint`, whose ID token is a credential.
    ///
    /// The other parameters (`client_id`, `post_logout_redirect_uri`, `state`) stay as they were encoded, so the URL
    /// shown still ends the session when opened (RP-Initiated Logout 1.0 §2 makes the hint optional; the provider may
    /// then ask the user to confirm).
    public static func shown(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let items = components.percentEncodedQueryItems
        else { return url }
        let kept = items.filter { $0.name != "id_token_hint" }
        guard kept.count != items.count else { return url }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }
}
#endif
