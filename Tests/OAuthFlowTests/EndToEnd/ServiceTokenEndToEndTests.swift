import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// Service tokens against Authlib (Tests/ServiceServer): every client authentication method, the JWT bearer
/// grant, mutual TLS through discovery's aliases, and the cache against a server that counts its requests.
/// Serialized: the request counts it compares are per client, and the tests share clients.
@Suite(.serialized, .enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
struct ServiceTokenEndToEndTests {
    typealias Server = TestServiceServer

    static func client(
        _ server: Server, _ name: String, methods: [String]? = nil, audience: String? = nil, grants: [String] = ["client_credentials"],
        jwk: Bool = false, extra: String = ""
    ) throws -> OAuthClient {
        let registered = try server.client(name)
        let method = try #require(ProviderDescriptor.ClientAuthMethod(rawValue: registered.authMethod))
        let provider = try server.descriptor(
            grants: grants, methods: methods ?? [registered.authMethod], audience: audience ?? registered.assertionAudience, extra: extra
        ).provider()
        let configuration = try registered.configuration(method: method, jwk: jwk, trustRoots: method.usesCertificate ? try server.trustRoots() : nil)
        return OAuthClient(provider: provider, configuration: configuration, environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 15)))
    }

    @Test(arguments: ["basic", "post", "secret-jwt", "rsa", "ps256", "es256", "rsa-issuer-aud"])
    func everyClientAuthenticationMethodGetsAToken(_ name: String) async throws {
        let server = try Server.require()
        let client = try Self.client(server, name)
        let tokens = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.oauthflow.test"]))
        let (status, whoami) = try await server.whoami(tokens.accessToken)
        #expect(status == 200)
        #expect(whoami["client_id"] as? String == (try server.client(name).clientID))
        #expect(whoami["scope"] as? String == "read")
        #expect(whoami["resource"] as? [String] == ["https://api.oauthflow.test"])
    }

    @Test func aPrivateJWKSignsAsThePEMDoes() async throws {
        let server = try Server.require()
        let tokens = try await Self.client(server, "rsa", jwk: true).clientCredentialsToken()
        #expect(try await server.whoami(tokens.accessToken).status == 200)
    }

    @Test func everyAssertionIsFreshSoTheServersReplayCheckNeverRefusesOne() async throws {
        let server = try Server.require()
        let client = try Self.client(server, "es256")
        for _ in 0..<3 { _ = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) }
    }

    @Test func anAssertionForTheWrongAudienceIsRefused() async throws {
        let server = try Server.require()
        // The server takes only its issuer from this client; the descriptor says token endpoint.
        let wrong = try Self.client(server, "rsa-issuer-aud", audience: "token_endpoint")
        let error = await #expect(throws: AuthorizationServerError.self) { _ = try await wrong.clientCredentialsToken() }
        #expect(error?.error == "invalid_client")
        // And the other way round.
        let other = try Self.client(server, "rsa", audience: "issuer")
        await #expect(throws: AuthorizationServerError.self) { _ = try await other.clientCredentialsToken() }
    }

    @Test func anAlgorithmTheDescriptorLeavesOutIsRefusedBeforeSending() async throws {
        let server = try Server.require()
        let registered = try server.client("ps256")
        let yaml = server.descriptor(methods: ["private_key_jwt"], audience: "token_endpoint").yaml + "  assertion_algs: [RS256]\n"
        let limited = try #require(DescriptorDocument.parse(Data(yaml.utf8), path: "service.yaml").descriptor, "\(yaml)").resolve([:])
        let client = OAuthClient(provider: limited, configuration: try registered.configuration())
        let api = ["https://algorithms.oauthflow.test"]
        let before = try await server.tokenRequests(for: registered.clientID, resources: api)
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(resources: api)) }
        #expect(error?.code == .clientAuthentication)
        #expect(try await server.tokenRequests(for: registered.clientID, resources: api) == before, "nothing was sent")
    }

    @Test(arguments: ["tls", "self-signed-tls"])
    func mutualTLSUsesTheDiscoveredAliasAndBindsTheToken(_ name: String) async throws {
        let server = try Server.require()
        let client = try Self.client(server, name)
        let discovered = try await client.discoveredProvider()
        #expect(discovered.endpoints.mtlsToken == server.mtlsTokenEndpoint)
        let tokens = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        let (status, whoami) = try await server.whoami(tokens.accessToken)
        #expect(status == 200)
        #expect(whoami["client_id"] as? String == (try server.client(name).clientID))
        let cnf = try #require(whoami["cnf"] as? [String: String])
        let certificate = try String(contentsOfFile: try #require(try server.client(name).certificatePEM), encoding: .utf8)
        #expect(cnf["x5t#S256"] == TLSClientIdentity.thumbprint(ofPEM: certificate), "RFC 8705 §3: bound to the certificate presented")
    }

    @Test func aClientWithoutItsCertificateIsRefusedLocally() async throws {
        let server = try Server.require()
        let registered = try server.client("tls")
        let provider = try server.descriptor(methods: ["tls_client_auth"]).provider()
        let client = OAuthClient(provider: provider, configuration: .service(clientID: registered.clientID, authMethod: .tlsClientAuth))
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error?.code == .missingClientSecret)
        #expect("\(error.map { "\($0)" } ?? "")".contains("client certificate"))
    }

    @Test func theAudienceTargetReachesTheToken() async throws {
        let server = try Server.require()
        let client = try Self.client(server, "basic", extra: "service_tokens:\n  target: audience\n")
        let tokens = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(audiences: ["https://orders.oauthflow.test"]))
        #expect(try await server.whoami(tokens.accessToken).body["audience"] as? [String] == ["https://orders.oauthflow.test"])
    }

    @Test func theJWTBearerGrantExchangesASignedAssertionForTheUsersToken() async throws {
        let server = try Server.require()
        let grant = server.jwtBearer
        let client = try Self.client(
            server, grant.client, audience: "token_endpoint", grants: ["urn:ietf:params:oauth:grant-type:jwt-bearer"])
        let key = try ClientConfiguration.SigningKey(pem: try String(contentsOfFile: grant.privateKeyPEM, encoding: .utf8), keyID: grant.kid)
        let tokens = ServiceTokens(client: client)
        let user = try #require(grant.users.first)
        let token = try await tokens.accessToken(subject: user, issuer: grant.issuer, key: key, scopes: ["read"])
        let (status, whoami) = try await server.whoami(token)
        #expect(status == 200)
        #expect(whoami["sub"] as? String == user)
        #expect(whoami["scope"] as? String == "read")
        #expect(try await tokens.accessToken(subject: user, issuer: grant.issuer, key: key, scopes: ["read"]) == token, "cached per subject")
        // Another subject is another key: never alice's token. An assertion the host signed itself works the same way.
        let other = try await tokens.accessToken(subject: "\(grant.issuer) \(grant.users[1])", scopes: ["read"]) {
            try await ClientAssertion.grant(
                issuer: grant.issuer, subject: grant.users[1], audience: server.tokenEndpoint.absoluteString, key: key)
        }
        #expect(other != token)
        #expect(try await server.whoami(other).body["sub"] as? String == grant.users[1])
    }

    @Test func twoHundredConcurrentCallersMakeOneRequestToARealServer() async throws {
        let server = try Server.require()
        let registered = try server.client("post")
        let tokens = ServiceTokens(client: try Self.client(server, "post"))
        let api = ["https://concurrency.oauthflow.test"]
        let request = OAuthClient.ServiceTokenRequest(scopes: ["write"], resources: api)
        let before = try await server.tokenRequests(for: registered.clientID, resources: api)
        let answers = try await withThrowingTaskGroup(of: Secret.self) { group in
            for _ in 0..<200 { group.addTask { try await tokens.accessToken(request) } }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
        #expect(answers.count == 1)
        #expect(try await server.tokenRequests(for: registered.clientID, resources: api) == before + 1)
    }

    @Test func aRevokedTokenIsReplacedOnceByTheResourceServers401() async throws {
        let server = try Server.require()
        let registered = try server.client("secret-jwt")
        let tokens = ServiceTokens(client: try Self.client(server, "secret-jwt"))
        let api = "https://revoked.oauthflow.test"
        let target = OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: [api])
        let first = try await tokens.accessToken(target)
        try await server.revokeTokens(issuedFor: api)
        let before = try await server.tokenRequests(for: registered.clientID, resources: [api])
        let response = try await tokens.send(TransportRequest(method: .get, url: server.resource), for: target)
        #expect(response.status == 200)
        #expect(try await server.tokenRequests(for: registered.clientID, resources: [api]) == before + 1)
        #expect(try await tokens.accessToken(target) != first)
    }

    @Test func aTokenWithoutExpiresInIsCachedForTheDefaultLifetime() async throws {
        let server = try Server.require()
        let registered = try server.client("noexpiry")
        let tokens = ServiceTokens(client: try Self.client(server, "noexpiry"))
        let first = try await tokens.accessToken()
        #expect(try await tokens.accessToken() == first)
        let short = ServiceTokens(client: try Self.client(server, "short"))
        let brief = try await short.accessToken()
        try await Task.sleep(nanoseconds: 1_200_000_000)
        #expect(try await short.accessToken() != brief, "a 2 s token is renewed after 1 s")
        _ = registered
    }
}

/// Token exchange (RFC 8693) against idpyoidc (Tests/ExchangeServer).
@Suite(.enabled(if: TestExchangeServer.shouldRun, TestExchangeServer.skipReason))
struct TokenExchangeEndToEndTests {
    typealias Server = TestExchangeServer

    static func client(_ server: Server, _ name: String) throws -> OAuthClient {
        let registered = try server.client(name)
        let provider = try server.descriptor(methods: [registered.authMethod]).provider()
        return OAuthClient(provider: provider, configuration: try registered.configuration(), environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 15)))
    }

    @Test(arguments: ["basic", "rsa", "secret-jwt"])
    func aSubjectTokenIsExchangedForAnAudience(_ name: String) async throws {
        let server = try Server.require()
        let client = try Self.client(server, name)
        let audience = try #require(server.audiences.first)
        let exchanged = try await client.exchangeToken(
            OAuthClient.TokenExchangeRequest(
                subjectToken: try await server.subjectToken(), requestedTokenType: TokenTypeIdentifier.accessToken,
                target: OAuthClient.ServiceTokenRequest(scopes: ["read"], audiences: [audience])))
        #expect(exchanged.issuedTokenType == TokenTypeIdentifier.accessToken)
        #expect(exchanged.tokens.tokenType == "bearer")
        let claims = try #require(try? IDTokenValidator.decodeUnverified(exchanged.tokens.accessToken.value).1)
        #expect(claims["sub"]?.stringValue != nil)
        #expect(Self.strings(claims["aud"]).contains(audience))
    }

    static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case let .string(text)?: return [text]
        case let .array(values)?: return values.compactMap(\.stringValue)
        default: return []
        }
    }

    @Test func anActorTokenIsRecordedAsTheActor() async throws {
        let server = try Server.require()
        let client = try Self.client(server, "basic")
        let exchanged = try await client.exchangeToken(
            OAuthClient.TokenExchangeRequest(
                subjectToken: try await server.subjectToken(user: "alice"), actorToken: try await server.subjectToken(user: "robot"),
                target: OAuthClient.ServiceTokenRequest(audiences: [try #require(server.audiences.first)])))
        let claims = try #require(try? IDTokenValidator.decodeUnverified(exchanged.tokens.accessToken.value).1)
        guard case let .object(actor)? = claims["act"] else {
            Issue.record("the exchanged token has no `act` claim: \(claims)")
            return
        }
        #expect(actor["sub"]?.stringValue != nil)
    }

    @Test func aRefreshTokenCanBeAskedForAndIsTypedNotApplicable() async throws {
        let server = try Server.require()
        let client = try Self.client(server, "basic")
        let exchanged = try await client.exchangeToken(
            OAuthClient.TokenExchangeRequest(
                subjectToken: try await server.subjectToken(scope: "read offline_access"), requestedTokenType: TokenTypeIdentifier.refreshToken))
        #expect(exchanged.issuedTokenType == TokenTypeIdentifier.refreshToken)
        #expect(exchanged.tokens.tokenType == "n_a")
    }

    @Test func aTypeTheServerCannotIssueAndABadSubjectAreTheServersErrors() async throws {
        let server = try Server.require()
        let client = try Self.client(server, "basic")
        let bad = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.exchangeToken(OAuthClient.TokenExchangeRequest(subjectToken: Secret("not-a-token")))
        }
        #expect(bad?.error == "invalid_request")
        let unknownAudience = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.exchangeToken(
                OAuthClient.TokenExchangeRequest(
                    subjectToken: try await server.subjectToken(), target: OAuthClient.ServiceTokenRequest(audiences: ["https://elsewhere.example"])))
        }
        #expect(unknownAudience?.error == "invalid_target")
    }

    @Test func exchangedTokensAreCachedPerSubject() async throws {
        let server = try Server.require()
        let tokens = ServiceTokens(client: try Self.client(server, "rsa"))
        let audience = try #require(server.audiences.first)
        let alice = try await server.subjectToken(user: "alice")
        let bob = try await server.subjectToken(user: "bob")
        let forAlice = try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: alice, target: OAuthClient.ServiceTokenRequest(audiences: [audience])))
        #expect(try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: alice, target: OAuthClient.ServiceTokenRequest(audiences: [audience]))) == forAlice)
        let forBob = try await tokens.exchangedToken(OAuthClient.TokenExchangeRequest(subjectToken: bob, target: OAuthClient.ServiceTokenRequest(audiences: [audience])))
        #expect(forBob != forAlice, "another subject token is another key")
        let claims = try #require(try? IDTokenValidator.decodeUnverified(forBob.value).1)
        #expect(claims["sub"]?.stringValue != (try? IDTokenValidator.decodeUnverified(forAlice.value).1)?["sub"]?.stringValue)
    }
}

/// Client credentials against Django OAuth Toolkit: its own client-credentials application.
@Suite(.enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct ClientCredentialsDOTTests {
    @Test func djangoOAuthToolkitIssuesAServiceToken() async throws {
        let server = try TestAuthorizationServer.require()
        let provider = try server.provider { descriptor in
            descriptor.grantTypes.append("client_credentials")
        }
        let client = OAuthClient(
            provider: provider,
            configuration: .service(clientID: "oauthflow-service", clientSecret: Secret("service-test-secret-0123456789abcdef")))
        let tokens = ServiceTokens(client: client)
        let token = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"])) == token)
        // DOT's introspection, asked by the same client, says the token is active and for that client.
        let introspection = try #require(provider.endpoints.introspection)
        let credentials = Data("oauthflow-service:service-test-secret-0123456789abcdef".utf8).base64EncodedString()
        let response = try await DefaultHTTPTransport().send(
            TransportRequest(
                method: .post, url: introspection,
                headers: ["Authorization": "Basic \(credentials)", "Content-Type": "application/x-www-form-urlencoded"],
                body: Data("token=\(token.value)".utf8)))
        let answer = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "HTTP \(response.status)")
        #expect(answer["active"] as? Bool == true)
        #expect(answer["client_id"] as? String == "oauthflow-service")
        #expect(answer["scope"] as? String == "read")
    }
}
