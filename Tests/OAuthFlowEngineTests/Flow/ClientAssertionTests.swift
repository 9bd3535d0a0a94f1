import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing
import _CryptoExtras

@testable import OAuthFlow

/// `client_secret_jwt`, `private_key_jwt` and mutual TLS as they reach the token endpoint: what the assertion
/// holds, that it is never reused, which key signs it, and that every grant sends it. Assertions go to a simulated
/// provider, which verifies them as RFC 7523 says.
@Suite struct ClientAssertionTests {
    static let rsaPEM = try! _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
    static let rsaPublicPEM = try! _RSA.Signing.PrivateKey(pemRepresentation: rsaPEM).publicKey.pemRepresentation
    static let ecKey = P256.Signing.PrivateKey()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        /// One audience, which jwt-kit writes as a string (RFC 7519 §4.1.3 allows either).
        var aud: String
        var jti: String
        var iat: Double
        var exp: Double
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func provider(methods: String, audience: String = "issuer", extra: String = "") throws -> Provider {
        try TestDescriptor(
            extra: """
                grant_types: [authorization_code, refresh_token, client_credentials]
                client_auth:
                  methods: [\(methods)]
                  assertion_audience: \(audience)
                \(extra)
                """
        ).with(endpoints: [("revocation", "https://auth.example.com/revoke")]).provider()
    }

    /// The fields of the one request `send` made, and the request.
    static func sent(
        _ configuration: ClientConfiguration, methods: String, audience: String = "issuer",
        _ send: @escaping @Sendable (OAuthClient) async throws -> Void = { _ = try await $0.clientCredentialsToken() }
    ) async throws -> (fields: [String: String], request: TransportRequest) {
        let transport = RecordingTransport(CannedTransport(body: #"{"access_token":"a","token_type":"Bearer","expires_in":60}"#))
        let client = OAuthClient(provider: try provider(methods: methods, audience: audience), configuration: configuration, environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: now)))
        try await send(client)
        let request = try #require(transport.requests.last)
        let fields = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
        return (fields, request)
    }

    /// The fields of the last request `send` made to a simulated provider that lists `methods` and has `registered` as
    /// the client, and the request: the provider took the client's authentication, or `send` threw.
    static func sent(
        _ configuration: ClientConfiguration, registered: SimulatedClient, methods: [ProviderDescriptor.ClientAuthMethod],
        audience: ProviderDescriptor.AssertionAudience = .issuer,
        _ send: @escaping @Sendable (OAuthClient, SimulatedProvider) async throws -> Void = { client, _ in _ = try await client.clientCredentialsToken() }
    ) async throws -> (fields: [String: String], request: TransportRequest, simulated: SimulatedProvider) {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: now), clients: [registered])
        var options = SimulatedProvider.DescriptorOptions()
        options.clientAuthentication = methods
        options.assertionAudience = audience
        let transport = RecordingTransport(simulated.transport)
        var environment = simulated.environment
        environment.transport = transport
        let client = OAuthClient(provider: try simulated.provider(options), configuration: configuration, environment: environment)
        try await send(client, simulated)
        let request = try #require(transport.requests.last)
        let fields = Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
        return (fields, request, simulated)
    }

    static func verify(_ assertion: String?, with keys: JWTKeyCollection) async throws -> (Claims, JWTHeader) {
        let token = try #require(assertion)
        let claims = try await keys.verify(token, as: Claims.self)
        let header = try JSONDecoder().decode(JWTHeader.self, from: try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
        return (claims, header)
    }

    @Test func aPrivateKeyAssertionNamesTheClientTheIssuerAndLivesAMinute() async throws {
        let key = try ClientConfiguration.SigningKey(pem: Self.rsaPEM, keyID: "key-2026")
        let (fields, request, simulated) = try await Self.sent(
            .service(clientID: "svc", signingKey: key), registered: .privateKeyJWT(id: "svc", publicKeyPEM: Self.rsaPublicPEM), methods: [.privateKeyJWT])
        #expect(fields["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        #expect(fields["client_id"] == "svc")
        #expect(request.headers["Authorization"] == nil)
        let keys = await JWTKeyCollection().add(rsa: try Insecure.RSA.PrivateKey(pem: Self.rsaPEM).publicKey, digestAlgorithm: .sha256)
        let (claims, header) = try await Self.verify(fields["client_assertion"], with: keys)
        #expect(claims.iss == "svc")
        #expect(claims.sub == "svc")
        #expect(claims.aud == simulated.issuer.absoluteString, "the issuer by default (CVE-2025-27370)")
        #expect(claims.iat == Self.now.timeIntervalSince1970)
        #expect(claims.exp - claims.iat == 60)
        #expect(header.kid == "key-2026")
        #expect(header.alg == "RS256")
    }

    @Test func theTokenEndpointIsTheAudienceWhenTheDescriptorSaysSo() async throws {
        let key = try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)
        let (fields, _, simulated) = try await Self.sent(
            .service(clientID: "svc", signingKey: key), registered: .privateKeyJWT(id: "svc", publicKeyPEM: Self.ecKey.publicKey.pemRepresentation),
            methods: [.privateKeyJWT], audience: .tokenEndpoint)
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(pem: Self.ecKey.publicKey.pemRepresentation))
        let (claims, header) = try await Self.verify(fields["client_assertion"], with: keys)
        #expect(claims.aud == simulated.issuer.appendingPathComponent("token").absoluteString)
        #expect(header.alg == "ES256")
    }

    /// `invalid_client` after an assertion: the hint names `client_auth.assertion_audience` and the `aud` that was sent,
    /// which no change of method fixes.
    @Test(arguments: ["issuer", "token_endpoint"])
    func invalidClientAfterAnAssertionNamesTheAudienceSent(audience: String) async throws {
        let transport = ScriptedTransport { _, _ in
            TransportResponse(
                status: 401, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":"invalid_client","error_description":"Not for me!"}"#.utf8))
        }
        let client = OAuthClient(provider: try Self.provider(methods: "private_key_jwt", audience: audience),
            configuration: .service(clientID: "svc", signingKey: try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)), environment: OAuthEnvironment(transport: transport))
        let error = try await #require(throws: AuthorizationServerError.self) { _ = try await client.clientCredentialsToken() }
        let sent = audience == "issuer" ? "https://auth.example.com" : "https://auth.example.com/token"
        let other = audience == "issuer" ? "token_endpoint" : "issuer"
        #expect(error.description.contains("`aud` `\(sent)`"), "\(error)")
        #expect(error.description.contains("assertion_audience: \(other)"), "\(error)")
    }

    /// A refusal that names another cause (here the algorithm) gets no advice about the audience.
    @Test func invalidClientNamingTheAlgorithmGetsNoAudienceAdvice() async throws {
        let transport = ScriptedTransport { _, _ in
            TransportResponse(
                status: 400, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":"invalid_client","error_description":"Algorithm of 'RS256' is not allowed"}"#.utf8))
        }
        let client = OAuthClient(provider: try Self.provider(methods: "private_key_jwt"),
            configuration: .service(clientID: "svc", signingKey: try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)), environment: OAuthEnvironment(transport: transport))
        let error = try await #require(throws: AuthorizationServerError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error.hint == nil, "\(error)")
    }

    @Test func noTwoAssertionsShareAJTI() async throws {
        var seen: Set<String> = []
        for _ in 0..<50 {
            let assertion = try await ClientAssertion.make(
                clientID: "svc", audience: "https://as", key: nil, secret: Secret("a-long-enough-shared-secret-0123456789"), now: Self.now)
            let (claims, _) = try await Self.verify(
                assertion.value, with: await JWTKeyCollection().add(hmac: "a-long-enough-shared-secret-0123456789", digestAlgorithm: .sha256))
            #expect(seen.insert(claims.jti).inserted)
            #expect(claims.jti.count >= 22, "128 bits")
        }
    }

    /// RFC 7518 §3.2: an HS256 key is at least 32 bytes; a shorter client secret signs nothing and says why.
    @Test func aClientSecretShorterThanTheHashSignsNoAssertion() async throws {
        let error = try await #require(throws: FlowError.self) {
            _ = try await ClientAssertion.make(clientID: "svc", audience: "https://as", key: nil, secret: Secret(String(repeating: "s", count: 31)), now: Self.now)
        }
        #expect(error.code == .clientAuthentication && error.message.contains("32 bytes") && !error.message.contains("sssss"), "\(error)")
        _ = try await ClientAssertion.make(clientID: "svc", audience: "https://as", key: nil, secret: Secret(String(repeating: "s", count: 32)), now: Self.now)
    }

    @Test func aLifetimeIsNeverLongerThanAMinute() async throws {
        let assertion = try await ClientAssertion.make(
            clientID: "svc", audience: "https://as", key: try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation), secret: nil, now: Self.now,
            lifetime: 3600)
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(pem: Self.ecKey.publicKey.pemRepresentation))
        let (claims, _) = try await Self.verify(assertion.value, with: keys)
        #expect(claims.exp - claims.iat == 60)
    }

    @Test func aClientSecretJWTIsAnHMACWithTheSecretAndTheSecretIsNotSent() async throws {
        let secret = "shared-secret-for-hs256-0123456789abcdef"
        let (fields, request, _) = try await Self.sent(
            .service(clientID: "svc", clientSecret: Secret(secret)), registered: .confidential(id: "svc", secret: secret, authentication: .clientSecretJWT),
            methods: [.clientSecretJWT])
        #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains(secret))
        #expect(request.headers["Authorization"] == nil)
        let (claims, header) = try await Self.verify(fields["client_assertion"], with: await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256))
        #expect(header.alg == "HS256")
        #expect(claims.sub == "svc")
    }

    @Test func aCertificateThumbprintIsSentAsX5tS256() async throws {
        let certificate = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.crt"), encoding: .utf8)
        let key = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.key"), encoding: .utf8)
        let signing = try ClientConfiguration.SigningKey(pem: key, certificatePEM: certificate)
        let publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: key).publicKey.pemRepresentation
        let (fields, _, _) = try await Self.sent(
            .service(clientID: "svc", signingKey: signing), registered: .privateKeyJWT(id: "svc", publicKeyPEM: publicKey), methods: [.privateKeyJWT])
        let assertion = try #require(fields["client_assertion"])
        let header = try JSONDecoder().decode(JWTHeader.self, from: try #require(Base64URL.decode(String(assertion.split(separator: ".")[0]))))
        let der = try #require(TLSClientIdentity.firstBlock(of: "CERTIFICATE", in: certificate))
        #expect(header.x5tS256 == Base64URL.encode(Data(SHA256.hash(data: der))))
    }

    @Test func mutualTLSSendsTheClientIDAndPresentsTheCertificate() async throws {
        let identity = TLSClientIdentity(certificateChainPEM: "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n", privateKeyPEM: Secret("k"))
        let (fields, request) = try await Self.sent(.service(clientID: "svc", tlsIdentity: identity), methods: "tls_client_auth")
        #expect(fields["client_id"] == "svc")
        #expect(fields["client_assertion"] == nil)
        #expect(request.clientIdentity == identity)
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func everyGrantAuthenticatesTheSameWay() async throws {
        let key = try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)
        let redirect = URL(string: "http://127.0.0.1/cb")!
        let configuration = ClientConfiguration(clientID: "app", redirectURI: redirect, signingKey: key)
        let registered = SimulatedClient.privateKeyJWT(id: "app", publicKeyPEM: Self.ecKey.publicKey.pemRepresentation, redirectURIs: [redirect])
        // A sign-in with the code grant first: its refresh token is refreshed, its access token revoked.
        let (refresh, _, _) = try await Self.sent(configuration, registered: registered, methods: [.none, .privateKeyJWT]) { client, simulated in
            _ = try await client.refresh(try await Simulated.signIn(client, at: simulated).tokens)
        }
        #expect(refresh["grant_type"] == "refresh_token")
        #expect(refresh["client_assertion"] != nil)
        let (revoke, request, _) = try await Self.sent(configuration, registered: registered, methods: [.none, .privateKeyJWT]) { client, simulated in
            try await client.revoke(try await Simulated.signIn(client, at: simulated).tokens.accessToken, kind: .accessToken)
        }
        #expect(request.url.path == "/revoke")
        #expect(revoke["client_assertion"] != nil)
    }

    @Test func keysAreReadFromPEMOrJWKAndBadOnesAreRefusedWithoutQuotingThem() throws {
        let jwk = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/keys/client.jwk"), encoding: .utf8)
        let fromJWK = try ClientConfiguration.SigningKey(text: jwk)
        #expect(fromJWK.algorithm == .rs256)
        #expect(fromJWK.keyID == "fixture-rsa")
        #expect(try ClientConfiguration.SigningKey(pem: Self.rsaPEM, algorithm: .ps256).algorithm == .ps256)
        #expect(try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation).algorithm == .es256)
        #expect("\(try ClientConfiguration.SigningKey(pem: Self.rsaPEM, keyID: "k1"))" == "RS256 key `k1`")

        let garbage = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n"
        let error = try #require(throws: FlowError.self) { try ClientConfiguration.SigningKey(pem: garbage) }
        #expect(!error.message.contains("c2VjcmV0"))
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation, algorithm: .rs256) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(pem: Self.rsaPEM, algorithm: .es256) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(jwk: #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(jwk: #"{"kty":"oct","k":"c2VjcmV0","d":"x"}"#) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(jwk: "not json") }
    }

    @Test(arguments: [
        ("methods: [private_key_jwt]", "a private key"), ("methods: [tls_client_auth]", "a client certificate"),
        ("methods: [client_secret_jwt]", "a client secret"),
    ])
    func aMissingCredentialIsNamed(_ clientAuth: String, _ needs: String) throws {
        let provider = try TestDescriptor(extra: "client_auth:\n  \(clientAuth)\n").provider()
        let error = try #require(throws: FlowError.self) { try ClientConfiguration.service(clientID: "svc").authenticationMethod(for: provider) }
        #expect(error.message.contains(needs), "\(error.message)")
    }

    @Test func theFirstListedMethodWhoseCredentialIsHeldIsChosen() throws {
        let provider = try TestDescriptor(extra: "client_auth:\n  methods: [none, private_key_jwt, client_secret_basic, tls_client_auth]\n").provider()
        let key = try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)
        #expect(try ClientConfiguration.service(clientID: "c").authenticationMethod(for: provider) == .none)
        #expect(try ClientConfiguration.service(clientID: "c", clientSecret: Secret("s")).authenticationMethod(for: provider) == .clientSecretBasic)
        #expect(try ClientConfiguration.service(clientID: "c", signingKey: key).authenticationMethod(for: provider) == .privateKeyJWT)
        #expect(
            try ClientConfiguration.service(clientID: "c", clientSecret: Secret("s"), signingKey: key).authenticationMethod(for: provider)
                == .privateKeyJWT, "the provider's order decides")
        let secretOnly = try TestDescriptor(extra: "client_auth:\n  methods: [client_secret_basic]\n").provider()
        let error = try #require(throws: FlowError.self) {
            try ClientConfiguration.service(clientID: "c", signingKey: key).authenticationMethod(for: secretOnly)
        }
        #expect(error.message.contains("none of them uses a private key"), "\(error.message)")
    }

    @Test func anIssuerlessProviderNeedsTheTokenEndpointAudience() async throws {
        let yaml = """
            schema_version: 1
            id: plain
            display_name: Plain
            protocol: oauth2
            endpoints:
              authorization: https://auth.example.com/authorize
              token: https://auth.example.com/token
            grant_types: [client_credentials]
            client_auth:
              methods: [private_key_jwt]

            """
        let provider = try #require(DescriptorDocument.parse(Data(yaml.utf8), path: "plain.yaml").descriptor).resolve([:])
        let transport = RecordingTransport(CannedTransport(body: #"{"access_token":"a","token_type":"Bearer"}"#))
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc", signingKey: try ClientConfiguration.SigningKey(pem: Self.ecKey.pemRepresentation)), environment: OAuthEnvironment(transport: transport))
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error?.message.contains("assertion_audience: token_endpoint") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test func aCertificateIsNeverPresentedOverPlainHTTP() async throws {
        let provider = try TestDescriptor(
            issuer: "http://127.0.0.1:9", extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [tls_client_auth]\n"
        ).provider()
        let identity = TLSClientIdentity(certificateChainPEM: "c", privateKeyPEM: Secret("k"))
        let transport = RecordingTransport(CannedTransport(body: "{}"))
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc", tlsIdentity: identity), environment: OAuthEnvironment(transport: transport))
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error?.message.contains("is not https") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [#""mtls_endpoint_aliases": "garbage""#, #""mtls_endpoint_aliases": {"token_endpoint": 5}"#])
    func anOddAliasValueLeavesDiscoveryWorking(_ aliases: String) async throws {
        let document = #"{"issuer": "https://auth.example.com", "token_endpoint": "https://auth.example.com/token", \#(aliases)}"#
        let provider = try TestDescriptor(endpoints: [], extra: "discovery:\n  mode: rfc8414\n").provider()
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "svc"), environment: OAuthEnvironment(transport: CannedTransport(body: document)))
        let discovered = try await client.discoveredProvider()
        #expect(discovered.endpoints.token == URL(string: "https://auth.example.com/token"))
        #expect(discovered.endpoints.mtlsToken == nil)
    }
}
