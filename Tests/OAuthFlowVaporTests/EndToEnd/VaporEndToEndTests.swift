import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowVapor
import OAuthFlowWeb
import Testing
import VaporTesting

/// The Vapor routes against Django OAuth Toolkit: the scripted agent plays the browser at DOT (login
/// and consent forms), the routes run in process; then alice's opaque access token is presented to a
/// Vapor API that introspects it at DOT with the web client's own credentials, as the example app does.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct VaporEndToEndTests {
    typealias Server = TestAuthorizationServer
    static let webSecret = Secret("web-test-secret-0123456789abcdef")

    static func web(_ server: Server) throws -> WebSignIn {
        let port = try #require(
            ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_WEB_PORT"], "OAUTHFLOW_TEST_WEB_PORT is not set (run `bash scripts/test.sh`)")
        return try WebSignIn(
            providers: [(try server.provider(), .init(clientID: "oauthflow-web", secret: webSecret))],
            origin: URL(string: "http://localhost:\(port)")!, keyring: SessionKeyring(current: VaporSignInTests.keyA))
    }

    /// The API: DOT's access tokens are opaque, so it introspects them as the web client.
    static func api(_ server: Server) throws -> ProtectedResource {
        let provider = try server.provider { $0.accessTokens.format = .opaque }
        return try ProtectedResource(
            providers: [provider], settings: .init(resource: URL(string: "http://localhost:8080")!),
            introspectionClients: [provider.id: ClientConfiguration.service(clientID: "oauthflow-web", clientSecret: webSecret)])
    }

    @Test func aliceSignsInThroughTheRoutesAndHerTokenOpensTheAPI() async throws {
        let server = try Server.require()
        let web = try Self.web(server)
        let api = try Self.api(server)
        let log = VaporSignInTests.SignInLog()
        try await withApp { app in
            quiet(app)
            app.addSignInRoutes(web) { result, request in
                log.append(result)
                return request.redirect(to: result.returnTo)
            }
            app.grouped(api.middleware(requiring: ["read"])).get("api", "me") { request in
                try request.auth.require(ProtectedResource.Principal.self).claims["username"]?.stringValue ?? "-"
            }
            let tester = try app.testing()
            let started = try await VaporSignInTests.start(tester, "django", returnTo: "/after")
            let redirect = try await server.signIn(try #require(URL(string: started.location)))
            #expect(redirect.absoluteString.hasPrefix("http://localhost:"), "\(redirect)")
            let query = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let done = try await VaporSignInTests.callback(tester, "django", query: query, cookie: started.cookie)
            #expect(done.status == .seeOther, "\(done.body.string)")
            #expect(done.headers.first(name: .location) == "/after")
            let result = try #require(log.all.first)
            #expect(result.claims["email"]?.stringValue == "alice@example.com")
            #expect(result.profile.name == "Alice Liddell")

            // The same callback URL again: refused (the engine remembers the finished state).
            let replay = try await VaporSignInTests.callback(tester, "django", query: query, cookie: started.cookie)
            #expect(VaporSignInTests.code(in: replay) == "replayed", "\(replay.body.string)")

            let token = result.tokens.accessToken.value
            let me = try await tester.sendRequest(.GET, "/api/me", headers: ["Authorization": "Bearer \(token)"])
            #expect(me.status == .ok, "\(me.headers["WWW-Authenticate"])")
            #expect(me.body.string == "alice")
            let forged = try await tester.sendRequest(.GET, "/api/me", headers: ["Authorization": "Bearer not-\(token.prefix(8))"])
            #expect(forged.status == .unauthorized)

            let declined = try await VaporSignInTests.start(tester, "django")
            let refusal = try await server.signIn(try #require(URL(string: declined.location)), deny: true)
            let refusalQuery = try #require(URLComponents(url: refusal, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            let denied = try await VaporSignInTests.callback(tester, "django", query: refusalQuery, cookie: declined.cookie)
            #expect(VaporSignInTests.code(in: denied) == "denied", "\(denied.body.string)")
        }
    }
}
