import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's own requests (issue 56 item 13), sent through a scripted session standing in for the app's URLSession,
/// with the session's tokens from a simulated provider.
@Suite struct URLRequestAuthorizerTests {
    let api = URL(string: "https://api.example.com/notes")!

    /// What the scripted API saw.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [URLRequest] = []
        func append(_ request: URLRequest) { lock.withLock { requests.append(request) } }
        var all: [URLRequest] { lock.withLock { requests } }
    }

    /// An API that answers each request with `answer`.
    static func session(
        _ seen: Seen, _ answer: @escaping @Sendable (URLRequest, Int) -> (Int, [String: String], Data)
    ) -> @Sendable (URLRequest) async throws -> (Data, URLResponse) {
        { request in
            seen.append(request)
            let (status, headers, body) = answer(request, seen.all.count)
            let url = try #require(request.url)
            let response = try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
            return (body, response)
        }
    }

    func signedIn(_ options: SimulatedProvider.DescriptorOptions = .init()) async throws -> (SimulatedProvider, TokenManager, StoredSession) {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: Date(timeIntervalSince1970: 1_900_000_000)))
        if options.bindsTokensWithDPoP { await simulated.configure { $0.requiresDPoP = true } }
        let client = try Simulated.appClient(simulated, options)
        let store = InMemoryTokenStore()
        let session = try await Simulated.session(client, at: simulated, in: store)
        return (simulated, TokenManager(client: client, store: store, key: session.key), session)
    }

    @Test func aBearerTokenIsAddedAndTheBodyIsNotCapped() async throws {
        let (_, manager, session) = try await signedIn()
        let seen = Seen()
        let big = Data(repeating: 0x61, count: 3 << 20)
        let authorizer = URLRequestAuthorizer(manager, clock: SystemDateClock(), send: Self.session(seen) { _, _ in (200, [:], big) })
        let (data, response) = try await authorizer.data(for: URLRequest(url: api))
        #expect(response.statusCode == 200 && data == big, "3 MiB arrive whole")
        #expect(seen.all.first?.value(forHTTPHeaderField: "Authorization") == "Bearer \(session.tokens.accessToken.value)")
        #expect(seen.all.first?.value(forHTTPHeaderField: "DPoP") == nil)
        let authorized = try await authorizer.authorize(URLRequest(url: api))
        #expect(authorized.value(forHTTPHeaderField: "Authorization") == "Bearer \(session.tokens.accessToken.value)")
    }

    @Test func a401InvalidTokenRefreshesOnceAndRetriesOnce() async throws {
        let (simulated, manager, session) = try await signedIn()
        let seen = Seen()
        let stale = "Bearer \(session.tokens.accessToken.value)"
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(),
            send: Self.session(seen) { request, _ in
                request.value(forHTTPHeaderField: "Authorization") == stale
                    ? (401, ["WWW-Authenticate": #"Bearer realm="api", error="invalid_token", error_description="revoked""#], Data())
                    : (200, [:], Data("ok".utf8))
            })
        let exchanges = await simulated.requestCount(.token)
        let (data, response) = try await authorizer.data(for: URLRequest(url: api))
        #expect(response.statusCode == 200 && data == Data("ok".utf8))
        #expect(seen.all.count == 2)
        #expect(await simulated.requestCount(.token) == exchanges + 1)
    }

    @Test func aPersistent401IsReturnedAfterOneRetry() async throws {
        let (simulated, manager, _) = try await signedIn()
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(), send: Self.session(seen) { _, _ in (401, ["WWW-Authenticate": "Bearer"], Data()) })
        let exchanges = await simulated.requestCount(.token)
        let (_, response) = try await authorizer.data(for: URLRequest(url: api))
        #expect(response.statusCode == 401)
        #expect(seen.all.count == 2)
        #expect(await simulated.requestCount(.token) == exchanges + 1)
    }

    @Test(arguments: [#"Bearer error="insufficient_scope", scope="notes.write""#, #"Bearer error="invalid_request""#])
    func a401ForAnotherReasonIsNotRefreshed(challenge: String) async throws {
        let (simulated, manager, _) = try await signedIn()
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(), send: Self.session(seen) { _, _ in (401, ["WWW-Authenticate": challenge], Data()) })
        let exchanges = await simulated.requestCount(.token)
        let (_, response) = try await authorizer.data(for: URLRequest(url: api))
        #expect(response.statusCode == 401 && seen.all.count == 1)
        #expect(await simulated.requestCount(.token) == exchanges)
    }

    @Test func aDPoPBoundSessionSendsAProofForTheMethodAndURLAndTheNonceTheAPIGives() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        let (simulated, manager, session) = try await signedIn(options)
        let key = try #require(session.tokens.proofKey)
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(),
            send: Self.session(seen) { request, count in
                count == 1
                    ? (401, ["WWW-Authenticate": #"DPoP error="use_dpop_nonce", error_description="nonce""#, "DPoP-Nonce": "nonce-1"], Data())
                    : (200, ["DPoP-Nonce": "nonce-2"], Data())
            })
        var request = URLRequest(url: URL(string: "https://api.example.com/notes/7?fields=title")!)
        request.httpMethod = "PUT"
        let exchanges = await simulated.requestCount(.token)
        let (_, response) = try await authorizer.data(for: request)
        #expect(response.statusCode == 200 && seen.all.count == 2)
        #expect(await simulated.requestCount(.token) == exchanges, "a nonce demand is not a refresh")
        for (sent, nonce) in zip(seen.all, [nil, "nonce-1"]) {
            #expect(sent.value(forHTTPHeaderField: "Authorization") == "DPoP \(session.tokens.accessToken.value)")
            let jws = try CompactJWS(try #require(sent.value(forHTTPHeaderField: "DPoP")))
            #expect(jws.claims["htm"] == .string("PUT") && jws.claims["htu"] == .string("https://api.example.com/notes/7"))
            #expect(jws.claims["nonce"]?.stringValue == nonce)
            guard case let .object(jwk)? = jws.header["jwk"] else {
                Issue.record("no jwk in the proof's header")
                continue
            }
            #expect(jwk["x"]?.stringValue == key.publicJWK["x"])
        }
        // The next request carries the API's latest nonce from the start.
        _ = try await authorizer.data(for: request)
        #expect(try CompactJWS(try #require(seen.all.last?.value(forHTTPHeaderField: "DPoP"))).claims["nonce"] == .string("nonce-2"))
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeAnythingIsSent() async throws {
        let (_, manager, _) = try await signedIn()
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(manager, clock: SystemDateClock(), send: Self.session(seen) { _, _ in (200, [:], Data()) })
        let error = try await #require(throws: FlowError.self) {
            try await authorizer.data(for: URLRequest(url: URL(string: "http://api.example.com/notes")!))
        }
        #expect(error.code == .insecureEndpoint && seen.all.isEmpty)
    }

    @Test func certificateBoundTokensAreNotSent() async throws {
        let store = InMemoryTokenStore()
        var session = sampleSession(expiresAt: Date().addingTimeInterval(3600))
        session.tokens.certificateThumbprint = "bound"
        session.clientID = SimulatedProvider.appClientID
        await store.save(session)
        let simulated = try SimulatedProvider()
        let manager = TokenManager(client: try Simulated.appClient(simulated), store: store, key: session.key)
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(manager, clock: SystemDateClock(), send: Self.session(seen) { _, _ in (200, [:], Data()) })
        let error = try await #require(throws: FlowError.self) { try await authorizer.data(for: URLRequest(url: api)) }
        #expect(error.code == .certificateBinding && seen.all.isEmpty)
    }

    @Test func aRedirectToAnotherOriginLosesTheToken() throws {
        var redirected = URLRequest(url: URL(string: "https://elsewhere.example.net/landing")!)
        redirected.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        redirected.setValue("proof", forHTTPHeaderField: "DPoP")
        let away = URLRequestAuthorizer.RedirectGuard.redirect(redirected, from: api)
        #expect(away.value(forHTTPHeaderField: "Authorization") == nil && away.value(forHTTPHeaderField: "DPoP") == nil)
        var same = redirected
        same.url = URL(string: "https://API.example.com:443/notes/moved")
        let kept = URLRequestAuthorizer.RedirectGuard.redirect(same, from: api)
        #expect(kept.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        same.url = URL(string: "http://api.example.com/notes/moved")
        #expect(URLRequestAuthorizer.RedirectGuard.redirect(same, from: api).value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test(arguments: [
        (#"Bearer realm="example", error="invalid_token", error_description="The access token expired""#, "Bearer", "invalid_token"),
        (#"DPoP algs="ES256", error="use_dpop_nonce""#, "DPoP", "use_dpop_nonce"),
        ("Bearer error=invalid_token", "Bearer", "invalid_token"),
        (#"Bearer realm="example", error_description="no error code""#, "Bearer", nil),
        ("Bearer", "Bearer", nil),
        // Each scheme's own error, whatever comes first (RFC 9110 §11.6.1; URLSession joins repeated lines with ", ").
        (#"Bearer error="invalid_token", DPoP algs="ES256", error="use_dpop_nonce""#, "DPoP", "use_dpop_nonce"),
        (#"DPoP error="use_dpop_nonce", Bearer realm="api", error="invalid_token""#, "Bearer", "invalid_token"),
        (#"Basic realm="x", error="invalid_token""#, "Bearer", nil),
        (#"dpop error="invalid_token""#, "DPoP", "invalid_token"),
    ] as [(String, String, String?)])
    func theChallengeOfTheTokensSchemeIsRead(header: String, scheme: String, error: String?) {
        #expect(URLRequestAuthorizer.challengeError(header, scheme: scheme) == error)
    }

    /// A DPoP-bound token's 401 that carries a Bearer `invalid_token` challenge before the DPoP `use_dpop_nonce` one is a
    /// nonce demand: retried with the nonce, not refreshed.
    @Test func aDPoPTokenAnswersTheDPoPChallengeNotTheFirstOne() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        let (simulated, manager, _) = try await signedIn(options)
        let seen = Seen()
        let challenge = #"Bearer realm="api", error="invalid_token", DPoP algs="ES256", error="use_dpop_nonce""#
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(),
            send: Self.session(seen) { _, count in
                count == 1 ? (401, ["WWW-Authenticate": challenge, "DPoP-Nonce": "nonce-1"], Data()) : (200, [:], Data())
            })
        let exchanges = await simulated.requestCount(.token)
        let (_, response) = try await authorizer.data(for: URLRequest(url: api))
        #expect(response.statusCode == 200 && seen.all.count == 2)
        #expect(await simulated.requestCount(.token) == exchanges, "a nonce demand is not a refresh")
        #expect(try CompactJWS(try #require(seen.all.last?.value(forHTTPHeaderField: "DPoP"))).claims["nonce"] == .string("nonce-1"))
    }

    /// A body given as a stream was read by the first send: the request is not sent again with what is left of it.
    @Test func aRequestWithAStreamBodyIsNotRetried() async throws {
        let (_, manager, _) = try await signedIn()
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(
            manager, clock: SystemDateClock(),
            send: Self.session(seen) { _, _ in (401, ["WWW-Authenticate": #"Bearer error="invalid_token""#], Data()) })
        var request = URLRequest(url: api)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("{\"title\":\"a note\"}".utf8))
        let (_, response) = try await authorizer.data(for: request)
        #expect(response.statusCode == 401 && seen.all.count == 1, "sent once, its 401 returned")
        // The same request with its body as data is retried.
        request.httpBodyStream = nil
        request.httpBody = Data("{}".utf8)
        _ = try await authorizer.data(for: request)
        #expect(seen.all.count == 3)
    }

    /// A 303 within the API's origin: the redirected GET carries a proof for itself, not the POST's.
    @Test func aRedirectWithinTheOriginGetsItsOwnDPoPProof() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        let (_, manager, session) = try await signedIn(options)
        let seen = Seen()
        let authorizer = URLRequestAuthorizer(manager, clock: SystemDateClock()) { request, redirects in
            seen.append(request)
            // The session follows a 303 to /notes/7 as a GET, the first request's headers copied.
            var next = request
            next.url = URL(string: "https://api.example.com/notes/7?view=full")
            next.httpMethod = "GET"
            next.httpBody = nil
            let followed = await redirects.reproved(URLRequestAuthorizer.RedirectGuard.redirect(next, from: request.url))
            seen.append(followed)
            let target = try #require(followed.url)
            let response = try #require(HTTPURLResponse(url: target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
            return (Data(), response)
        }
        var request = URLRequest(url: api)
        request.httpMethod = "POST"
        _ = try await authorizer.data(for: request)
        let (first, followed) = (seen.all[0], seen.all[1])
        #expect(followed.value(forHTTPHeaderField: "Authorization") == "DPoP \(session.tokens.accessToken.value)")
        let proof = try CompactJWS(try #require(followed.value(forHTTPHeaderField: "DPoP")))
        #expect(proof.claims["htm"] == .string("GET") && proof.claims["htu"] == .string("https://api.example.com/notes/7"))
        #expect(followed.value(forHTTPHeaderField: "DPoP") != first.value(forHTTPHeaderField: "DPoP"))
        // A guard that cannot make a proof drops the token with the stale proof.
        var stale = first
        stale.url = URL(string: "https://api.example.com/elsewhere")
        let dropped = await URLRequestAuthorizer.RedirectGuard().reproved(stale)
        #expect(dropped.value(forHTTPHeaderField: "DPoP") == nil && dropped.value(forHTTPHeaderField: "Authorization") == nil)
    }
}
