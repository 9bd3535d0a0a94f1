#if Vapor
import Foundation
import OAuthFlowWeb
import Vapor

extension RoutesBuilder {
    /// Adds the sign-in routes of `web` under its base path: the sign-in page, `GET {basePath}/:provider`, which starts
    /// the flow, and its callback (`GET` or `POST`), which finishes it and calls `onSignIn`.
    ///
    /// ```swift
    /// app.addSignInRoutes(web) { result, request in
    ///     request.session.data["user"] = result.subject       // the host's idea of a signed-in user
    ///     return request.redirect(to: result.returnTo)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - web: The providers and their settings.
    ///   - page: Serves `GET {basePath}` instead of the plain page.
    ///   - onSignIn: Called with each finished sign-in.
    public func addSignInRoutes(_ web: WebSignIn, page: SignInPage? = nil, onSignIn: @escaping SignInHandler) {
        let base = PathComponent.constants(web.basePath)
        on(.GET, base, body: .collect(maxSize: WebRouteLimits.collectedBody)) { request -> Response in
            if let page { return try await page(request) }
            return web.signInPage(returnTo: request.query[String.self, at: "return_to"]).vaporResponse
        }
        on(.GET, base + [":provider"], body: .collect(maxSize: WebRouteLimits.collectedBody)) { request -> Response in
            let provider = request.parameters.get("provider") ?? ""
            return await web.start(provider, returnTo: request.query[String.self, at: "return_to"]).vaporResponse
        }
        let finish: @Sendable (Request) async throws -> Response = { request in
            let provider = request.parameters.get("provider") ?? ""
            var callback = WebSignIn.Callback(cookies: CookieHeader.parse(request.headers[.cookie]))
            if request.method == .POST {
                // A form_post callback: a small urlencoded body; anything larger is not one.
                let body = try await request.body(readingAtMost: WebRouteLimits.formBody)
                guard body.count <= WebRouteLimits.formBody else { throw Abort(.payloadTooLarge) }
                callback.formBody = body
            } else {
                callback.query = request.url.query
            }
            switch await web.finish(provider, callback: callback) {
            case .success(let result):
                let response = try await onSignIn(result, request)
                response.headers.add(name: .setCookie, value: result.clearPendingCookie)
                return response
            case .failure(let error):
                return error.page(signInPath: web.basePath).vaporResponse
            }
        }
        let callback = base + [":provider", "callback"]
        on(.GET, callback, body: .collect(maxSize: WebRouteLimits.collectedBody), use: finish)
        on(.POST, callback, body: .stream, use: finish)
    }
}
#endif
