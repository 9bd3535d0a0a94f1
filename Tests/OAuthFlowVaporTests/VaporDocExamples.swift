import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowVapor
import OAuthFlowWeb
import Testing
import VaporTesting

/// Docs/web.md's Vapor example, compiled and run: every line of the doc's block is below, as written
/// (Tests/OAuthFlowDocumentationTests/DocExampleTests.swift checks that), around a simulated provider.
@Suite struct VaporDocExamples {
    /// Docs/api-protection.md, keys fetched ahead of requests (Vapor).
    static func keySetRefreshHandler(app: Application, api: ProtectedResource) {
        app.lifecycle.use(KeySetRefreshHandler(api))
    }

    /// Docs/web.md, "Vapor".
    static func vaporHost(app: Application, web: WebSignIn, api: ProtectedResource) {
        // The stored session's key, read back from the Vapor session.
        @Sendable func signedInSession(_ request: Request) -> SessionKey? {
            guard request.hasSession, let text = request.session.data["session"] else { return nil }
            return try? JSONDecoder().decode(SessionKey.self, from: Data(text.utf8))
        }

        app.sessions.use(.memory)
        app.middleware.use(app.sessions.middleware)

        app.addSignInRoutes(web) { result, request in
            // Your idea of a signed-in user: here, the stored session's key in the Vapor session.
            request.session.data["session"] = try String(decoding: JSONEncoder().encode(result.session), as: UTF8.self)
            return request.redirect(to: result.returnTo)
        }
        app.addSignOutRoutes(web, currentSession: { request in signedInSession(request) }) { request in
            request.session.destroy()
        }

        // The app's own API: scopes per route, the token's principal on the request.
        app.addProtectedResourceMetadata(api)
        app.grouped(api.middleware(requiring: ["orders:read"])).get("orders") { request in
            let principal = try request.auth.require(ProtectedResource.Principal.self)
            return "orders of \(principal.subject ?? "-")"
        }
    }

    @Test func theDocumentedHostSignsInCallsTheAPIAndSignsOut() async throws {
        let fixture = try VaporSignInTests.fixture(logout: true, sessions: InMemoryTokenStore())
        let alpha = fixture.providers["alpha"]!
        let api = try ProtectedResource(
            providers: [try alpha.apiDescriptor.provider()], settings: .init(resource: URL(string: "https://app.example.com")!), environment: OAuthEnvironment(transport: alpha))
        try await withApp { app in
            quiet(app)
            Self.vaporHost(app: app, web: fixture.web, api: api)
            let tester = try app.testing()
            let started = try await VaporSignInTests.start(tester, "alpha")
            alpha.authorize(started.location, code: "doc-1")
            let done = try await VaporSignInTests.callback(tester, "alpha", query: "code=doc-1&state=\(started.state)", cookie: started.cookie)
            #expect(done.status == .seeOther)
            let session = try #require(done.headers[.setCookie].first { $0.hasPrefix("vapor-session=") }?.split(separator: ";").first)

            let token = try alpha.accessToken(audience: "https://app.example.com", scopes: ["orders:read"])
            let orders = try await tester.sendRequest(.GET, "/orders", headers: ["Authorization": "Bearer \(token)"])
            #expect(orders.body.string == "orders of user-42")
            let metadata = try await tester.sendRequest(.GET, "/.well-known/oauth-protected-resource")
            #expect(metadata.status == .ok)

            let out = try await tester.sendRequest(.POST, "/auth/signout", headers: ["Cookie": String(session)])
            #expect(out.status == .seeOther && out.headers.first(name: .location)?.hasPrefix("https://alpha.example/logout?") == true)
        }
    }
}
