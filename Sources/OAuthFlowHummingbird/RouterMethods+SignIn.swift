#if Hummingbird
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OAuthFlow
import OAuthFlowSecurityEvents
import OAuthFlowWeb

@available(macOS 14, iOS 17, tvOS 17, *)
extension RouterMethods {
    /// Adds the sign-in routes of `web` under its base path: the sign-in page (or `page`), `GET {basePath}/{provider}`,
    /// which starts the flow, and its callback (`GET` or `POST`), which finishes it and calls `onSignIn`.
    ///
    /// ```swift
    /// router.addSignInRoutes(web) { result, request, context in
    ///     context.sessions.setSession(User(result))          // the host's idea of a signed-in user
    ///     return .redirect(to: result.returnTo)
    /// }
    /// ```
    @discardableResult
    public func addSignInRoutes(
        _ web: WebSignIn, page: (@Sendable (Request, Context) async throws -> Response)? = nil,
        onSignIn: @escaping SignInHandler<Context>
    ) -> Self {
        let base = RouterPath(web.basePath)
        get(base) { request, context -> Response in
            if let page { return try await page(request, context) }
            return web.signInPage(returnTo: request.uri.queryParameters["return_to"].map(String.init)).hummingbirdResponse
        }
        get(RouterPath("\(web.basePath)/:provider")) { request, context -> Response in
            let provider = context.parameters.get("provider") ?? ""
            return await web.start(provider, returnTo: request.uri.queryParameters["return_to"].map(String.init)).hummingbirdResponse
        }
        let finish: @Sendable (Request, Context) async throws -> Response = { request, context in
            let provider = context.parameters.get("provider") ?? ""
            var callback = WebSignIn.Callback(cookies: CookieHeader.parse(request.headers[values: .cookie]))
            if request.method == .post {
                // A form_post callback: a small urlencoded body; anything larger is not one.
                let body = try await request.body.collect(upTo: WebSignIn.maximumFormPostSize)
                callback.formBody = Data(buffer: body)
            } else {
                callback.query = request.uri.query
            }
            switch await web.finish(provider, callback: callback) {
            case let .success(result):
                var response = try await onSignIn(result, request, context)
                response.headers.append(HTTPField(name: .setCookie, value: result.clearPendingCookie))
                return response
            case let .failure(error):
                return error.page(signInPath: web.basePath).hummingbirdResponse
            }
        }
        get(RouterPath("\(web.basePath)/:provider/callback"), use: finish)
        post(RouterPath("\(web.basePath)/:provider/callback"), use: finish)
        return self
    }
}

extension WebResponse {
    /// The response as Hummingbird sends it.
    public var hummingbirdResponse: Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields,
            body: body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

@available(macOS 14, iOS 17, tvOS 17, *)
extension RouterMethods {
    /// Adds the sign-out and logout routes of `web` under its base path: `POST {basePath}/signout` and each
    /// provider's `signed-out`, `backchannel-logout` and `frontchannel-logout`. `web` needs a session store
    /// (`WebSignIn(…, sessions:)`).
    ///
    /// ```swift
    /// router.addSignOutRoutes(web, currentSession: { _, context in context.sessions.session?.key }) { _, context in
    ///     context.sessions.clearSession()
    /// }
    /// ```
    @discardableResult
    public func addSignOutRoutes(
        _ web: WebSignIn, currentSession: @escaping @Sendable (Request, Context) async throws -> SessionKey?,
        onSignOut: @escaping @Sendable (Request, Context) async throws -> Void
    ) -> Self {
        post(RouterPath(web.signOutPath)) { request, context -> Response in
            // Found by the field's canonical name: a made `HTTPField.Name` would need a fallback, another header.
            let fetchSite = request.headers.first { $0.name.canonicalName == "sec-fetch-site" }?.value
            if let refusal = web.crossSiteRefusal(fetchSite: fetchSite, origin: request.headers[.origin]) { return refusal.hummingbirdResponse }
            let key = try await currentSession(request, context)
            try await onSignOut(request, context)
            return await web.signOut(key, returnTo: request.uri.queryParameters["return_to"].map(String.init)).hummingbirdResponse
        }
        get(RouterPath("\(web.basePath)/:provider/signed-out")) { request, context -> Response in
            let provider = context.parameters.get("provider") ?? ""
            return web.finishSignOut(provider, query: request.uri.query, cookies: CookieHeader.parse(request.headers[values: .cookie]))
                .hummingbirdResponse
        }
        post(RouterPath("\(web.basePath)/:provider/backchannel-logout")) { request, context -> Response in
            let provider = context.parameters.get("provider") ?? ""
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: ProviderLogoutReceiver.maximumBodySize)
            } catch {
                return WebResponse(
                    status: 400, headers: [("Cache-Control", "no-store"), ("Content-Type", "application/json")],
                    body: #"{"error":"invalid_request","error_description":"the body is too large"}"#
                ).hummingbirdResponse
            }
            return await web.backChannelLogout(provider, body: Data(buffer: body), contentType: request.headers[.contentType])
                .hummingbirdResponse
        }
        get(RouterPath("\(web.basePath)/:provider/frontchannel-logout")) { request, context -> Response in
            let provider = context.parameters.get("provider") ?? ""
            let current = try? await currentSession(request, context)
            return await web.frontChannelLogout(provider, query: request.uri.query, current: current).hummingbirdResponse
        }
        return self
    }
}

@available(macOS 14, iOS 17, tvOS 17, *)
extension RouterMethods {
    /// Adds the route a provider's transmitter pushes its security events to (RFC 8935; Sign in with Apple's
    /// notifications): `POST path`, the body read up to 64 KiB and handed to `receiver`
    /// (`SecurityEventReceiver.receive(body:contentType:authorization:)`), which answers 202, 200, 400, 401 or 503.
    ///
    /// ```swift
    /// router.addSecurityEventRoute("/security-events/google", receiver: try oauth.securityEventReceiver(for: "google"))
    /// ```
    @discardableResult
    public func addSecurityEventRoute(_ path: String, receiver: SecurityEventReceiver) -> Self {
        post(RouterPath(path)) { request, context -> Response in
            let answer: SecurityEventReceiver.Answer
            do {
                let body = try await request.body.collect(upTo: SecurityEventReceiver.maximumBodySize)
                answer = await receiver.receive(
                    body: Data(buffer: body), contentType: request.headers[.contentType], authorization: request.headers[.authorization])
            } catch {
                // More than the largest body: refused unread, as the receiver refuses it.
                answer = await receiver.receive(body: Data(count: SecurityEventReceiver.maximumBodySize + 1), contentType: nil)
            }
            return WebResponse(status: answer.status, headers: answer.headers, body: answer.body).hummingbirdResponse
        }
        return self
    }
}
#endif
