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

/// A simulated OpenID provider behind a transport: token endpoint, JWKS and userinfo.
final class SimulatedProvider: HTTPTransport, @unchecked Sendable {
    let issuer: String
    let key = ES256PrivateKey()
    private let lock = NSLock()
    private var nonces: [String: String] = [:]   // code -> nonce
    private var requests: [String] = []
    var subject = "user-42"
    private var down = false

    init(issuer: String) { self.issuer = issuer }

    /// Whether its token endpoint cannot be reached (the connection fails).
    var unreachable: Bool {
        get { lock.withLock { down } }
        set { lock.withLock { down = newValue } }
    }

    var tokenRequests: Int { lock.withLock { requests.filter { $0.hasSuffix("/token") }.count } }

    /// Remembers which nonce the authorization request carried, as the provider would.
    func authorize(_ authorizationURL: String, code: String) {
        let items = URLComponents(string: authorizationURL)?.queryItems ?? []
        lock.withLock { nonces[code] = items.first { $0.name == "nonce" }?.value ?? "" }
    }

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: Double
        var iat: Double
        var nonce: String
        var name: String
        var email: String
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        lock.withLock { requests.append(request.url.path) }
        let json = ["Content-Type": "application/json"]
        switch request.url.path {
        case "/token":
            if unreachable { throw TransportError(url: request.url, message: "connection refused") }
            let form = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
            guard let code = form["code"], let nonce = lock.withLock({ nonces.removeValue(forKey: code) }), form["code_verifier"] != nil else {
                return TransportResponse(status: 400, headers: json, body: Data(#"{"error":"invalid_grant"}"#.utf8))
            }
            let now = Date().timeIntervalSince1970
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key, kid: "k1")
            let idToken = try await keys.sign(Claims(iss: issuer, sub: subject, aud: AudienceClaim(value: ["web-client"]), exp: now + 600,
                                                     iat: now, nonce: nonce, name: "Ada Lovelace", email: "ada@example.com"), kid: "k1")
            let body = #"{"access_token":"at-\#(code)","token_type":"Bearer","expires_in":3600,"scope":"openid profile read","id_token":"\#(idToken)"}"#
            return TransportResponse(status: 200, headers: json, body: Data(body.utf8))
        case "/jwks":
            let parameters = key.parameters!
            let body = #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"k1","alg":"ES256","use":"sig"}]}"#
            return TransportResponse(status: 200, headers: json, body: Data(body.utf8))
        case "/userinfo":
            return TransportResponse(status: 200, headers: json, body: Data(#"{"sub":"\#(subject)","email_verified":true,"picture":"https://example.com/ada.png"}"#.utf8))
        default:
            return TransportResponse(status: 404, headers: [:], body: Data())
        }
    }
}

@Suite struct WebSignInTests {
    static let keyA = try! SessionKeyring.Key(id: "web-1", key: SymmetricKey(size: .bits256))
    static let keyB = try! SessionKeyring.Key(id: "web-2", key: SymmetricKey(size: .bits256))

    static func descriptor(id: String, host: String, responseMode: String = "query") -> String {
        """
        schema_version: 1
        id: \(id)
        display_name: \(id.capitalized) <Accounts>
        protocol: oidc
        issuer: https://\(host)
        endpoints:
          authorization: https://\(host)/authorize
          token: https://\(host)/token
          jwks: https://\(host)/jwks
          userinfo: https://\(host)/userinfo
        scopes:
          default: [openid, profile, read]
        authorization:
          response_mode: \(responseMode)
        security:
          nonce: true
          iss_parameter: if_present
        resources:
          - scope: read
            title: Reports
            url: https://api.\(host)/reports
          - scope: admin
            title: Admin
            url: https://api.\(host)/admin
        """
    }

    struct Fixture {
        let web: WebSignIn
        let providers: [String: SimulatedProvider]
        let clock: MovableClock
        let signIns: SignInLog
    }

    final class SignInLog: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [WebSignInResult] = []
        func append(_ result: WebSignInResult) { lock.withLock { results.append(result) } }
        var all: [WebSignInResult] { lock.withLock { results } }
    }

    /// Two simulated providers (`alpha`, `beta`) behind one transport that routes by host.
    func fixture(origin: String = "http://localhost:8080", keyring: SessionKeyring? = nil, responseMode: String = "query") throws -> Fixture {
        let alpha = SimulatedProvider(issuer: "https://alpha.example")
        let beta = SimulatedProvider(issuer: "https://beta.example")
        struct HostRouter: HTTPTransport {
            let byHost: [String: SimulatedProvider]
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                try await byHost[request.url.host ?? ""]!.send(request)
            }
        }
        let descriptors = try [("alpha", "alpha.example"), ("beta", "beta.example")].map { id, host in
            try #require(DescriptorDocument.parse(Data(Self.descriptor(id: id, host: host, responseMode: responseMode).utf8), path: "\(id).yaml").descriptor)
        }
        let clock = MovableClock()
        let web = try WebSignIn(registry: ProviderRegistry(descriptors), enable: [
            "alpha": .init(clientID: "web-client"), "beta": .init(clientID: "web-client"),
        ], origin: URL(string: origin)!, keyring: keyring ?? SessionKeyring(current: Self.keyA), environment: OAuthEnvironment(transport: HostRouter(byHost: ["alpha.example": alpha, "beta.example": beta]), clock: clock))
        return Fixture(web: web, providers: ["alpha": alpha, "beta": beta], clock: clock, signIns: SignInLog())
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    func application(_ fixture: Fixture) -> some ApplicationProtocol {
        let router = Router()
        let log = fixture.signIns
        router.addSignInRoutes(fixture.web) { result, _, _ in
            log.append(result)
            return Response(status: .seeOther, headers: [.location: result.returnTo])
        }
        return Application(router: router)
    }

    /// What a started flow handed the browser.
    struct Started {
        let location: String
        let state: String
        let cookieName: String
        let cookieValue: String
        let setCookie: String
    }

    func start(_ client: some TestClientProtocol, _ provider: String, returnTo: String? = nil) async throws -> Started {
        let query = returnTo.map { "?return_to=" + FormEncoding.encode($0) } ?? ""
        return try await client.execute(uri: "/auth/\(provider)\(query)", method: .get) { response in
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            let setCookie = try #require(response.headers[.setCookie])
            let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
            let pair = try #require(setCookie.split(separator: ";").first)
            let equals = try #require(pair.firstIndex(of: "="))
            return Started(location: location, state: state, cookieName: String(pair[..<equals]),
                           cookieValue: String(pair[pair.index(after: equals)...]), setCookie: setCookie)
        }
    }

    /// The provider "redirects back": GETs the callback with the flow's cookie.
    func callback(_ client: some TestClientProtocol, _ provider: String, query: String, cookie: String?) async throws -> (HTTPResponse.Status, String, HTTPFields) {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: "/auth/\(provider)/callback?\(query)", method: .get, headers: headers) { response in
            (response.status, String(buffer: response.body), response.headers)
        }
    }

    func code(in page: String) -> String? {
        guard let range = page.range(of: "data-code=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aSignInRunsFromThePageToTheHostsHook() async throws {
        let fixture = try fixture()
        try await application(fixture).test(.router) { client in
            let page = try await client.execute(uri: "/auth", method: .get) { String(buffer: $0.body) }
            #expect(page.contains(#"<a class="provider" href="/auth/alpha">Sign in with Alpha &lt;Accounts&gt;</a>"#), "\(page)")
            #expect(page.contains("Sign in with Beta"))

            let started = try await start(client, "alpha", returnTo: "/account?tab=1")
            #expect(started.location.hasPrefix("https://alpha.example/authorize?"))
            #expect(started.location.contains("code_challenge_method=S256") && started.location.contains("nonce="))
            #expect(started.location.contains("redirect_uri=http://localhost:8080/auth/alpha/callback")
                || started.location.contains("redirect_uri=http%3A%2F%2Flocalhost%3A8080%2Fauth%2Falpha%2Fcallback"), "\(started.location)")
            #expect(started.cookieName.hasPrefix("oauthflow_flow_"))
            #expect(started.setCookie.contains("HttpOnly") && started.setCookie.contains("SameSite=Lax"))
            #expect(started.setCookie.contains("Path=/auth/alpha/callback") && started.setCookie.contains("Max-Age=600"))
            #expect(!started.setCookie.contains("Secure"), "plain http is only allowed on loopback, where Secure cookies would be dropped")
            #expect(!started.cookieValue.contains(started.state), "the state is sealed, not readable")

            fixture.providers["alpha"]!.authorize(started.location, code: "code-1")
            let (status, _, headers) = try await callback(client, "alpha", query: "code=code-1&state=\(started.state)&iss=https%3A%2F%2Falpha.example",
                                                          cookie: "\(started.cookieName)=\(started.cookieValue); sessionid=dot")
            #expect(status == .seeOther)
            #expect(headers[.location] == "/account?tab=1")
            #expect(headers[values: .setCookie].contains { $0.hasPrefix("\(started.cookieName)=;") && $0.contains("Max-Age=0") },
                    "the pending cookie is deleted")
            let result = try #require(fixture.signIns.all.first)
            #expect(result.providerID == "alpha")
            #expect(result.subject == "user-42")
            #expect(result.idToken?.all["name"]?.stringValue == "Ada Lovelace")
            #expect(result.claims["picture"]?.stringValue == "https://example.com/ada.png", "userinfo completes the ID token")
            #expect(result.resources.map(\.title) == ["Reports"], "only the granted scope's resources")
            #expect(result.tokens.accessToken.value == "at-code-1")
            #expect(result.profile == UserProfile(subject: "user-42", name: "Ada Lovelace", email: "ada@example.com", emailVerified: true,
                                                  picture: "https://example.com/ada.png"), "ID token and userinfo fill one profile")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aRefusedCodeIsToldApartFromAnUnreachableProvider() async throws {
        let fixture = try fixture()
        let alpha = fixture.providers["alpha"]!
        try await application(fixture).test(.router) { client in
            // The provider does not know the code: its token endpoint answers `invalid_grant`.
            let refused = try await start(client, "alpha")
            let (status, page, _) = try await callback(client, "alpha", query: "code=unknown&state=\(refused.state)&iss=https%3A%2F%2Falpha.example",
                                                       cookie: "\(refused.cookieName)=\(refused.cookieValue)")
            #expect(status == .forbidden)
            #expect(code(in: page) == "exchange_refused", "\(page)")
            #expect(page.contains("refused") && page.contains("invalid_grant") && !page.contains("could not be reached"), "\(page)")

            // The token endpoint cannot be reached at all.
            alpha.unreachable = true
            let started = try await start(client, "alpha")
            alpha.authorize(started.location, code: "good")
            let (downStatus, downPage, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)&iss=https%3A%2F%2Falpha.example",
                                                               cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(downStatus == .badGateway)
            #expect(code(in: downPage) == "provider_unavailable", "\(downPage)")
            #expect(downPage.contains("could not be reached"), "\(downPage)")
            #expect(fixture.signIns.all.isEmpty)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func everyRejectionHasItsPageAndSendsNothing() async throws {
        let fixture = try fixture()
        let alpha = fixture.providers["alpha"]!
        try await application(fixture).test(.router) { client in
            let started = try await start(client, "alpha")
            alpha.authorize(started.location, code: "good")
            let cookie = "\(started.cookieName)=\(started.cookieValue)"

            // No cookie: the flow was not started in this browser.
            var (status, page, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)", cookie: nil)
            #expect(status == .badRequest && code(in: page) == "no_pending_sign_in", "\(page)")

            // A tampered cookie: one character of the sealed part changed.
            var tampered = Array(started.cookieValue)
            let index = tampered.count - 5
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            (status, page, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)",
                                                   cookie: "\(started.cookieName)=\(String(tampered))")
            #expect(status == .badRequest && code(in: page) == "tampered", "\(page)")

            // Another flow's cookie under this flow's name (swapped between flows) does not open either.
            let other = try await start(client, "alpha")
            (status, page, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)",
                                                   cookie: "\(started.cookieName)=\(other.cookieValue)")
            #expect(code(in: page) == "tampered", "\(page)")

            // A wrong state finds no cookie; no state at all is refused.
            (status, page, _) = try await callback(client, "alpha", query: "code=good&state=forged", cookie: cookie)
            #expect(code(in: page) == "no_pending_sign_in")
            (status, page, _) = try await callback(client, "alpha", query: "code=good", cookie: cookie)
            #expect(code(in: page) == "state_mismatch")

            // Mix-up: the callback claims another issuer (RFC 9207).
            (status, page, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)&iss=https%3A%2F%2Fbeta.example",
                                                   cookie: cookie)
            #expect(code(in: page) == "issuer_mismatch", "\(page)")

            // A flow started at alpha, finished at beta's callback.
            (status, page, _) = try await callback(client, "beta", query: "code=good&state=\(started.state)", cookie: cookie)
            #expect(code(in: page) == "provider_mismatch", "\(page)")

            // The user declined at the provider.
            let declined = try await start(client, "alpha")
            (status, page, _) = try await callback(client, "alpha", query: "error=access_denied&state=\(declined.state)",
                                                   cookie: "\(declined.cookieName)=\(declined.cookieValue)")
            #expect(code(in: page) == "denied" && page.contains("cancelled"), "\(page)")

            // Unknown provider.
            (status, page, _) = try await callback(client, "gamma", query: "code=x&state=y", cookie: nil)
            #expect(status == .notFound && code(in: page) == "unknown_provider")
            #expect(alpha.tokenRequests == 0, "no rejected callback reached the token endpoint")

            // The good callback still works once, and a replay of it is refused.
            (status, _, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)", cookie: cookie)
            #expect(status == .seeOther)
            (status, page, _) = try await callback(client, "alpha", query: "code=good&state=\(started.state)", cookie: cookie)
            #expect(code(in: page) == "replayed", "\(page)")
            #expect(alpha.tokenRequests == 1)
            #expect(!page.contains(started.state) && !page.contains("good"), "the page echoes nothing of the request")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func hostileCallbacksGetAPageNotACrash() async throws {
        let fixture = try fixture()
        try await application(fixture).test(.router) { client in
            let started = try await start(client, "alpha")
            let cookie = "\(started.cookieName)=\(started.cookieValue)"
            let junk = [
                String(repeating: "A", count: 100_000),                                     // an endless-looking cookie value
                "v1.web-1." + String(repeating: "_", count: 3000),                          // base64url of nothing useful
                "v1.\u{1B}[31m.\u{202E}",                                                   // control and bidi characters
                "v1..", "", ".", "v2.web-1.AAAA",
            ]
            for value in junk {
                let (status, page, _) = try await callback(client, "alpha", query: "code=x&state=\(started.state)",
                                                           cookie: "\(started.cookieName)=\(value)")
                #expect(status == .badRequest && code(in: page) == "tampered", "\(value.prefix(40).debugDescription): \(page.prefix(200))")
            }
            // A state full of control characters, and a 100 KB query, find no cookie and say so.
            var (status, page, _) = try await callback(client, "alpha", query: "code=x&state=%1B%5B31m%0A%E2%80%AE", cookie: cookie)
            #expect(code(in: page) == "no_pending_sign_in")
            (status, page, _) = try await callback(client, "alpha", query: "code=" + String(repeating: "x", count: 100_000) + "&state=\(started.state)",
                                                   cookie: cookie)
            #expect(status == .badRequest || status == .forbidden, "\(status)")
            // A form_post body over 64 KiB is not read.
            var headers = HTTPFields()
            headers[.cookie] = cookie
            headers[.contentType] = "application/x-www-form-urlencoded"
            let posted = try await client.execute(uri: "/auth/alpha/callback", method: .post, headers: headers,
                                                  body: ByteBuffer(string: "state=\(started.state)&code=" + String(repeating: "y", count: 200_000))) { $0.status }
            #expect(posted == .contentTooLarge, "\(posted)")
            #expect(fixture.providers["alpha"]!.tokenRequests <= 1)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anExpiredPendingSignInIsRefused() async throws {
        let fixture = try fixture()
        try await application(fixture).test(.router) { client in
            let started = try await start(client, "alpha")
            fixture.providers["alpha"]!.authorize(started.location, code: "late")
            fixture.clock.advance(601)
            let (status, page, _) = try await callback(client, "alpha", query: "code=late&state=\(started.state)",
                                                       cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(status == .badRequest && code(in: page) == "expired", "\(page)")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func returnPathsStayOnTheSite() async throws {
        for refused in ["https://evil.example/", "//evil.example", "/\\evil.example", "/%2F%2Fevil.example", "/%5cevil", "javascript:alert(1)",
                        "relative", "/a\nb", "/\u{7F}", "/é", String(repeating: "/a", count: 600), ""] {
            #expect(ReturnPath.accept(refused) == "/", "\(refused.debugDescription)")
        }
        for kept in ["/", "/account", "/a/b?c=d&e=%2F", "/reports#top"] {
            #expect(ReturnPath.accept(kept) == kept)
        }
        let fixture = try fixture()
        try await application(fixture).test(.router) { client in
            let started = try await start(client, "beta", returnTo: "https://evil.example/steal")
            fixture.providers["beta"]!.authorize(started.location, code: "c")
            let (_, _, headers) = try await callback(client, "beta", query: "code=c&state=\(started.state)",
                                                     cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(headers[.location] == "/")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func cookiesAreSecureOffLoopbackAndCrossSiteForFormPost() async throws {
        let fixture = try fixture(origin: "https://app.example.com", responseMode: "form_post")
        try await application(fixture).test(.router) { client in
            let started = try await start(client, "alpha")
            #expect(started.setCookie.contains("; Secure"))
            #expect(started.setCookie.contains("SameSite=None"), "a form_post callback is a cross-site POST")
            fixture.providers["alpha"]!.authorize(started.location, code: "posted")
            var headers = HTTPFields()
            headers[.cookie] = "\(started.cookieName)=\(started.cookieValue)"
            headers[.contentType] = "application/x-www-form-urlencoded"
            let status = try await client.execute(uri: "/auth/alpha/callback", method: .post, headers: headers,
                                                   body: ByteBuffer(string: "code=posted&state=\(started.state)")) { $0.status }
            #expect(status == .seeOther)
            #expect(fixture.signIns.all.first?.subject == "user-42")
        }
        #expect(throws: WebSignInError.self) {
            try WebSignIn(providers: [], origin: URL(string: "http://app.example.com")!, keyring: SessionKeyring(current: Self.keyA))
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func pendingCookiesSurviveAKeyRotationAndOpenOnAnotherInstance() async throws {
        let first = try fixture(keyring: SessionKeyring(current: Self.keyA))
        let started = try await application(first).test(.router) { client in try await start(client, "alpha") }
        // Another instance, already rotated to a new key, keeps the old one for reading.
        let second = try fixture(keyring: SessionKeyring(current: Self.keyB, previous: [Self.keyA]))
        second.providers["alpha"]!.authorize(started.location, code: "elsewhere")
        try await application(second).test(.router) { client in
            let (status, page, _) = try await callback(client, "alpha", query: "code=elsewhere&state=\(started.state)",
                                                       cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(status == .seeOther, "\(page)")
        }
        // An instance without that key refuses it.
        let third = try fixture(keyring: SessionKeyring(current: Self.keyB))
        try await application(third).test(.router) { client in
            let (_, page, _) = try await callback(client, "alpha", query: "code=x&state=\(started.state)",
                                                  cookie: "\(started.cookieName)=\(started.cookieValue)")
            #expect(code(in: page) == "tampered")
        }
    }
}
