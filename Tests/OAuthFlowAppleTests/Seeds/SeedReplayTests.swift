import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlowApple

/// The three iOS apps this project grew from, replayed on Linux through the app sign-in by provider name: each
/// provider's bundled descriptor pointed at a `SimulatedProvider` set up as the provider documents, the user played
/// by ``ScriptedUser``. Each ends with the session in the keychain store (`KeychainTokenStore` over the in-memory
/// keychain that answers as Apple documents), a refresh after a 401 (`TokenManager.perform`), and the user cancelling
/// once.
@Suite struct SeedReplayTests {
    // MARK: - Kodeco: Google, an iOS client, PKCE, access_type=offline

    /// The Kodeco tutorial's MyGoogleInfo: Google's iOS client (no secret), the reversed client id as the scheme,
    /// `access_type=offline` for a refresh token, the keychain and "refresh on 401" it left as exercises.
    @Test func kodecosGoogleSignIn() async throws {
        let clientID = "1234-abc.apps.googleusercontent.com"
        let redirect = URL(string: "com.googleusercontent.apps.1234-abc:/oauth2redirect")!
        let simulated = try SimulatedProvider(
            issuer: URL(string: "https://accounts.google.com")!, clients: [.public(id: clientID, redirectURIs: [redirect])])
        let seed = try SeedProvider("google-ios", at: simulated)
        defer { seed.cleanUp() }
        let store = KeychainTokenStore.testing(InMemoryKeychain(), service: "com.alessandrodn.MyGoogleInfo.oauthflow")
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [seed.directory], clients: ["google-ios": ClientSettings(clientID: clientID)], store: store,
                environment: simulated.environment))
        let user = ScriptedUser(simulated, moves: [.cancel, .approve(subject: "110169484474386276334")])

        // The user closes the sheet once: the code a host switches on, nothing stored.
        let cancelled = try await #require(throws: FlowError.self) {
            try await oauth.signIn(to: "google-ios", authenticator: user, bundleIdentifier: "com.alessandrodn.MyGoogleInfo")
        }
        #expect(cancelled.code == .cancelled)
        #expect(try await store.load(SessionKey(providerID: "google-ios")) == nil)

        let result = try await oauth.signIn(to: "google-ios", authenticator: user, bundleIdentifier: "com.alessandrodn.MyGoogleInfo")
        let sheet = try #require(user.sheets.last)
        #expect(sheet.callback == .customScheme("com.googleusercontent.apps.1234-abc"))
        let query = Dictionary((URLComponents(url: sheet.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) {
            first, _ in first
        }
        #expect(query["access_type"] == "offline" && query["redirect_uri"] == redirect.absoluteString && query["code_challenge_method"] == "S256")
        #expect(result.idToken?.subject == "110169484474386276334")
        let stored = try #require(try await store.load(SessionKey(providerID: "google-ios")))
        #expect(stored.tokens.refreshToken != nil && stored.clientAuthentication == ProviderDescriptor.ClientAuthMethod.none)

        // The People API answers 401 once (the token revoked, or expired early): one refresh, then the call again.
        try await Self.refreshAfter401(oauth, "google-ios", simulated)
    }

    // MARK: - Cloudentity: its own scheme, an ephemeral session, scopeData.json buttons

    /// Cloudentity's iOS sample: a public client with PKCE, the sample's custom-scheme redirect
    /// `oauth://com.example.simple-pkce`, an ephemeral browser session, and the `scopeData.json` buttons of the
    /// granted scopes, which call the resources with the access token.
    @Test func cloudentitysSampleSignIn() async throws {
        let redirect = URL(string: "oauth://com.example.simple-pkce")!
        let simulated = try SimulatedProvider(
            issuer: URL(string: "https://acme.us.authz.cloudentity.io/acme/demo")!,
            clients: [
                .public(id: "c0ffee", redirectURIs: [redirect]),
                .confidential(id: SimulatedProvider.serviceClientID, secret: SimulatedProvider.serviceSecret),
            ])
        let seed = try SeedProvider("cloudentity", at: simulated, copying: ["cloudentity-scopeData.json"])
        defer { seed.cleanUp() }
        let store = KeychainTokenStore.testing(InMemoryKeychain(), service: "com.example.simple-pkce.oauthflow")
        // The sample's resources, protected: a call carries a live access token of the provider, or gets a 401.
        let resources = ResourceServer(base: simulated.transport, simulated: simulated)
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [seed.directory],
                clients: [
                    "cloudentity": ClientSettings(
                        clientID: "c0ffee", variables: ["tenant": "acme", "region": "us", "workspace": "demo", "app_scheme": "oauth"])
                ],
                store: store, environment: OAuthEnvironment(transport: resources, clock: simulated.clock, nonces: simulated.nonces)))
        let user = ScriptedUser(simulated, moves: [.approve(subject: "ada"), .cancel])

        let result = try await oauth.signIn(
            to: "cloudentity", authenticator: user, prefersEphemeral: true, bundleIdentifier: "com.example.simple-pkce")
        let sheet = try #require(user.sheets.first)
        #expect(sheet.redirectURI == redirect && sheet.callback == .customScheme("oauth") && sheet.prefersEphemeral)
        #expect(result.tokens.scopes.sorted() == ["email", "offline_access", "openid", "profile"])

        // scopeData.json: a button for each granted scope it lists (phone is not granted).
        let buttons = try oauth.provider("cloudentity").resources.resources(granted: result.tokens.scopes)
        #expect(buttons.map(\.title).sorted() == ["Balance", "Some name", "Transfer"])
        let balance = try #require(buttons.first { $0.title == "Balance" })
        #expect(balance.url.absoluteString == "http://localhost:8080/banking/balance")
        // Docs/apple.md's buttons, as written there: each call goes out with the live access token.
        try await AppleSignInDocExamples.buttons(oauth: oauth, result: result)
        #expect(resources.calls == 3 && resources.refusals == 0)

        // The access token is revoked at the provider: the button's call gets a 401, refreshes once, and goes through.
        let manager = try await oauth.session("cloudentity")
        let first = try await manager.validTokens().accessToken
        try await OAuthClient(
            provider: try oauth.provider("cloudentity"), configuration: ClientConfiguration(clientID: "c0ffee", redirectURI: nil),
            environment: simulated.environment
        ).revoke(first, kind: .accessToken)
        let answer = try await manager.perform(TransportRequest(method: .get, url: balance.url))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(resources.refusals == 1)
        #expect(try await store.load(SessionKey(providerID: "cloudentity"))?.tokens.accessToken != first)

        // Signing in again, the user closes the sheet: cancelled, and the stored session stays.
        let cancelled = try await #require(throws: FlowError.self) {
            try await oauth.signIn(to: "cloudentity", authenticator: user, prefersEphemeral: true, bundleIdentifier: "com.example.simple-pkce")
        }
        #expect(cancelled.code == .cancelled)
        #expect(try await store.load(SessionKey(providerID: "cloudentity")) != nil)
    }

    // MARK: - Auth0: JSON token bodies, state, userinfo, the iOS callback forms

    /// The Auth0 article: `/authorize` with `state`, `/oauth/token` with a JSON body, `/userinfo` with the Bearer
    /// token; the callback is Auth0's documented iOS form, `{bundle}://{domain}/ios/{bundle}/callback`, and on iOS 17.4
    /// the https one.
    @Test func auth0sArticleSignIn() async throws {
        let bundle = "com.example.MyApp"
        let custom = URL(string: "\(bundle)://example.us.auth0.com/ios/\(bundle)/callback")!
        let link = URL(string: "https://example.us.auth0.com/ios/\(bundle)/callback")!
        let simulated = try SimulatedProvider(
            issuer: URL(string: "https://example.us.auth0.com/")!, clients: [.public(id: "AbCdEf", redirectURIs: [custom, link])])
        let seed = try SeedProvider("auth0", at: simulated)
        defer { seed.cleanUp() }
        let tokenURL = URL(string: "https://example.us.auth0.com/token")!
        let json = JSONTokenBodies(base: simulated.transport, tokenURL: tokenURL)
        let store = KeychainTokenStore.testing(InMemoryKeychain(), service: "com.example.MyApp.oauthflow")
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [seed.directory], clients: ["auth0": ClientSettings(clientID: "AbCdEf", variables: ["domain": "example.us.auth0.com"])],
                store: store, environment: OAuthEnvironment(transport: json, clock: simulated.clock, nonces: simulated.nonces)))
        let user = ScriptedUser(simulated, moves: [.approve(subject: "auth0|ada"), .cancel, .approve(subject: "auth0|ada")])

        let result = try await oauth.signIn(to: "auth0", authenticator: user, bundleIdentifier: bundle)
        let sheet = try #require(user.sheets.first)
        #expect(sheet.redirectURI == custom && sheet.callback == .customScheme(bundle))
        #expect(URLComponents(url: sheet.url, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "state" } == true)
        let exchange = try #require(json.bodies.first)
        #expect(exchange["grant_type"]?.stringValue == "authorization_code" && exchange["redirect_uri"]?.stringValue == custom.absoluteString)
        #expect(exchange["code_verifier"] != nil && exchange["client_id"]?.stringValue == "AbCdEf")
        #expect(result.profile?.subject == "auth0|ada")

        // userinfo with the Bearer token, refreshed once after a 401.
        try await Self.refreshAfter401(oauth, "auth0", simulated)
        #expect(json.bodies.count == 2 && json.bodies.last?["grant_type"]?.stringValue == "refresh_token")

        // The user cancels once; then signs in with the universal link (iOS 17.4, macOS 14.4).
        let cancelled = try await #require(throws: FlowError.self) {
            try await oauth.signIn(to: "auth0", authenticator: user, redirect: .claimedHTTPS, bundleIdentifier: bundle)
        }
        #expect(cancelled.code == .cancelled)
        let again = try await oauth.signIn(to: "auth0", authenticator: user, redirect: .claimedHTTPS, bundleIdentifier: bundle)
        #expect(again.session.redirectURI == link)
        #expect(user.sheets.last?.callback == .https(host: "example.us.auth0.com", path: "/ios/\(bundle)/callback"))
    }

    // MARK: - What the seeds share

    /// The provider's userinfo answers 401 `invalid_token` once: `perform` refreshes once and sends again.
    static func refreshAfter401(_ oauth: OAuth, _ name: String, _ simulated: SimulatedProvider) async throws {
        let manager = try await oauth.session(name)
        let before = try await manager.session().tokens
        let refreshes = await simulated.requestCount(.token)
        await simulated.failNext(.userinfo, error: "invalid_token")
        let userinfo = simulated.issuer.appendingPathComponent("userinfo")
        let answer = try await manager.perform(TransportRequest(method: .get, url: userinfo))
        #expect(answer.status == 200, "\(name): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(await simulated.requestCount(.token) == refreshes + 1, "\(name): one refresh")
        let after = try #require(try await oauth.store.load(SessionKey(providerID: name))).tokens
        #expect(after.accessToken != before.accessToken && after.refreshToken != nil, "\(name): the refreshed session is stored")
    }
}

/// Auth0's `/oauth/token` takes JSON bodies (the article sends them, `token_request.body_encoding: json`); the stand-in
/// reads forms. This checks each token request is a JSON object, keeps it, and hands the stand-in the same parameters.
final class JSONTokenBodies: HTTPTransport {
    let base: any HTTPTransport
    let tokenURL: URL
    private let seen = Locked<[[String: JSONValue]]>([])

    init(base: any HTTPTransport, tokenURL: URL) {
        self.base = base
        self.tokenURL = tokenURL
    }

    var bodies: [[String: JSONValue]] { seen.current }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url == tokenURL else { return try await base.send(request) }
        let type = request.headers.first { $0.key.lowercased() == "content-type" }?.value ?? ""
        guard type.hasPrefix("application/json"), let object = try? JSONDecoder().decode([String: JSONValue].self, from: request.body ?? Data())
        else {
            return TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_request"}"#.utf8))
        }
        seen.withLock { $0.append(object) }
        var form = request
        form.headers = request.headers.filter { $0.key.lowercased() != "content-type" }
        form.headers["Content-Type"] = "application/x-www-form-urlencoded"
        form.body = Data(FormEncoding.encode(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value.stringValue ?? "") }).utf8)
        return try await base.send(form)
    }
}

/// The Cloudentity sample's resources (`http://localhost:8080/...` in scopeData.json), protected: a request with a
/// Bearer token the provider says is live (RFC 7662 introspection) gets 200; any other a 401 `invalid_token`.
final class ResourceServer: HTTPTransport {
    let base: any HTTPTransport
    let simulated: SimulatedProvider
    private let refused = Locked(0)
    private let answered = Locked(0)

    init(base: any HTTPTransport, simulated: SimulatedProvider) {
        self.base = base
        self.simulated = simulated
    }

    var refusals: Int { refused.current }
    var calls: Int { answered.current }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url.host == "localhost", request.url.port == 8080 else { return try await base.send(request) }
        answered.withLock { $0 += 1 }
        let authorization = request.headers.first { $0.key.lowercased() == "authorization" }?.value ?? ""
        if authorization.hasPrefix("Bearer "), try await Simulated.isActive(Secret(String(authorization.dropFirst(7))), at: simulated) {
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"balance":"42.00"}"#.utf8))
        }
        refused.withLock { $0 += 1 }
        return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#], body: Data())
    }
}
