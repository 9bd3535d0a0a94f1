import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowVapor
import OAuthFlowWeb
import Testing
import VaporTesting

/// The sign-in routes on Vapor, in memory and on a running server, against two simulated OpenID
/// providers: what OAuthFlowWebTests checks for Hummingbird, through Vapor's routing, body
/// collection, cookies and sessions.
@Suite struct VaporSignInTests {
    static let keyA = try! SessionKeyring.Key(id: "vapor-1", key: SymmetricKey(size: .bits256))

    final class SignInLog: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [WebSignInResult] = []
        func append(_ result: WebSignInResult) { lock.withLock { results.append(result) } }
        var all: [WebSignInResult] { lock.withLock { results } }
    }

    struct Fixture {
        let web: WebSignIn
        let providers: [String: SimulatedIdentityProvider]
        let clock: MovableClock
        let signIns = SignInLog()
    }

    /// `alpha` and `beta`, each a simulated provider on its own host.
    static func fixture(
        origin: String = "http://localhost:8080", responseMode: String = "query", basePath: String = "/auth", logout: Bool = false,
        sessions: (any SessionDirectory)? = nil
    ) throws -> Fixture {
        let providers = ["alpha": SimulatedIdentityProvider(host: "alpha.example"), "beta": SimulatedIdentityProvider(host: "beta.example")]
        let descriptors = try providers.map { id, provider in
            try #require(DescriptorDocument.parse(Data(provider.descriptor(id: id, responseMode: responseMode, logout: logout).utf8), path: "\(id).yaml").descriptor)
        }
        let clock = MovableClock()
        let web = try WebSignIn(registry: ProviderRegistry(descriptors), enable: ["alpha": .init(clientID: "web-client"), "beta": .init(clientID: "web-client")],
            origin: URL(string: origin)!, keyring: SessionKeyring(current: keyA), sessions: sessions, basePath: basePath, environment: OAuthEnvironment(transport: SimulatedProviders(byHost: Dictionary(uniqueKeysWithValues: providers.values.map { ($0.host, $0) })), clock: clock))
        return Fixture(web: web, providers: providers, clock: clock)
    }

    /// The routes, with a hook that records the result and redirects (303) to its return path.
    static func routes(_ fixture: Fixture) -> @Sendable (Application) async throws -> Void {
        { app in
            quiet(app)
            let log = fixture.signIns
            app.addSignInRoutes(fixture.web) { result, request in
                log.append(result)
                return request.redirect(to: result.returnTo)
            }
        }
    }

    /// What a started flow handed the browser.
    struct Started {
        let location: String
        let state: String
        let cookieName: String
        let cookieValue: String
        let setCookie: String
        var cookie: String { "\(cookieName)=\(cookieValue)" }
    }

    static func start(_ app: some TestingApplicationTester, _ provider: String, returnTo: String? = nil, base: String = "/auth") async throws
        -> Started
    {
        let query = returnTo.map { "?return_to=" + FormEncoding.encode($0) } ?? ""
        let response = try await app.sendRequest(.GET, "\(base)/\(provider)\(query)")
        #expect(response.status == .found)
        let location = try #require(response.headers.first(name: .location))
        let setCookie = try #require(response.headers.first(name: .setCookie))
        let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
        let pair = try #require(setCookie.split(separator: ";").first)
        let equals = try #require(pair.firstIndex(of: "="))
        return Started(
            location: location, state: state, cookieName: String(pair[..<equals]), cookieValue: String(pair[pair.index(after: equals)...]),
            setCookie: setCookie)
    }

    /// The provider "redirects back": a GET of the callback with the flow's cookie.
    static func callback(_ app: some TestingApplicationTester, _ provider: String, query: String, cookie: String?, base: String = "/auth")
        async throws -> TestingHTTPResponse
    {
        var headers = HTTPHeaders()
        if let cookie { headers.add(name: .cookie, value: cookie) }
        return try await app.sendRequest(.GET, "\(base)/\(provider)/callback?\(query)", headers: headers)
    }

    static func code(in response: TestingHTTPResponse) -> String? {
        let page = response.body.string
        guard let range = page.range(of: "data-code=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aSignInRunsFromThePageToTheHostsHook() async throws {
        let fixture = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let page = try await tester.sendRequest(.GET, "/auth?return_to=%2Freports")
            #expect(page.status == .ok)
            #expect(page.headers.first(name: .contentType) == "text/html; charset=utf-8")
            #expect(page.body.string.contains(#"href="/auth/alpha?return_to=%2Freports">Sign in with Alpha &lt;Accounts&gt;</a>"#), "\(page.body.string)")
            #expect(page.body.string.contains("Sign in with Beta"))

            let started = try await Self.start(tester, "alpha", returnTo: "/account?tab=1")
            #expect(started.location.hasPrefix("https://alpha.example/authorize?"))
            #expect(started.location.contains("code_challenge_method=S256") && started.location.contains("nonce="))
            #expect(started.cookieName.hasPrefix("oauthflow_flow_"))
            #expect(started.setCookie.contains("HttpOnly") && started.setCookie.contains("SameSite=Lax"))
            #expect(started.setCookie.contains("Path=/auth/alpha/callback") && started.setCookie.contains("Max-Age=600"))
            #expect(!started.setCookie.contains("Secure"), "plain http is only allowed on loopback, where Secure cookies would be dropped")

            fixture.providers["alpha"]!.authorize(started.location, code: "code-1")
            let done = try await Self.callback(
                tester, "alpha", query: "code=code-1&state=\(started.state)&iss=https%3A%2F%2Falpha.example", cookie: started.cookie + "; sessionid=dot")
            #expect(done.status == .seeOther, "\(done.body.string)")
            #expect(done.headers.first(name: .location) == "/account?tab=1")
            #expect(
                done.headers[.setCookie].contains { $0.hasPrefix("\(started.cookieName)=;") && $0.contains("Max-Age=0") },
                "the pending cookie is deleted: \(done.headers[.setCookie])")
            let result = try #require(fixture.signIns.all.first)
            #expect(result.providerID == "alpha" && result.subject == "user-42")
            #expect(result.tokens.accessToken.value == "at-code-1")
            #expect(result.resources.map(\.title) == ["Reports"])
            #expect(
                result.profile
                    == UserProfile(
                        subject: "user-42", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true, picture: "https://example.com/ada.png"))
        }
    }

    @Test func everyRefusalGetsItsPageAndTheProviderIsAskedOnce() async throws {
        let fixture = try Self.fixture()
        let alpha = fixture.providers["alpha"]!
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let started = try await Self.start(tester, "alpha")
            alpha.authorize(started.location, code: "good")

            var answer = try await Self.callback(tester, "alpha", query: "code=good&state=\(started.state)", cookie: nil)
            #expect(answer.status == .badRequest && Self.code(in: answer) == "no_pending_sign_in")

            var tampered = Array(started.cookieValue)
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
            answer = try await Self.callback(
                tester, "alpha", query: "code=good&state=\(started.state)", cookie: "\(started.cookieName)=\(String(tampered))")
            #expect(answer.status == .badRequest && Self.code(in: answer) == "tampered")
            #expect(answer.headers[.setCookie].contains { $0.hasPrefix("\(started.cookieName)=;") }, "a refusal deletes the pending cookie too")

            answer = try await Self.callback(tester, "alpha", query: "code=good", cookie: started.cookie)
            #expect(Self.code(in: answer) == "state_mismatch")
            answer = try await Self.callback(tester, "alpha", query: "code=good&state=\(started.state)&iss=https%3A%2F%2Fbeta.example", cookie: started.cookie)
            #expect(Self.code(in: answer) == "issuer_mismatch")
            answer = try await Self.callback(tester, "beta", query: "code=good&state=\(started.state)", cookie: started.cookie)
            #expect(Self.code(in: answer) == "provider_mismatch")
            answer = try await Self.callback(tester, "gamma", query: "code=x&state=y", cookie: nil)
            #expect(answer.status == .notFound && Self.code(in: answer) == "unknown_provider")
            let unknownStart = try await tester.sendRequest(.GET, "/auth/gamma")
            #expect(unknownStart.status == .notFound && Self.code(in: unknownStart) == "unknown_provider")

            let declined = try await Self.start(tester, "alpha")
            answer = try await Self.callback(tester, "alpha", query: "error=access_denied&state=\(declined.state)", cookie: declined.cookie)
            #expect(Self.code(in: answer) == "denied" && answer.body.string.contains("cancelled"))
            #expect(alpha.tokenRequests == 0, "no refused callback reached the token endpoint")

            // The good callback works once; the same URL again is refused.
            answer = try await Self.callback(tester, "alpha", query: "code=good&state=\(started.state)", cookie: started.cookie)
            #expect(answer.status == .seeOther)
            answer = try await Self.callback(tester, "alpha", query: "code=good&state=\(started.state)", cookie: started.cookie)
            #expect(Self.code(in: answer) == "replayed")
            #expect(!answer.body.string.contains(started.state) && !answer.body.string.contains("good"), "the page echoes nothing of the request")
            #expect(alpha.tokenRequests == 1)
        }
    }

    @Test func hostileCallbacksGetAPageNotACrash() async throws {
        let fixture = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let started = try await Self.start(tester, "alpha")
            let junk = [
                String(repeating: "A", count: 100_000), "v1.vapor-1." + String(repeating: "_", count: 3000), "v1.\u{1B}[31m.\u{202E}", "v1..", "",
                "v2.vapor-1.AAAA",
            ]
            for value in junk {
                let answer = try await Self.callback(tester, "alpha", query: "code=x&state=\(started.state)", cookie: "\(started.cookieName)=\(value)")
                #expect(answer.status == .badRequest && Self.code(in: answer) == "tampered", "\(value.prefix(40).debugDescription)")
            }
            var answer = try await Self.callback(tester, "alpha", query: "code=x&state=%1B%5B31m%0A%E2%80%AE", cookie: started.cookie)
            #expect(Self.code(in: answer) == "no_pending_sign_in")
            answer = try await Self.callback(
                tester, "alpha", query: "code=" + String(repeating: "x", count: 100_000) + "&state=\(started.state)", cookie: started.cookie)
            #expect(answer.status == .badRequest || answer.status == .forbidden, "\(answer.status)")
            #expect(fixture.providers["alpha"]!.tokenRequests <= 1)
        }
    }

    @Test func anExpiredPendingSignInIsRefused() async throws {
        let fixture = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let started = try await Self.start(tester, "alpha")
            fixture.providers["alpha"]!.authorize(started.location, code: "late")
            fixture.clock.advance(601)
            let answer = try await Self.callback(tester, "alpha", query: "code=late&state=\(started.state)", cookie: started.cookie)
            #expect(answer.status == .badRequest && Self.code(in: answer) == "expired")
        }
    }

    @Test func returnPathsStayOnTheSite() async throws {
        let fixture = try Self.fixture()
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let page = try await tester.sendRequest(.GET, "/auth?return_to=https%3A%2F%2Fevil.example%2F")
            #expect(!page.body.string.contains("evil"), "\(page.body.string)")
            for evil in ["https://evil.example/steal", "//evil.example", "/\\evil.example"] {
                let started = try await Self.start(tester, "beta", returnTo: evil)
                fixture.providers["beta"]!.authorize(started.location, code: "c-\(evil.count)")
                let answer = try await Self.callback(tester, "beta", query: "code=c-\(evil.count)&state=\(started.state)", cookie: started.cookie)
                #expect(answer.headers.first(name: .location) == "/", "\(evil)")
            }
        }
    }

    @Test func aFormPostCallbackIsReadUpTo64KiBWithCrossSiteSecureCookies() async throws {
        let fixture = try Self.fixture(origin: "https://app.example.com", responseMode: "form_post")
        try await withApp(configure: Self.routes(fixture)) { app in
            let tester = try app.testing()
            let started = try await Self.start(tester, "alpha")
            #expect(started.setCookie.contains("Secure"))
            #expect(started.setCookie.contains("SameSite=None"), "a form_post callback is a cross-site POST")
            fixture.providers["alpha"]!.authorize(started.location, code: "posted")
            var headers = HTTPHeaders()
            headers.add(name: .cookie, value: started.cookie)
            headers.contentType = .urlEncodedForm
            // Over 64 KiB: refused before the form is read, and the provider is not asked.
            let large = try await tester.sendRequest(
                .POST, "/auth/alpha/callback", headers: headers,
                body: ByteBuffer(string: "code=posted&state=\(started.state)&pad=" + String(repeating: "y", count: 70_000)))
            #expect(large.status == .payloadTooLarge)
            #expect(fixture.providers["alpha"]!.tokenRequests == 0)
            let posted = try await tester.sendRequest(
                .POST, "/auth/alpha/callback", headers: headers, body: ByteBuffer(string: "code=posted&state=\(started.state)"))
            #expect(posted.status == .seeOther, "\(posted.body.string)")
            #expect(fixture.signIns.all.first?.subject == "user-42")
        }
    }

    /// On a listening server a large body arrives in pieces (streamed), which Vapor's collection caps itself.
    @Test func aStreamedFormPostOver64KiBIsRefusedOnARunningServer() async throws {
        let fixture = try Self.fixture(origin: "https://app.example.com", responseMode: "form_post")
        try await withApp(configure: Self.routes(fixture)) { app in
            // Started in memory: Vapor's HTTP client would follow the redirect to the provider.
            let started = try await Self.start(try app.testing(), "alpha")
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            var headers = HTTPHeaders()
            headers.add(name: .cookie, value: started.cookie)
            headers.contentType = .urlEncodedForm
            let form = "code=x&state=\(started.state)&pad=" + String(repeating: "z", count: 1_000_000)
            let large = try await tester.sendRequest(.POST, "/auth/alpha/callback", headers: headers, body: ByteBuffer(string: form))
            #expect(large.status == .payloadTooLarge)
            #expect(fixture.providers["alpha"]!.tokenRequests == 0)
        }
    }

    /// Vapor's session middleware rewrites every `Set-Cookie` of a response it adds its own to: the
    /// pending cookie and its deletion must come through that with their attributes.
    @Test func theHostsVaporSessionAndThePendingCookiesLiveSideBySide() async throws {
        let fixture = try Self.fixture()
        try await withApp { app in
            quiet(app)
            app.sessions.use(.memory)
            app.middleware.use(app.sessions.middleware)
            let log = fixture.signIns
            app.addSignInRoutes(fixture.web) { result, request in
                log.append(result)
                request.session.data["subject"] = result.subject
                return request.redirect(to: result.returnTo)
            }
            app.get("me") { request in request.session.data["subject"] ?? "nobody" }
            let tester = try app.testing()
            let started = try await Self.start(tester, "alpha")
            fixture.providers["alpha"]!.authorize(started.location, code: "s1")
            let done = try await Self.callback(tester, "alpha", query: "code=s1&state=\(started.state)", cookie: started.cookie)
            #expect(done.status == .seeOther)
            let cookies = done.headers[.setCookie]
            let session = try #require(cookies.first { $0.hasPrefix("vapor-session=") }, "\(cookies)")
            let clearing = try #require(cookies.first { $0.hasPrefix("\(started.cookieName)=;") }, "\(cookies)")
            for attribute in ["Max-Age=0", "Path=/auth/alpha/callback", "HttpOnly", "SameSite=Lax"] {
                #expect(clearing.contains(attribute), "\(clearing)")
            }
            let sessionCookie = try #require(session.split(separator: ";").first.map(String.init))
            let me = try await tester.sendRequest(.GET, "/me", headers: ["Cookie": sessionCookie])
            #expect(me.body.string == "user-42")

            // A new sign-in started by a signed-in user: the session cookie is rewritten, the pending cookie survives it.
            let again = try await tester.sendRequest(.GET, "/auth/beta", headers: ["Cookie": sessionCookie])
            let pending = try #require(again.headers[.setCookie].first { $0.hasPrefix("oauthflow_flow_") }, "\(again.headers[.setCookie])")
            for attribute in ["Max-Age=600", "Path=/auth/beta/callback", "HttpOnly", "SameSite=Lax"] {
                #expect(pending.contains(attribute), "\(pending)")
            }
            #expect(again.headers[.setCookie].contains { $0.hasPrefix("vapor-session=") })
        }
    }

    @Test func aHostPageAndABasePathOfItsOwn() async throws {
        let fixture = try Self.fixture(basePath: "/login/v1")
        try await withApp { app in
            quiet(app)
            app.addSignInRoutes(fixture.web, page: { _ in Response(status: .ok, body: "our own page") }) { result, request in
                request.redirect(to: result.returnTo)
            }
            let tester = try app.testing()
            let page = try await tester.sendRequest(.GET, "/login/v1")
            #expect(page.body.string == "our own page")
            let started = try await Self.start(tester, "alpha", base: "/login/v1")
            #expect(started.setCookie.contains("Path=/login/v1/alpha/callback"))
            #expect(started.location.contains("redirect_uri=http://localhost:8080/login/v1/alpha/callback&"), "\(started.location)")
            fixture.providers["alpha"]!.authorize(started.location, code: "b1")
            let done = try await Self.callback(tester, "alpha", query: "code=b1&state=\(started.state)", cookie: started.cookie, base: "/login/v1")
            #expect(done.status == .seeOther)
        }
    }
}

/// Vapor logs every request at info level: the tests' output keeps only warnings and errors.
func quiet(_ app: Application) {
    app.logger.logLevel = .warning
}
