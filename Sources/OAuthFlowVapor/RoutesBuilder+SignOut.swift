#if Vapor
import Foundation
import OAuthFlow
import OAuthFlowSecurityEvents
import OAuthFlowWeb
import Vapor

extension RoutesBuilder {
    /// Adds the sign-out and logout routes of `web` under its base path: `POST {basePath}/signout` and each
    /// provider's `signed-out`, `backchannel-logout` and `frontchannel-logout`. `web` needs a session store
    /// (`WebSignIn(…, sessions:)`).
    ///
    /// ```swift
    /// app.addSignOutRoutes(web, currentSession: { request in User.signedIn(request)?.session }) { request in
    ///     request.session.destroy()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - web: The providers, with their session store.
    ///   - currentSession: Reads the key of the browser's signed-in session from the host's own session.
    ///   - onSignOut: Clears the host's own session.
    public func addSignOutRoutes(_ web: WebSignIn, currentSession: @escaping CurrentSession, onSignOut: @escaping SignOutHandler) {
        let base = PathComponent.constants(web.basePath)
        on(.POST, PathComponent.constants(web.signOutPath), body: .collect(maxSize: WebRouteLimits.collectedBody)) { request -> Response in
            if let refusal = web.crossSiteRefusal(
                fetchSite: request.headers.first(name: "Sec-Fetch-Site"), origin: request.headers.first(name: .origin))
            {
                return refusal.vaporResponse
            }
            let key = try await currentSession(request)
            try await onSignOut(request)
            return await web.signOut(key, returnTo: request.query[String.self, at: "return_to"]).vaporResponse
        }
        on(.GET, base + [":provider", "signed-out"], body: .collect(maxSize: WebRouteLimits.collectedBody)) { request -> Response in
            let provider = request.parameters.get("provider") ?? ""
            return web.finishSignOut(provider, query: request.url.query, cookies: CookieHeader.parse(request.headers[.cookie])).vaporResponse
        }
        on(.POST, base + [":provider", "backchannel-logout"], body: .stream) { request -> Response in
            let provider = request.parameters.get("provider") ?? ""
            let body = try await request.body(readingAtMost: ProviderLogoutReceiver.maximumBodySize)
            return await web.backChannelLogout(provider, body: body, contentType: request.headers.first(name: .contentType)).vaporResponse
        }
        on(.GET, base + [":provider", "frontchannel-logout"], body: .collect(maxSize: WebRouteLimits.collectedBody)) { request -> Response in
            let provider = request.parameters.get("provider") ?? ""
            let current = try? await currentSession(request)
            return await web.frontChannelLogout(provider, query: request.url.query, current: current ?? nil).vaporResponse
        }
    }
}

extension RoutesBuilder {
    /// Adds the route a provider's transmitter pushes its security events to (RFC 8935; Sign in with Apple's
    /// notifications): `POST path`, the body read up to 64 KiB and handed to `receiver`
    /// (`SecurityEventReceiver.receive(body:contentType:authorization:)`), which answers 202, 200, 400, 401 or 503.
    ///
    /// ```swift
    /// app.addSecurityEventRoute("/security-events/google", receiver: try oauth.securityEventReceiver(for: "google"))
    /// ```
    public func addSecurityEventRoute(_ path: String, receiver: SecurityEventReceiver) {
        on(.POST, PathComponent.constants(path), body: .stream) { request -> Response in
            let body = try await request.body(readingAtMost: SecurityEventReceiver.maximumBodySize)
            let answer = await receiver.receive(
                body: body, contentType: request.headers.first(name: .contentType), authorization: request.headers.first(name: .authorization))
            return WebResponse(status: answer.status, headers: answer.headers, body: answer.body).vaporResponse
        }
    }
}
#endif
