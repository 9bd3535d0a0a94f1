#if NIO
import Foundation
import OAuthFlow

/// The loopback sign-in's presenter (RFC 8252 §7.3): the browser opened at the request, the receiver waiting on the
/// redirect URI. A pushed request is opened through the receiver's start address, which pushes it again when it
/// expired before the browser got there; a callback that is not this sign-in's is refused while the wait goes on.
struct BrowserPresenter: SignInRun.Presenter {
    let receiver: LoopbackReceiver
    let browser: any BrowserOpener
    /// How long to wait for the browser to come back.
    let timeout: Duration
    /// How long to wait for anything to reach the redirect URI before ``LoopbackSignIn/Event/stillWaiting(redirectURI:after:)``.
    let waitingHintDelay: Duration
    let events: @Sendable (LoopbackSignIn.Event) -> Void

    func present(_ pending: PendingAuthorization, of run: SignInRun) async throws -> OAuthClient.SignInOutcome {
        let current = Locked(pending)
        events(.listening(receiver.redirectURI))
        let start = Base64URL.random(bytes: 16)
        let opened = pending.requestExpiresAt == nil ? pending.url : Self.startURL(receiver.redirectURI, start)
        events(.authorizationEndpoint(Self.endpoint(of: pending.url)))
        events(.openURL(opened))
        do {
            try await browser.open(opened)
        } catch {
            events(.browserFailed("\(error)"))
        }
        let provider = run.client.provider
        // Discovery only when the descriptor names no token endpoint: no extra round trip otherwise.
        let tokenEndpoint =
            provider.endpoints.token == nil ? (try? await run.client.discoveredProvider())?.endpoints.token : provider.endpoints.token
        let tokenHost = tokenEndpoint?.host ?? "the token endpoint"
        let outcome = Locked<Result<OAuthClient.SignInOutcome, any Error>?>(nil)
        // A provider that refuses the redirect URI shows the user its own error page and never sends the browser
        // back: say which redirect URI was sent while the wait goes on.
        let arrived = Locked(false)
        let (delay, redirectURI, events) = (waitingHintDelay, receiver.redirectURI, events)
        let hint = Task {
            try await Task.sleep(for: delay)
            if !arrived.current { events(.stillWaiting(redirectURI: redirectURI, after: delay)) }
        }
        defer { hint.cancel() }
        try await receiver.waitForCallback(timeout: timeout) { request in
            if Self.startToken(of: request) == start {
                return await begin(run, current: current)
            }
            arrived.withLock { $0 = true }
            return await finish(request, of: run, pending: current.current, tokenHost: tokenHost, outcome: outcome)
        }
        guard let result = outcome.current else {
            throw LoopbackError(code: .noResult, message: "the sign-in ended without a result")
        }
        return try result.get()
    }

    /// Sends the browser to the authorization URL, pushed again first when the current one has expired.
    private func begin(_ run: SignInRun, current: Locked<PendingAuthorization>) async -> LoopbackResponse {
        do {
            if let renewed = try await run.renewed(current.current) {
                current.withLock { $0 = renewed }
                events(.pushedRequestRenewed)
            }
        } catch {
            return LoopbackResponse(
                status: 502,
                html: LoopbackPages.page(title: "Sign-in could not start", message: "\(error). Return to the application for details."),
                finishes: false)
        }
        return LoopbackResponse(
            status: 303, html: LoopbackPages.page(title: "Signing in", message: "Continue to the provider to sign in."), finishes: false,
            location: current.current.url)
    }

    /// Decides what one request on the redirect path means: only a callback that passes its checks (state, `iss`, no
    /// error, a code) leads to a token request; one that is not this sign-in's is refused and the wait goes on.
    private func finish(
        _ request: LoopbackRequest, of run: SignInRun, pending: PendingAuthorization, tokenHost: String,
        outcome: Locked<Result<OAuthClient.SignInOutcome, any Error>?>
    ) async -> LoopbackResponse {
        do {
            let response: OAuthClient.AuthorizationResponse = request.method == "POST" ? .formPost(request.body) : .callback(request.url)
            let finished = try await run.client.finishSignIn(response, pending: pending) { events(.exchangingCode(tokenHost)) }
            outcome.withLock { $0 = .success(finished) }
            return LoopbackResponse(
                status: 200,
                html: LoopbackPages.page(
                    title: "Signed in",
                    message: "You are signed in to \(run.client.provider.displayName). You can close this tab and return to the application."),
                finishes: true)
        } catch let error as FlowError where error.code == .stateMismatch || error.code == .invalidCallback {
            // Not this sign-in's callback (forged, or from an older attempt): refuse it and keep waiting.
            events(.callbackIgnored(error.message))
            return LoopbackResponse(
                status: 400,
                html: LoopbackPages.page(
                    title: "Not this sign-in", message: "This response does not match the sign-in in progress and was ignored."),
                finishes: false)
        } catch {
            outcome.withLock { $0 = .failure(error) }
            return LoopbackResponse(
                status: 400,
                html: LoopbackPages.page(title: "Sign-in failed", message: "\(error). Return to the application for details."), finishes: true)
        }
    }

    /// The authorization endpoint an authorization URL goes to: the URL without its query and fragment.
    static func endpoint(of url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }

    /// The query parameter of the receiver's start address.
    static let startParameter = "oauthflow_start"

    /// The receiver's start address: the redirect URI with a random token only this sign-in knows.
    static func startURL(_ redirectURI: URL, _ token: String) -> URL {
        var components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: startParameter, value: token)]
        return components?.url ?? redirectURI
    }

    /// The start token of a GET to the start address, if it is one.
    static func startToken(of request: LoopbackRequest) -> String? {
        guard request.method == "GET", let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems,
            items.count == 1, items[0].name == startParameter
        else { return nil }
        return items[0].value
    }
}
#endif
