import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowTestSupport
import Testing

/// Access tokens minted by a real authorization server (Authlib: RFC 9068 JWTs, opaque tokens with RFC 7662
/// introspection) presented to a Hummingbird API protected by `AccessTokenMiddleware`.
///
/// Serialized: one test rotates the server's signing keys, which every JWT test depends on.
@Suite(.serialized, .enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
struct ProtectedAPIEndToEndTests {
    static let resource = URL(string: "https://notes.example/api")!

    /// The API: `/notes` needs `read`, `/admin` needs `admin`, and the RFC 9728 document.
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func app(_ api: ProtectedResource) -> some ApplicationProtocol {
        let router = Router(context: BasicAccessRequestContext.self)
        router.addProtectedResourceMetadata(api)
        router.group("notes").add(middleware: AccessTokenMiddleware(api, requiring: ["read"]))
            .get { _, context -> String in
                let principal = try #require(context.accessPrincipal)
                return "\(principal.clientID ?? "-") \(principal.subject ?? "-") \(principal.scopes.sorted().joined(separator: ","))"
            }
        router.group("admin").add(middleware: AccessTokenMiddleware(api, requiring: ["admin"])).get { _, _ in "secret" }
        return Application(router: router)
    }

    static func descriptor(_ server: TestServiceServer, id: String = "service", accessTokens: String) -> TestDescriptor {
        server.descriptor(id: id, methods: ["client_secret_basic", "client_secret_post"], extra: "access_tokens:\n" + accessTokens)
    }

    static func jwtAPI(
        _ server: TestServiceServer, accessTokens: String = "  profile: rfc9068\n  signing_algs: [RS256, ES256]\n",
        environment: OAuthEnvironment = OAuthEnvironment()
    ) throws -> ProtectedResource {
        try ProtectedResource(
            providers: [try descriptor(server, accessTokens: accessTokens).provider()], settings: .init(resource: resource), environment: environment)
    }

    /// A token from `client`, for `resource` (or the server's default audience when nil).
    static func token(_ server: TestServiceServer, client name: String, resource: String? = Self.resource.absoluteString, scopes: [String] = ["read"])
        async throws -> String
    {
        let client = try server.client(name)
        let oauth = OAuthClient(provider: try descriptor(server, accessTokens: "  format: jwt\n").provider(), configuration: try client.configuration())
        let tokens = try await oauth.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: scopes, resources: resource.map { [$0] } ?? []))
        return tokens.accessToken.value
    }

    static func get(_ client: some TestClientProtocol, _ path: String, token: String?, scheme: String = "Bearer") async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "\(scheme) \(token)" }
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    static func challenge(_ response: TestResponse) -> String { response.headers[values: .wwwAuthenticate].joined(separator: " | ") }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test(arguments: ["jwt-rs256", "jwt-es256"])
    func jwtAccessTokensAreAcceptedWithTheirScopes(client: String) async throws {
        let server = try TestServiceServer.require()
        let token = try await Self.token(server, client: client, scopes: ["read", "write"])
        let clientID = try server.client(client).clientID
        try await Self.app(try Self.jwtAPI(server)).test(.router) { http in
            let notes = try await Self.get(http, "/notes", token: token)
            #expect(notes.status == .ok)
            #expect(String(buffer: notes.body) == "\(clientID) \(clientID) read,write")
            let admin = try await Self.get(http, "/admin", token: token)
            #expect(admin.status == .forbidden)
            #expect(Self.challenge(admin).contains(#"error="insufficient_scope""#))
            #expect(Self.challenge(admin).contains(#"scope="admin""#))
            #expect(!Self.challenge(admin).contains(token))
            let metadata = try await http.execute(uri: "/.well-known/oauth-protected-resource/api", method: .get)
            let document = try JSONSerialization.jsonObject(with: Data(buffer: metadata.body)) as? [String: Any]
            #expect(document?["resource"] as? String == Self.resource.absoluteString)
            #expect(document?["authorization_servers"] as? [String] == [server.issuer])
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func refusalsCarryTheRightErrorAndNothingElse() async throws {
        let server = try TestServiceServer.require()
        let good = try await Self.token(server, client: "jwt-rs256")
        let otherAudience = try await Self.token(server, client: "jwt-rs256", resource: nil)
        let plain = try await Self.token(server, client: "jwt-plain")
        let parts = good.split(separator: ".").map(String.init)
        let headerBytes = try #require(Base64URL.decode(parts[0]))
        let header = try #require(JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        func encode(_ object: [String: Any]) throws -> String {
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        // An ES256 token re-signed with a key of our own, under the server's kid.
        let ecToken = try await Self.token(server, client: "jwt-es256").split(separator: ".").map(String.init)
        let resignedInput = "\(ecToken[0]).\(ecToken[1])"
        let resignedSignature = try P256.Signing.PrivateKey().signature(for: Data(resignedInput.utf8)).rawRepresentation
        let resigned = resignedInput + "." + Base64URL.encode(resignedSignature)
        // `alg: none`, and HS256 keyed with the server's public key.
        var noneHeader = header
        noneHeader["alg"] = "none"
        let none = try encode(noneHeader) + "." + parts[1] + "."
        let jwksURL = try #require(server.jwksURI)
        let jwksBody = try await DefaultHTTPTransport().send(TransportRequest(method: .get, url: jwksURL)).body
        let jwks = try #require(JSONSerialization.jsonObject(with: jwksBody) as? [String: Any])
        let publicKeyBytes = try JSONSerialization.data(withJSONObject: jwks, options: [.sortedKeys])
        var hsHeader = header
        hsHeader["alg"] = "HS256"
        let hsInput = try encode(hsHeader) + "." + parts[1]
        let hsSignature = HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: SymmetricKey(data: publicKeyBytes))
        let hs256 = hsInput + "." + Base64URL.encode(Data(hsSignature))
        // The RS256 token naming the ES256 key's kid.
        let ecKid = try #require((jwks["keys"] as? [[String: Any]])?.first { $0["kty"] as? String == "EC" }?["kid"] as? String)
        var swappedHeader = header
        swappedHeader["kid"] = ecKid
        let swapped = try encode(swappedHeader) + "." + parts[1] + "." + parts[2]

        try await Self.app(try Self.jwtAPI(server)).test(.router) { http in
            for (name, token) in [
                ("wrong audience", otherAudience), ("outside RFC 9068", plain), ("re-signed", resigned), ("alg none", none),
                ("HS256 with the public key", hs256), ("swapped kid", swapped),
            ] {
                let response = try await Self.get(http, "/notes", token: token)
                #expect(response.status == .unauthorized, "\(name)")
                #expect(Self.challenge(response).contains(#"error="invalid_token""#), "\(name): \(Self.challenge(response))")
                #expect(!Self.challenge(response).contains(token), "\(name): the challenge echoes the token")
            }
            let none = try await Self.get(http, "/notes", token: nil)
            #expect(none.status == .unauthorized)
            #expect(!Self.challenge(none).contains("error="))
            #expect(Self.challenge(none).contains(#"resource_metadata="https://notes.example/.well-known/oauth-protected-resource/api""#))
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aTokenOfAnotherIssuerIsRefused() async throws {
        let server = try TestServiceServer.require()
        let token = try await Self.token(server, client: "jwt-rs256")
        // An API that trusts another provider only (its issuer is not this server's).
        let other = try TestDescriptor(
            id: "other", protocol: .oauth2, issuer: "https://other.example", endpoints: [("jwks", "https://other.example/jwks")],
            extra: "access_tokens:\n  profile: rfc9068\n"
        ).provider()
        try await Self.app(try ProtectedResource(providers: [other], settings: .init(resource: Self.resource))).test(.router) { http in
            let response = try await Self.get(http, "/notes", token: token)
            #expect(response.status == .unauthorized)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anExpiredTokenIsRefused() async throws {
        let server = try TestServiceServer.require()
        let token = try await Self.token(server, client: "jwt-short")
        // The token lives 2 s. The API's clock starts at its `iat` and is moved past its `exp`: a loaded machine can
        // take longer than 2 s between the token and the first request.
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        let issued = try #require((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["iat"] as? Double)
        let clock = MovableClock(startingAt: Date(timeIntervalSince1970: issued))
        let api = try Self.jwtAPI(server, accessTokens: "  profile: rfc9068\n  leeway: 0\n", environment: OAuthEnvironment(clock: clock))
        try await Self.app(api).test(.router) { http in
            let answer1 = try await Self.get(http, "/notes", token: token)
            #expect(answer1.status == .ok)
            clock.advance(3)
            let later = try await Self.get(http, "/notes", token: token)
            #expect(later.status == .unauthorized, "the verified-token cache served a token past its exp")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func opaqueTokensAreIntrospectedOnceAndRevocationIsSeen() async throws {
        let server = try TestServiceServer.require()
        let introspector = try server.client("post")
        let resource = "https://opaque.example/\(UUID().uuidString)"
        let provider = try Self.descriptor(server, id: "service", accessTokens: "  format: opaque\n  introspection_cache: 0\n  inactive_cache: 0\n")
            .provider()
        // The server's introspection answers name the token's resource in `aud`: the API's audience.
        let api = try ProtectedResource(
            providers: [provider], settings: .init(resource: Self.resource, audience: resource),
            introspectionClients: ["service": try introspector.configuration()])
        let cachingAPI = try ProtectedResource(
            providers: [try Self.descriptor(server, accessTokens: "  format: opaque\n").provider()],
            settings: .init(resource: Self.resource, audience: resource),
            introspectionClients: ["service": try introspector.configuration()])
        let token = try await Self.token(server, client: "basic", resource: resource)
        #expect(!token.contains("."), "the basic client's tokens are opaque")

        // 200 requests at once with one token: one introspection.
        let before = try await server.protectionCounts(for: introspector.clientID).introspections
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    do {
                        return try await cachingAPI.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"), requiring: ["read"]).scopes.count
                    } catch {
                        return -1
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 > 0 })
        let after = try await server.protectionCounts(for: introspector.clientID).introspections
        #expect(after - before == 1)

        try await Self.app(api).test(.router) { http in
            let answer2 = try await Self.get(http, "/notes", token: token)
            #expect(answer2.status == .ok)
            try await server.revokeTokens(issuedFor: resource)
            let revoked = try await Self.get(http, "/notes", token: token)
            #expect(revoked.status == .unauthorized)
            #expect(Self.challenge(revoked).contains(#"error="invalid_token""#))
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func anIntrospectionOutageIsA503AndNeverAnAcceptance() async throws {
        let server = try TestServiceServer.require()
        let introspector = try server.client("post")
        let resource = "https://outage.example/\(UUID().uuidString)"
        let api = try ProtectedResource(
            providers: [try Self.descriptor(server, accessTokens: "  format: opaque\n").provider()],
            settings: .init(resource: Self.resource, audience: resource), introspectionClients: ["service": try introspector.configuration()])
        let token = try await Self.token(server, client: "basic", resource: resource)
        try await server.control(server.introspectionDown, query: ["seconds": "30"])
        defer { Task { try? await server.control(server.introspectionDown, query: ["seconds": "0"]) } }
        try await Self.app(api).test(.router) { http in
            let response = try await Self.get(http, "/notes", token: token)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] != nil)
        }
        try await server.control(server.introspectionDown, query: ["seconds": "0"])
        // Not remembered: once the endpoint answers, the token is accepted.
        try await Self.app(api).test(.router) { http in
            let answer3 = try await Self.get(http, "/notes", token: token)
            #expect(answer3.status == .ok)
        }
    }

    /// Last: rotation changes the keys every JWT test uses.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aRotatedKeyIsFoundAndARemovedOneIsNoLongerAccepted() async throws {
        let server = try TestServiceServer.require()
        let api = try Self.jwtAPI(server)
        let old = try await Self.token(server, client: "jwt-rs256")
        try await Self.app(api).test(.router) { http in
            let answer4 = try await Self.get(http, "/notes", token: old)
            #expect(answer4.status == .ok)
            let fetchesBefore = try await server.protectionCounts(for: "-").jwksFetches
            try await server.control(server.rotateKeys)
            let new = try await Self.token(server, client: "jwt-rs256")
            let answer5 = try await Self.get(http, "/notes", token: new)
            #expect(answer5.status == .ok, "the new kid was not found by a refetch")
            let answer6 = try await server.protectionCounts(for: "-")
            #expect(answer6.jwksFetches - fetchesBefore == 1)
            // The old key left the JWKS with that refetch: the token it signed, verified before, is refused now.
            let answer7 = try await Self.get(http, "/notes", token: old)
            #expect(answer7.status == .unauthorized)
        }
    }
}
