import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import OAuthFlowHummingbird
import OAuthFlowWeb
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// Sign-out and the provider's logout through the Hummingbird routes, with the simulated providers of
/// WebSignInTests: `alpha` has an end-session endpoint, `beta` none.
@Suite struct WebSignOutTests {
    let store = InMemoryTokenStore()
    let alpha = SimulatedProvider(issuer: "https://alpha.example")
    let beta = SimulatedProvider(issuer: "https://beta.example")
    let clock = MovableClock()
    /// The host's idea of who is signed in: the one session key it keeps.
    let current = Locked<SessionKey?>(nil)
    let signedOut = Locked<Int>(0)

    func web(sessions: Bool = true) throws -> WebSignIn {
        struct HostRouter: HTTPTransport {
            let byHost: [String: SimulatedProvider]
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                try await byHost[request.url.host ?? ""]!.send(request)
            }
        }
        let descriptors = try [("alpha", "alpha.example", "  end_session: https://alpha.example/logout\n"), ("beta", "beta.example", "")].map {
            id, host, extra in
            var text = WebSignInTests.descriptor(id: id, host: host)
            text = text.replacingOccurrences(of: "  userinfo: https://\(host)/userinfo\n", with: "  userinfo: https://\(host)/userinfo\n" + extra)
            return try #require(DescriptorDocument.parse(Data(text.utf8), path: "\(id).yaml").descriptor)
        }
        return try WebSignIn(registry: ProviderRegistry(descriptors), enable: ["alpha": .init(clientID: "web-client"), "beta": .init(clientID: "web-client")],
            origin: URL(string: "http://localhost:8080")!, keyring: SessionKeyring(current: WebSignInTests.keyA), sessions: sessions ? store : nil, environment: OAuthEnvironment(transport: HostRouter(byHost: ["alpha.example": alpha, "beta.example": beta]), clock: clock))
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    func application(_ web: WebSignIn) -> some ApplicationProtocol {
        let router = Router()
        let current = self.current
        let signedOut = self.signedOut
        router.addSignInRoutes(web) { result, _, _ in
            current.withLock { $0 = result.session }
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        router.addSignOutRoutes(web, currentSession: { _, _ in current.withLock { $0 } }) { _, _ in
            current.withLock { $0 = nil }
            signedOut.withLock { $0 += 1 }
        }
        return Application(router: router)
    }

    /// Signs in at `provider` through the routes; returns the stored session's key.
    func signIn(_ client: some TestClientProtocol, _ provider: String) async throws -> SessionKey {
        let tests = WebSignInTests()
        let started = try await tests.start(client, provider)
        (provider == "alpha" ? alpha : beta).authorize(started.location, code: "code-\(provider)")
        let (status, page, _) = try await tests.callback(
            client, provider, query: "code=code-\(provider)&state=\(started.state)", cookie: "\(started.cookieName)=\(started.cookieValue)")
        #expect(status == .seeOther, "\(page)")
        return try #require(current.withLock { $0 })
    }

    func signOut(_ client: some TestClientProtocol, returnTo: String? = nil) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        let query = returnTo.map { "?return_to=" + FormEncoding.encode($0) } ?? ""
        return try await client.execute(uri: "/auth/signout\(query)", method: .post) { ($0.status, $0.headers, String(buffer: $0.body)) }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func signOutEndsTheSessionHereAndAtTheProviderAndChecksTheReturn() async throws {
        let web = try web()
        try await application(web).test(.router) { client in
            let key = try await signIn(client, "alpha")
            #expect(key.providerID == "alpha" && key.account.hasPrefix("web-"))
            let stored = try #require(await store.load(key))
            #expect(stored.providerSession?.subject == "user-42" && stored.providerSession?.issuer == "https://alpha.example")
            #expect(try await web.accessToken(for: key).value == "at-code-alpha")

            let (status, headers, _) = try await signOut(client, returnTo: "/bye")
            #expect(status == .seeOther && signedOut.withLock { $0 } == 1)
            let location = try #require(headers[.location].flatMap { URLComponents(string: $0) })
            #expect(location.host == "alpha.example" && location.path == "/logout")
            let items = Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
            #expect(items["id_token_hint"]?.split(separator: ".").count == 3 && items["client_id"] == "web-client")
            #expect(items["post_logout_redirect_uri"] == "http://localhost:8080/auth/alpha/signed-out")
            let state = try #require(items["state"])
            let setCookie = try #require(headers[.setCookie])
            #expect(setCookie.hasPrefix("oauthflow_signout_") && setCookie.contains("Path=/auth/alpha/signed-out") && setCookie.contains("HttpOnly"))
            #expect(!setCookie.contains(state), "the state is sealed")
            let cookie = String(setCookie.split(separator: ";")[0])
            #expect(await store.load(key) == nil, "the session is gone before the browser leaves")
            let error = try await #require(throws: SessionError.self) { try await web.accessToken(for: key) }
            #expect(error.code == .notSignedIn)

            func back(_ query: String, cookie: String?) async throws -> (HTTPResponse.Status, HTTPFields, String) {
                var fields = HTTPFields()
                if let cookie { fields[.cookie] = cookie }
                return try await client.execute(uri: "/auth/alpha/signed-out?\(query)", method: .get, headers: fields) {
                    ($0.status, $0.headers, String(buffer: $0.body))
                }
            }
            let forged = try await back("state=" + FormEncoding.encode(state + "x"), cookie: cookie)
            #expect(forged.0 == .badRequest && forged.2.contains("state_mismatch"))
            #expect(try await back("state=" + FormEncoding.encode(state), cookie: nil).0 == .badRequest, "no cookie: not started in this browser")
            let tampered = cookie.dropLast(2) + (cookie.hasSuffix("AA") ? "BB" : "AA")
            #expect(try await back("state=" + FormEncoding.encode(state), cookie: String(tampered)).0 == .badRequest)
            let done = try await back("state=" + FormEncoding.encode(state), cookie: cookie)
            #expect(done.0 == .seeOther && done.1[.location] == "/bye")
            #expect(done.1[values: .setCookie].contains { $0.contains("Max-Age=0") }, "the sign-out cookie is deleted")
            clock.advance(601)
            #expect(try await back("state=" + FormEncoding.encode(state), cookie: cookie).0 == .badRequest, "expired")
        }
    }

    /// A page of another site posting the sign-out form (cross-site request forgery): refused, the session kept.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aSignOutFromAnotherSiteIsRefused() async throws {
        let web = try web()
        try await application(web).test(.router) { client in
            let key = try await signIn(client, "alpha")
            let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
            for (name, value) in [(fetchSite, "cross-site"), (HTTPField.Name.origin, "https://evil.example"), (HTTPField.Name.origin, "null")] {
                var fields = HTTPFields()
                fields[name] = value
                let status = try await client.execute(uri: "/auth/signout", method: .post, headers: fields) { $0.status }
                #expect(status == .forbidden, "\(name): \(value)")
            }
            #expect(await store.load(key) != nil && signedOut.withLock { $0 } == 0, "still signed in")
            var own = HTTPFields()
            own[fetchSite] = "same-origin"
            #expect(try await client.execute(uri: "/auth/signout", method: .post, headers: own) { $0.status } == .seeOther)
            #expect(await store.load(key) == nil)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aProviderWithoutEndSessionIsSaidPlainly() async throws {
        let web = try web()
        try await application(web).test(.router) { client in
            let key = try await signIn(client, "beta")
            let (status, _, page) = try await signOut(client, returnTo: "https://evil.example/")
            #expect(status == .ok && page.contains("has no end-session endpoint, so your session there continues"), "\(page)")
            #expect(page.contains(#"href="/""#), "an absolute return path becomes /")
            #expect(await store.load(key) == nil)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func signingOutWithoutASessionGoesStraightToTheReturnPath() async throws {
        let web = try web()
        try await application(web).test(.router) { client in
            let (status, headers, _) = try await signOut(client, returnTo: "//evil.example")
            #expect(status == .seeOther && headers[.location] == "/")
        }
    }

    /// A logout token from alpha, signed with its key (by hand: `typ` must be `logout+jwt`).
    func logoutToken(sub: String, jti: String = UUID().uuidString, aud: String = "web-client") throws -> String {
        func part(_ object: [String: JSONValue]) throws -> String { Base64URL.encode(try JSONEncoder().encode(JSONValue.object(object))) }
        let now = Date().timeIntervalSince1970
        let input = try part(["alg": .string("ES256"), "kid": .string("k1"), "typ": .string("logout+jwt")]) + "."
            + part([
                "iss": .string("https://alpha.example"), "aud": .string(aud), "iat": .number(now), "jti": .string(jti), "sub": .string(sub),
                "events": .object([IDTokenValidator.backChannelLogoutEvent: .object([:])]),
            ])
        let key = try P256.Signing.PrivateKey(pemRepresentation: alpha.key.pemRepresentation)
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    func postLogout(_ client: some TestClientProtocol, _ provider: String, body: ByteBuffer, type: String = "application/x-www-form-urlencoded")
        async throws -> (HTTPResponse.Status, HTTPFields, String)
    {
        try await client.execute(uri: "/auth/\(provider)/backchannel-logout", method: .post, headers: [.contentType: type], body: body) {
            ($0.status, $0.headers, String(buffer: $0.body))
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func theBackChannelRouteEndsTheSessionItNames() async throws {
        let web = try web()
        try await application(web).test(.router) { client in
            let key = try await signIn(client, "alpha")
            let token = try logoutToken(sub: "user-42")
            let wrong = try await postLogout(client, "alpha", body: ByteBuffer(string: "logout_token=" + (try logoutToken(sub: "user-42", aud: "other"))))
            #expect(wrong.0 == .badRequest && wrong.1[.cacheControl] == "no-store" && wrong.2.contains("invalid_request"))
            #expect(try await web.isSignedIn(key))
            let answer = try await postLogout(client, "alpha", body: ByteBuffer(string: "logout_token=" + token))
            #expect(answer.0 == .ok && answer.1[.cacheControl] == "no-store", "\(answer.2)")
            #expect(try await !web.isSignedIn(key))
            let replay = try await postLogout(client, "alpha", body: ByteBuffer(string: "logout_token=" + token))
            #expect(replay.0 == .badRequest && replay.2.contains("already used"))
            let big = try await postLogout(client, "alpha", body: ByteBuffer(repeating: 0x61, count: ProviderLogoutReceiver.maximumBodySize + 1))
            #expect(big.0 == .badRequest && big.1[.cacheControl] == "no-store")
            #expect(try await postLogout(client, "nobody", body: ByteBuffer(string: "logout_token=x")).0 == .notFound)
            #expect(try await client.execute(uri: "/auth/alpha/frontchannel-logout?iss=x&sid=y", method: .get) { $0.status } == .notFound,
                    "alpha does not declare front-channel logout")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func withoutAStoreTheLogoutRoutesSaySo() async throws {
        let web = try web(sessions: false)
        try await application(web).test(.router) { client in
            #expect(try await postLogout(client, "alpha", body: ByteBuffer(string: "logout_token=x")).0 == .notImplemented)
            let error = try await #require(throws: WebSignInError.self) { try await web.accessToken(for: SessionKey(providerID: "alpha")) }
            #expect(error.code == .configuration)
        }
    }
}
