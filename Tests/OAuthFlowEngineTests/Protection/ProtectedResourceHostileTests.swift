import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

extension Protection {
    /// ``ProtectedResource`` against JWKS endpoints that stall, flood or serve too much, tokens too large
    /// to read, crowds of requests, and introspection endpoints that fail: never an acceptance, never a
    /// request per request, and always an answer within a bound.
    @Suite struct ProtectedResourceHostileTests {
        let clock = StoppedClock()
        let key: ProtectionKey

        init() async throws {
            key = try await .es256("es-1")
        }

        func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] { ProtectionToken.claims(now: clock.now(), changes) }

        var seconds: Double { clock.now().timeIntervalSince1970.rounded(.down) }

        /// The API trusting one provider whose JWKS is at `jwks`.
        func api(jwks: String? = nil, transport: any HTTPTransport, settings: ProtectedResource.Settings = ProtectionSetup.settings()) throws
            -> ProtectedResource
        {
            try ProtectedResource(
                providers: [ProtectionSetup.provider(jwks: jwks, accessTokens: ["profile": "rfc9068"])], settings: settings, environment: OAuthEnvironment(transport: transport, clock: clock))
        }

        /// What an answer "within a bound" means here: far below what a hang would take (a silent server is silent for
        /// ever; the deadlines a test does not mean to reach are 600 s; a crowd served one by one waits 200 s for its
        /// 200 ms fetches), and far above what two cores shared by the whole suite ever took (an await has waited over
        /// 30 s there). Which limit ended a request is asserted from its refusal, not its time.
        static let hangBound: Duration = .seconds(90)

        /// How long `body` takes.
        func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
            let started = ContinuousClock.now
            let result = try await body()
            return (result, ContinuousClock.now - started)
        }

        // MARK: - JWKS endpoints that misbehave

        @Test func aSilentJWKSEndpointGives503WithinTheTransportsDeadline() async throws {
            let server = try HostileServer(.silent)
            defer { server.stop() }
            let api = try api(jwks: "http://127.0.0.1:\(server.port)/jwks", transport: DefaultHTTPTransport(timeout: 0.5))
            let token = try key.sign(claims())
            let (refusal, elapsed) = await timed { await denial(api, bearer: token) }
            expectRefused(refusal, .unavailable, status: 503, token: token)
            #expect(refusal?.headers.first { $0.name == "Retry-After" }?.value == "5")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
            // Many at once during the stall: each refused, together within the bound.
            let (refusals, together) = await timed {
                await withTaskGroup(of: ProtectedResource.Denial?.self) { group in
                    for _ in 0..<50 { group.addTask { await denial(api, bearer: token) } }
                    return await group.reduce(into: [ProtectedResource.Denial?]()) { $0.append($1) }
                }
            }
            #expect(refusals.allSatisfy { $0?.code == .unavailable })
            #expect(together < Self.hangBound, "\(together)")
        }

        @Test func aDrippingJWKSEndpointGives503WithinTheTransportsDeadline() async throws {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"keys\":["
            let server = try HostileServer(.drip(head: head, interval: .milliseconds(50)))
            defer { server.stop() }
            let api = try api(jwks: "http://127.0.0.1:\(server.port)/jwks", transport: DefaultHTTPTransport(timeout: 0.5))
            let token = try key.sign(claims())
            let (refusal, elapsed) = await timed { await denial(api, bearer: token) }
            expectRefused(refusal, .unavailable, status: 503, token: token)
            #expect(elapsed < Self.hangBound, "\(elapsed)")
        }

        @Test func aFloodingJWKSEndpointIsCutAtTheTransportsCap() async throws {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
            let server = try HostileServer(.endless(head: head, chunk: "{\"keys\":[" + String(repeating: " ", count: 0x4000)))
            defer { server.stop() }
            let api = try api(
                jwks: "http://127.0.0.1:\(server.port)/jwks", transport: DefaultHTTPTransport(timeout: 600, maximumResponseSize: 1 << 20))
            let token = try key.sign(claims())
            let (refusal, elapsed) = await timed { await denial(api, bearer: token) }
            expectRefused(refusal, .unavailable, status: 503, token: token)
            // The cap, not the deadline (600 s), ended it.
            #expect(refusal?.reason.contains("larger than the 1048576 bytes accepted") == true, "\(String(describing: refusal?.reason))")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
        }

        @Test func aJWKSDeclaringAnOversizedBodyIsRefusedBeforeReading() async throws {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n"
            let server = try HostileServer(.endless(head: head, chunk: String(repeating: " ", count: 0x4000)))
            defer { server.stop() }
            let api = try api(jwks: "http://127.0.0.1:\(server.port)/jwks", transport: DefaultHTTPTransport(timeout: 600))
            let token = try key.sign(claims())
            let (refusal, elapsed) = await timed { await denial(api, bearer: token) }
            expectRefused(refusal, .unavailable, status: 503, token: token)
            // Refused for the length it declares, before reading.
            #expect(refusal?.reason.contains("(Content-Length: 1073741824)") == true, "\(String(describing: refusal?.reason))")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
        }

        @Test(arguments: [
            (500, #"{"keys":[]}"#), (200, "<html>not json</html>"), (200, #"{"keyz":[]}"#), (200, #"{"keys":"none"}"#), (404, ""),
        ])
        func aJWKSEndpointThatAnswersWronglyGives503AndIsAskedAgain(_ status: Int, _ body: String) async throws {
            let server = ScriptedTransport { _, _ in
                TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            }
            let api = try api(transport: server)
            let token = try key.sign(claims())
            expectRefused(await denial(api, bearer: token), .unavailable, status: 503, token: token)
            expectRefused(await denial(api, bearer: token), .unavailable, status: 503, token: token)
            #expect(server.count("/jwks") == 2, "a failed fetch is not remembered as an empty set")
        }

        @Test func aJWKSWithoutTheKeyIsNoOutage() async throws {
            let server = InProcessAuthorizationServer()
            server.serve(#"{"keys":[]}"#, at: ProtectionToken.issuer + "/jwks")
            let api = try api(transport: server)
            let token = try key.sign(claims())
            expectRefused(await denial(api, bearer: token), .invalidToken, status: 401, token: token)
        }

        @Test func aJWKSOfTenThousandKeysIsReadOnlyToItsHundredth() async throws {
            // Ten thousand entries of the same public key under different names: only the first hundred are read.
            let entries = (0..<10_000).map { key.jwk(kid: "k\($0)") }
            let server = InProcessAuthorizationServer()
            server.serve(ProtectionToken.jwks(entries), at: ProtectionToken.issuer + "/jwks")
            let api = try api(transport: server, settings: ProtectionSetup.settings(keysRefetchInterval: 3600))
            let token = try key.sign(claims(), header: ["kid": .string("k42")])
            let (refusal, elapsed) = await timed { await denial(api, bearer: token) }
            expectAccepted(refusal)
            #expect(elapsed < Self.hangBound, "\(elapsed)")
            #expect(api.trusted[0].keys?.cached?.count == 100)
            #expect(api.trusted[0].keys?.cached?.contains(keyID: "k99") == true)
            #expect(api.trusted[0].keys?.cached?.contains(keyID: "k100") == false)
            let beyond = try key.sign(claims(), header: ["kid": .string("k5000")])
            // Its kid is unknown: at most one refetch, which reads the same first hundred.
            expectRefused(await denial(api, bearer: beyond), .invalidToken, status: 401, token: beyond)
            #expect(server.jwksFetches <= 2)
        }

        // MARK: - Tokens too large

        @Test func aTokenOfAMegabyteIsRefusedBeforeAnythingIsDecoded() async throws {
            let server = InProcessAuthorizationServer()
            server.serveKeys([key])
            let api = try api(transport: server)
            let header = try ProtectionToken.encode(["alg": .string("ES256"), "kid": .string(key.kid), "typ": .string("at+jwt")])
            let padding = String(repeating: "A", count: 1 << 20)
            let tokens = [padding, header + "." + padding + ".c2ln", header + "." + Base64URL.encode(Data(count: 1 << 20)) + ".c2ln"]
            for token in tokens {
                for scheme in ["Bearer", "DPoP"] {
                    let (refusal, elapsed) = await timed { await denial(api, ProtectedResource.Request(authorization: "\(scheme) \(token)")) }
                    let refused = try #require(refusal)
                    #expect([ProtectedResource.Denial.Code.invalidToken, .invalidRequest].contains(refused.code), "\(refused)")
                    #expect(refused.status == 401 || refused.status == 400)
                    #expect(!refused.headers.contains { $0.value.contains(padding.prefix(64)) })
                    // Refused for its size, so before anything of it was decoded.
                    #expect(refused.reason.contains("longer than \(ProtectedResource.maximumTokenSize) bytes"), "\(refused)")
                    #expect(elapsed < Self.hangBound, "\(elapsed)")
                }
            }
            #expect(server.jwksFetches == 0)
            // Just under the bound, a token is read (and refused for what it is, not its size).
            let large = String(repeating: "A", count: ProtectedResource.maximumTokenSize)
            let refusal = await denial(api, bearer: large)
            #expect(refusal?.code == .invalidToken)
            #expect(refusal?.reason.contains("longer") == false, "\(String(describing: refusal))")
        }

        @Test func aMegabyteOfAuthorizationHeadersIsRefused() async throws {
            let server = InProcessAuthorizationServer()
            server.serveKeys([key])
            let api = try api(transport: server)
            let token = try key.sign(claims())
            let (refusal, elapsed) = await timed {
                await denial(api, ProtectedResource.Request(authorization: Array(repeating: "Bearer \(token)", count: 4_000)))
            }
            expectRefused(refusal, .invalidRequest, status: 400, token: token)
            // Refused for their number, before any token of them was read.
            #expect(refusal?.reason == "the request carries 4000 Authorization headers", "\(String(describing: refusal))")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
            #expect(server.jwksFetches == 0)
        }

        // MARK: - Crowds

        @Test func aThousandUnknownKidsAtOnceCauseAtMostTwoFetches() async throws {
            let server = InProcessAuthorizationServer(delay: .milliseconds(200))
            server.serveKeys([key])
            let api = try api(transport: server)
            let header = { (kid: String) -> [String: JSONValue] in ["alg": .string("ES256"), "kid": .string(kid), "typ": .string("at+jwt")] }
            let tokens = try (0..<1_000).map { try ProtectionToken.unsigned(header: header("unknown-\($0)"), claims: claims()) }
            let (refusals, elapsed) = await timed {
                await withTaskGroup(of: ProtectedResource.Denial?.self) { group in
                    for token in tokens { group.addTask { await denial(api, bearer: token) } }
                    return await group.reduce(into: [ProtectedResource.Denial?]()) { $0.append($1) }
                }
            }
            #expect(refusals.count == 1_000)
            #expect(refusals.allSatisfy { $0?.code == .invalidToken }, "\(refusals.compactMap { $0?.code }.filter { $0 != .invalidToken }.prefix(3))")
            #expect(server.jwksFetches >= 1 && server.jwksFetches <= 2, "\(server.jwksFetches) fetches")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
            // Later, still within the refetch interval: no more fetches.
            for token in tokens.prefix(50) { _ = await denial(api, bearer: token) }
            #expect(server.jwksFetches <= 2)
            // The real key still works.
            expectAccepted(await denial(api, bearer: try key.sign(claims())))
        }

        @Test func aThousandUnknownKidsAfterTheRefetchIntervalCauseOneMoreFetch() async throws {
            let server = InProcessAuthorizationServer(delay: .milliseconds(20))
            server.serveKeys([key])
            let api = try api(transport: server)
            expectAccepted(await denial(api, bearer: try key.sign(claims())))
            expectRefused(
                await denial(api, bearer: try key.sign(claims(), header: ["kid": .string("first-unknown")])), .invalidToken, status: 401, token: nil)
            let before = server.jwksFetches
            #expect(before <= 2)
            clock.advance(31)
            let tokens = try (0..<1_000).map {
                try ProtectionToken.unsigned(header: ["alg": .string("ES256"), "kid": .string("u\($0)"), "typ": .string("at+jwt")], claims: claims())
            }
            await withTaskGroup(of: Void.self) { group in
                for token in tokens { group.addTask { _ = await denial(api, bearer: token) } }
            }
            #expect(server.jwksFetches == before + 1)
        }

        @Test func aThousandRequestsWithOneFreshTokenFetchTheJWKSOnce() async throws {
            let server = InProcessAuthorizationServer(delay: .milliseconds(200))
            server.serveKeys([key])
            let api = try api(transport: server)
            let token = try key.sign(claims())
            let (refusals, elapsed) = await timed {
                await withTaskGroup(of: ProtectedResource.Denial?.self) { group in
                    for _ in 0..<1_000 { group.addTask { await denial(api, bearer: token) } }
                    return await group.reduce(into: [ProtectedResource.Denial?]()) { $0.append($1) }
                }
            }
            #expect(refusals.count == 1_000)
            #expect(refusals.allSatisfy { $0 == nil }, "\(refusals.compactMap { $0 }.prefix(3))")
            #expect(server.jwksFetches == 1)
            #expect(elapsed < Self.hangBound, "\(elapsed)")
        }

        // MARK: - Introspection

        /// The API trusting one provider of opaque tokens, introspected at `introspection`.
        func introspectingAPI(
            _ transport: any HTTPTransport, introspection: String = ProtectionToken.issuer + "/introspect", accessTokens: [String: String] = [:]
        ) throws -> ProtectedResource {
            let provider = try ProtectionSetup.provider(
                introspection: introspection, accessTokens: accessTokens.merging(["format": "opaque"]) { old, _ in old },
                more: "client_auth:\n  methods: [client_secret_basic]\n")
            return try ProtectedResource(
                providers: [provider], settings: ProtectionSetup.settings(), introspectionClients: ["example": ProtectionSetup.introspectionClient], environment: OAuthEnvironment(transport: transport, clock: clock))
        }

        /// An active introspection answer for this API, changed by `changes`.
        func active(_ changes: [String: JSONValue?] = [:]) -> String {
            var answer: [String: JSONValue] = [
                "active": .bool(true), "iss": .string(ProtectionToken.issuer), "sub": .string("user-1"), "client_id": .string("client-1"),
                "scope": .string("notes:read"), "aud": .string(ProtectionToken.resource), "exp": .number(seconds + 600),
                "iat": .number(seconds), "token_type": .string("Bearer"),
            ]
            for (name, value) in changes { answer[name] = value }
            let data = try! JSONEncoder().encode(JSONValue.object(answer))
            return String(decoding: data, as: UTF8.self)
        }

        @Test func aThousandRequestsWithOneOpaqueTokenIntrospectItOnce() async throws {
            let server = InProcessAuthorizationServer(delay: .milliseconds(100))
            server.answerIntrospection(json: active())
            let api = try introspectingAPI(server)
            let token = "opaque-token-\(UUID().uuidString)"
            let refusals = await withTaskGroup(of: ProtectedResource.Denial?.self) { group in
                for _ in 0..<1_000 { group.addTask { await denial(api, bearer: token, requiring: ["notes:read"]) } }
                return await group.reduce(into: [ProtectedResource.Denial?]()) { $0.append($1) }
            }
            #expect(refusals.count == 1_000)
            #expect(refusals.allSatisfy { $0 == nil }, "\(refusals.compactMap { $0 }.prefix(3))")
            #expect(server.introspections == 1)
            let request = try #require(server.requests.first)
            #expect(request.method == .post)
            let form = String(decoding: request.body ?? Data(), as: UTF8.self)
            #expect(form.contains("token=\(token)") && form.contains("token_type_hint=access_token"))
            #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true, "the API authenticates as its own client")
            let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
            #expect(principal.source == .introspection && principal.subject == "user-1" && principal.scopes == ["notes:read"])
            #expect(server.introspections == 1)
        }

        /// An introspection answer that names no `aud` does not show the token is meant for this API: refused, unless
        /// the descriptor says this server's answers never name one, and then the principal says the audience went
        /// unchecked. An `aud` that is present must name the API either way (LemonLDAP::NG's answers have none).
        @Test func anIntrospectionAnswerWithoutAnAudienceIsRefusedUnlessTheDescriptorSaysSo() async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active(["aud": nil]))
            let strict = try introspectingAPI(server, accessTokens: ["introspection_cache": "0"])
            let refused = try #require(await denial(strict, bearer: "opaque-\(UUID().uuidString)"))
            #expect(refused.code == .invalidToken && refused.reason.contains("names no `aud`"), "\(refused.reason)")
            // The check that keeps the audience is named before the one that drops it (RFC 9068 §4; seen failing with
            // `may_be_absent` named alone).
            let both = try #require(refused.reason.range(of: "`access_tokens.format: both`"), "\(refused.reason)")
            #expect(both.lowerBound < (refused.reason.range(of: "may_be_absent")?.lowerBound ?? both.lowerBound), "\(refused.reason)")
            let lenient = try introspectingAPI(server, accessTokens: ["introspection_cache": "0", "introspected_audience": "may_be_absent"])
            let principal = try await lenient.authenticate(ProtectedResource.Request(authorization: "Bearer opaque-\(UUID().uuidString)"))
            #expect(!principal.isAudienceChecked && principal.audiences.isEmpty)
            server.answerIntrospection(json: active(["aud": .string("https://not-this-api.example")]))
            let other = try #require(await denial(lenient, bearer: "opaque-\(UUID().uuidString)"))
            #expect(other.reason.contains("`aud` lacks"), "\(other.reason)")
            server.answerIntrospection(json: active())
            let named = try await lenient.authenticate(ProtectedResource.Request(authorization: "Bearer opaque-\(UUID().uuidString)"))
            #expect(named.isAudienceChecked)
        }

        /// An opaque token whose random bytes decode to a `{` (one in 256 do; `e3` is base64url for `{`) is still an
        /// opaque token and introspected; only a three-part token with a JSON object first is an unreadable JWT.
        @Test(arguments: ["e30", "e3sidXNlciI6MX0", "e30.e30"])
        func anOpaqueTokenThatDecodesToABraceIsIntrospected(_ token: String) async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active())
            let api = try introspectingAPI(server)
            let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
            #expect(principal.source == .introspection && server.introspections == 1)
            let jwtShaped = await denial(api, bearer: "e30.e30.c2ln")
            #expect(jwtShaped?.code == .invalidToken && server.introspections == 1, "a three-part JSON token is a JWT that cannot be read")
        }

        /// The server's own words, echoing the token or the API's client secret, never reach the refusal's reason (which
        /// is logged and printed by `verify-token`).
        @Test(arguments: [400, 200, 500])
        func anIntrospectionErrorEchoingTheTokenOrTheSecretDoesNotCarryThem(status: Int) async throws {
            let server = InProcessAuthorizationServer()
            let token = "opaque-token-\(UUID().uuidString)"
            let secret = ProtectionSetup.introspectionClient.clientSecret?.value ?? ""
            let echo = #"{"error":"invalid_request","error_description":"token \#(token) from client with secret \#(secret) is malformed"}"#
            server.answerIntrospection(json: echo, status: status)
            let api = try introspectingAPI(server)
            let refusal = try #require(await denial(api, bearer: token))
            #expect(!refusal.reason.contains(token), "\(refusal.reason)")
            #expect(!refusal.reason.contains(secret), "\(refusal.reason)")
            #expect(!"\(refusal)".contains(token))
            if status != 200 { #expect(refusal.reason.contains("[redacted]"), "\(refusal.reason)") }
        }

        @Test func anActiveAnswerIsReusedUntilTheIntrospectionCacheEnds() async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active(["exp": .number(seconds + 600)]))
            let api = try introspectingAPI(server, accessTokens: ["introspection_cache": "60"])
            expectAccepted(await denial(api, bearer: "opaque-1"))
            clock.advance(59)
            expectAccepted(await denial(api, bearer: "opaque-1"))
            #expect(server.introspections == 1)
            clock.advance(1)
            expectAccepted(await denial(api, bearer: "opaque-1"))
            #expect(server.introspections == 2)
        }

        @Test func anActiveAnswerIsNeverReusedPastTheTokensExpiry() async throws {
            let server = InProcessAuthorizationServer()
            let expiry = seconds + 20
            server.answerIntrospection(json: active(["exp": .number(expiry)]))
            let api = try introspectingAPI(server, accessTokens: ["introspection_cache": "300", "leeway": "0"])
            expectAccepted(await denial(api, bearer: "opaque-2"))
            clock.advance(19)
            expectAccepted(await denial(api, bearer: "opaque-2"))
            #expect(server.introspections == 1)
            clock.advance(1)
            // Past exp: asked again, and the answer (still naming the past exp) is not accepted.
            expectRefused(await denial(api, bearer: "opaque-2"), .invalidToken, status: 401, token: "opaque-2")
            #expect(server.introspections == 2)
        }

        @Test func introspectionCacheZeroAsksEveryTime() async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active())
            let api = try introspectingAPI(server, accessTokens: ["introspection_cache": "0"])
            for _ in 0..<3 { expectAccepted(await denial(api, bearer: "opaque-3")) }
            #expect(server.introspections == 3)
        }

        @Test func anInactiveTokenIsRefusedAndRememberedForTheInactiveCache() async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: #"{"active":false}"#)
            let api = try introspectingAPI(server, accessTokens: ["inactive_cache": "5"])
            expectRefused(await denial(api, bearer: "revoked-1"), .invalidToken, status: 401, token: "revoked-1")
            expectRefused(await denial(api, bearer: "revoked-1"), .invalidToken, status: 401, token: "revoked-1")
            #expect(server.introspections == 1)
            clock.advance(4)
            expectRefused(await denial(api, bearer: "revoked-1"), .invalidToken, status: 401, token: "revoked-1")
            #expect(server.introspections == 1)
            clock.advance(1)
            server.answerIntrospection(json: active())
            expectAccepted(await denial(api, bearer: "revoked-1"))
            #expect(server.introspections == 2)
        }

        @Test func aThousandRequestsWithOneInactiveTokenIntrospectItOnce() async throws {
            let server = InProcessAuthorizationServer(delay: .milliseconds(100))
            server.answerIntrospection(json: #"{"active":false}"#)
            let api = try introspectingAPI(server)
            let refusals = await withTaskGroup(of: ProtectedResource.Denial?.self) { group in
                for _ in 0..<1_000 { group.addTask { await denial(api, bearer: "revoked-2") } }
                return await group.reduce(into: [ProtectedResource.Denial?]()) { $0.append($1) }
            }
            #expect(refusals.allSatisfy { $0?.code == .invalidToken })
            #expect(server.introspections == 1)
        }

        @Test func anIntrospectionEndpointRefusingConnectionsGives503AndNothingIsRemembered() async throws {
            // A port no one listens on, below the kernel's own range, which no other test's connection can take.
            let port = try unusedPort()
            let transport = RecordingTransport(DefaultHTTPTransport(timeout: 600))
            let api = try introspectingAPI(transport, introspection: "http://127.0.0.1:\(port)/introspect")
            let (refusal, elapsed) = await timed { await denial(api, bearer: "opaque-4") }
            expectRefused(refusal, .unavailable, status: 503, token: "opaque-4")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
            expectRefused(await denial(api, bearer: "opaque-4"), .unavailable, status: 503, token: "opaque-4")
            #expect(transport.requests.count == 2)
        }

        @Test func aSilentIntrospectionEndpointGives503WithinTheDeadline() async throws {
            let server = try HostileServer(.silent)
            defer { server.stop() }
            let api = try introspectingAPI(DefaultHTTPTransport(timeout: 0.5), introspection: "http://127.0.0.1:\(server.port)/introspect")
            let (refusal, elapsed) = await timed { await denial(api, bearer: "opaque-5") }
            expectRefused(refusal, .unavailable, status: 503, token: "opaque-5")
            #expect(elapsed < Self.hangBound, "\(elapsed)")
        }

        @Test(arguments: [
            (503, #"{"error":"temporarily_unavailable"}"#), (500, "oops"), (200, "<html>not json</html>"), (200, #"{"sub":"user-1"}"#),
            (200, #"{"active":"true","sub":"user-1"}"#), (200, #"[{"active":true}]"#), (401, #"{"error":"invalid_client"}"#),
            (302, ""),
        ])
        func anIntrospectionEndpointThatAnswersWronglyGives503AndNothingIsRemembered(_ status: Int, _ body: String) async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: body, status: status)
            let api = try introspectingAPI(server)
            expectRefused(await denial(api, bearer: "opaque-6"), .unavailable, status: 503, token: "opaque-6")
            expectRefused(await denial(api, bearer: "opaque-6"), .unavailable, status: 503, token: "opaque-6")
            #expect(server.introspections == 2)
            // Once it answers again, the token is accepted.
            server.answerIntrospection(json: active())
            expectAccepted(await denial(api, bearer: "opaque-6"))
        }

        @Test(arguments: [
            ["aud": JSONValue.string("https://other.example.com")],
            ["aud": JSONValue.array([.string("https://other.example.com")])],
            ["iss": JSONValue.string("https://evil.example.com")],
            ["token_type": JSONValue.string("refresh_token")],
            ["token_type": JSONValue.string("urn:ietf:params:oauth:token-type:refresh_token")],
            ["token_type": JSONValue.array([.string("refresh_token")])],
            ["token_type": JSONValue.number(5)],
            ["exp": JSONValue.number(1_000_000_000)],
            ["nbf": JSONValue.number(4_000_000_000)],
        ])
        func anActiveAnswerThatIsNotForThisAPIIsRefused(_ changes: [String: JSONValue]) async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active(changes))
            let api = try introspectingAPI(server)
            expectRefused(await denial(api, bearer: "opaque-7"), .invalidToken, status: 401, token: "opaque-7")
        }

        /// An answer that gives a member twice, the second through an escape, was read as its first said: an `aud` for
        /// another API, or `active: false`, hidden behind the member the API checks. In UTF-8 or UTF-16 (which Foundation's
        /// decoder also reads), it is no answer at all now: refused, as any answer that cannot be read is.
        @Test(arguments: [
            (#","a\u0075d":"https://other.example.com"}"#, "utf-8"), (#","\u0061ctive":false}"#, "utf-8"),
            (#","a\u0075d":"https://other.example.com"}"#, "utf-16le"), (#","\u0061ctive":false}"#, "utf-16"),
            (#","a\u0075d":"https://other.example.com"}"#, "utf-16be"),
        ])
        func anAnswerGivingAMemberTwiceIsNotBelieved(_ repeated: String, _ encoding: String) async throws {
            let text = String(active().dropLast()) + repeated
            let encodings: [String: String.Encoding] = ["utf-8": .utf8, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian, "utf-16": .utf16]
            let chosen = try #require(encodings[encoding])
            let body = try #require(text.data(using: chosen))
            let server = InProcessAuthorizationServer()
            server.answerIntrospection { _, _ in TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body) }
            let api = try introspectingAPI(server)
            expectRefused(await denial(api, bearer: "opaque-twice"), .unavailable, status: 503, token: "opaque-twice")
            // The same answer without the repeated member is accepted: the refusal is the repetition's.
            server.answerIntrospection(json: active())
            expectAccepted(await denial(api, bearer: "opaque-twice"))
        }

        @Test func anOpaqueProvidersJWTsAreIntrospectedToo() async throws {
            let server = InProcessAuthorizationServer()
            server.answerIntrospection(json: active(["sub": .string("user-9")]))
            let api = try introspectingAPI(server)
            // Not signed by any key the API knows: only the provider can say what it is.
            let token = try ProtectionToken.unsigned(header: ["alg": .string("ES256"), "kid": .string("x")], claims: claims())
            let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
            #expect(principal.source == .introspection && principal.subject == "user-9")
            #expect(server.introspections == 1 && server.jwksFetches == 0)
        }

        @Test func withFormatBothJWTsAreVerifiedAndTheRestIntrospected() async throws {
            let server = InProcessAuthorizationServer()
            server.serveKeys([key])
            server.answerIntrospection(json: active(["sub": .string("user-opaque")]))
            let api = try introspectingAPI(server, accessTokens: ["format": "both", "profile": "rfc9068"])
            let jwt = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(try key.sign(claims()))"))
            #expect(jwt.source == .jwt && jwt.subject == "user-1")
            let opaque = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer opaque-8"))
            #expect(opaque.source == .introspection && opaque.subject == "user-opaque")
            #expect(server.introspections == 1 && server.jwksFetches == 1)
            // A JWT that fails verification is refused, not handed to introspection.
            let forged = try await ProtectionKey.es256(key.kid).sign(claims())
            expectRefused(await denial(api, bearer: forged), .invalidToken, status: 401, token: forged)
            #expect(server.introspections == 1)
        }

        @Test func anOpaqueProviderWithoutAnIntrospectionClientIsRefusedAtSetUp() throws {
            let provider = try ProtectionSetup.provider(introspection: ProtectionToken.issuer + "/introspect", accessTokens: ["format": "opaque"])
            #expect(throws: ProviderError.self) {
                try ProtectedResource(providers: [provider], settings: ProtectionSetup.settings(), environment: OAuthEnvironment(transport: InProcessAuthorizationServer()))
            }
        }
    }
}
