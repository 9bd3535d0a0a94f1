import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowVapor
import OAuthFlowWeb
import Testing
import VaporTesting

/// The sign-out and logout routes on Vapor, with the sessions in a store and the host's Vapor session
/// holding only the stored session's key: sign-out through the provider's end-session endpoint and back,
/// back-channel logout (its body capped), front-channel logout, and refresh-on-use ending with the session.
@Suite struct VaporSignOutTests {
    typealias Fixture = VaporSignInTests.Fixture

    static func fixture() throws -> (Fixture, InMemoryTokenStore) {
        let store = InMemoryTokenStore()
        return (try VaporSignInTests.fixture(logout: true, sessions: store), store)
    }

    static func currentSession(_ request: Request) -> SessionKey? {
        guard request.hasSession, let text = request.session.data["key"] else { return nil }
        return try? JSONDecoder().decode(SessionKey.self, from: Data(text.utf8))
    }

    /// The host: its Vapor session keeps the stored session's key; `/token` hands out the access token.
    static func routes(_ fixture: Fixture) -> @Sendable (Application) async throws -> Void {
        { app in
            quiet(app)
            app.sessions.use(.memory)
            app.middleware.use(app.sessions.middleware)
            let web = fixture.web
            let log = fixture.signIns
            app.addSignInRoutes(web) { result, request in
                log.append(result)
                let key = try #require(result.session)
                request.session.data["key"] = String(decoding: try JSONEncoder().encode(key), as: UTF8.self)
                return request.redirect(to: result.returnTo)
            }
            app.addSignOutRoutes(web, currentSession: { request in currentSession(request) }) { request in
                request.session.destroy()
            }
            app.get("token") { request async throws -> String in
                guard let key = currentSession(request) else { throw Abort(.unauthorized) }
                do {
                    return try await web.accessToken(for: key).value
                } catch is SessionError {
                    throw Abort(.unauthorized)
                }
            }
        }
    }

    /// Signs in at `alpha`; returns the browser's session cookie (`name=value`) and the stored session's key.
    static func signIn(_ tester: some TestingApplicationTester, _ fixture: Fixture, code: String) async throws -> (cookie: String, key: SessionKey) {
        let started = try await VaporSignInTests.start(tester, "alpha")
        fixture.providers["alpha"]!.authorize(started.location, code: code)
        let done = try await VaporSignInTests.callback(tester, "alpha", query: "code=\(code)&state=\(started.state)", cookie: started.cookie)
        #expect(done.status == .seeOther, "\(done.body.string)")
        let session = try #require(done.headers[.setCookie].first { $0.hasPrefix("vapor-session=") })
        let key = try #require(fixture.signIns.all.last?.session ?? nil)
        return (try #require(session.split(separator: ";").first.map(String.init)), key)
    }

    static func cookie(named prefix: String, in response: TestingHTTPResponse) throws -> (pair: String, header: String) {
        let header = try #require(response.headers[.setCookie].first { $0.hasPrefix(prefix) }, "\(response.headers[.setCookie])")
        return (try #require(header.split(separator: ";").first.map(String.init)), header)
    }

    @Test func signOutRevokesForgetsAndGoesThroughTheProvidersLogout() async throws {
        let (fixture, store) = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let (session, key) = try await Self.signIn(tester, fixture, code: "so-1")
            let token = try await tester.sendRequest(.GET, "/token", headers: ["Cookie": session])
            #expect(token.body.string == "at-so-1", "the stored session's token, through web.accessToken(for:)")

            let out = try await tester.sendRequest(.POST, "/auth/signout?return_to=%2Fbye", headers: ["Cookie": session])
            #expect(out.status == .seeOther)
            let location = try #require(out.headers.first(name: .location).flatMap(URLComponents.init(string:)))
            #expect(location.host == "alpha.example" && location.path == "/logout", "\(location)")
            let items = Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
            #expect(items["post_logout_redirect_uri"] == "http://localhost:8080/auth/alpha/signed-out")
            #expect(items["id_token_hint"]?.isEmpty == false)
            let state = try #require(items["state"])
            let (pending, header) = try Self.cookie(named: "oauthflow_signout_", in: out)
            #expect(header.contains("Path=/auth/alpha/signed-out") && header.contains("HttpOnly") && header.contains("SameSite=Lax"), "\(header)")
            #expect(out.headers[.setCookie].contains { $0.hasPrefix("vapor-session=;") || $0.hasPrefix("vapor-session=; ") }, "the host's session ends")
            #expect(fixture.providers["alpha"]!.revocations >= 1)
            #expect(await store.load(key) == nil, "the stored session is forgotten")
            let after = try await tester.sendRequest(.GET, "/token", headers: ["Cookie": session])
            #expect(after.status == .unauthorized)

            // Back from the provider: another state is refused, the right one goes on to the return path.
            let wrong = try await tester.sendRequest(.GET, "/auth/alpha/signed-out?state=forged", headers: ["Cookie": pending])
            #expect(wrong.status == .badRequest && VaporSignInTests.code(in: wrong) == "state_mismatch", "\(wrong.body.string)")
            let back = try await tester.sendRequest(.GET, "/auth/alpha/signed-out?state=\(state)", headers: ["Cookie": pending])
            #expect(back.status == .seeOther && back.headers.first(name: .location) == "/bye", "\(back.body.string)")
            #expect(back.headers[.setCookie].contains { $0.hasPrefix(pending.split(separator: "=")[0] + "=;") && $0.contains("Max-Age=0") })
        }
    }

    /// A page of another site posting the sign-out form (cross-site request forgery): refused, the session kept.
    @Test func aSignOutFromAnotherSiteIsRefused() async throws {
        let (fixture, store) = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let (session, key) = try await Self.signIn(tester, fixture, code: "csrf-1")
            for headers: HTTPHeaders in [
                ["Cookie": session, "Sec-Fetch-Site": "cross-site"], ["Cookie": session, "Sec-Fetch-Site": "same-site"],
                ["Cookie": session, "Origin": "https://evil.example"], ["Cookie": session, "Origin": "null"],
            ] {
                let out = try await tester.sendRequest(.POST, "/auth/signout", headers: headers)
                #expect(out.status == .forbidden, "\(headers)")
            }
            #expect(await store.load(key) != nil, "still signed in")
            #expect(fixture.providers["alpha"]!.revocations == 0)
            let own = try await tester.sendRequest(.POST, "/auth/signout", headers: ["Cookie": session, "Sec-Fetch-Site": "same-origin"])
            #expect(own.status == .seeOther)
            #expect(await store.load(key) == nil)
        }
    }

    @Test func aSignOutWithoutASessionGoesStraightToTheReturnPath() async throws {
        let (fixture, _) = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let out = try await app.testing().sendRequest(.POST, "/auth/signout?return_to=https%3A%2F%2Fevil.example")
            #expect(out.status == .seeOther && out.headers.first(name: .location) == "/")
            #expect(fixture.providers["alpha"]!.revocations == 0)
        }
    }

    @Test func backChannelLogoutEndsTheSessionAndItsBodyIsCapped() async throws {
        let (fixture, store) = try Self.fixture()
        let alpha = fixture.providers["alpha"]!
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let (session, key) = try await Self.signIn(tester, fixture, code: "bc-1")
            let form: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
            let logoutToken = try alpha.logoutToken()
            let body = ByteBuffer(string: "logout_token=\(logoutToken)")

            let wrongType = try await tester.sendRequest(.POST, "/auth/alpha/backchannel-logout", headers: ["Content-Type": "text/plain"], body: body)
            #expect(wrongType.status == .badRequest && wrongType.headers.first(name: .cacheControl) == "no-store")
            let large = try await tester.sendRequest(
                .POST, "/auth/alpha/backchannel-logout", headers: form,
                body: ByteBuffer(string: "logout_token=\(logoutToken)&pad=" + String(repeating: "p", count: 70_000)))
            #expect(large.status == .badRequest && large.headers.first(name: .cacheControl) == "no-store")
            #expect(await store.load(key) != nil, "nothing ended by a refused request")

            let ended = try await tester.sendRequest(.POST, "/auth/alpha/backchannel-logout", headers: form, body: body)
            #expect(ended.status == .ok && ended.headers.first(name: .cacheControl) == "no-store", "\(ended.body.string)")
            #expect(await store.load(key) == nil)
            let token = try await tester.sendRequest(.GET, "/token", headers: ["Cookie": session])
            #expect(token.status == .unauthorized, "the host's session names a stored session that has ended")
            let replayed = try await tester.sendRequest(.POST, "/auth/alpha/backchannel-logout", headers: form, body: body)
            #expect(replayed.status == .badRequest)

            let unknown = try await tester.sendRequest(.POST, "/auth/gamma/backchannel-logout", headers: form, body: body)
            #expect(unknown.status == .notFound)
        }
    }

    /// A megabyte arrives in pieces on a listening server: refused with the same 400 once 64 KiB have come.
    @Test func aStreamedBackChannelBodyOver64KiBIsRefusedOnARunningServer() async throws {
        let (fixture, _) = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            let large = try await tester.sendRequest(
                .POST, "/auth/alpha/backchannel-logout", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "logout_token=" + String(repeating: "q", count: 1_000_000)))
            #expect(large.status == .badRequest && large.headers.first(name: .cacheControl) == "no-store")
        }
    }

    @Test func frontChannelLogoutEndsThisBrowsersSession() async throws {
        let (fixture, store) = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let (session, key) = try await Self.signIn(tester, fixture, code: "fc-1")
            let page = try await tester.sendRequest(.GET, "/auth/alpha/frontchannel-logout", headers: ["Cookie": session])
            #expect(page.status == .ok)
            #expect(await store.load(key) == nil)
        }
    }
}
