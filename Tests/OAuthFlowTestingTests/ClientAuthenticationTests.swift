import Crypto
import Foundation
import JWTKit
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Client authentication at the token endpoint (RFC 6749 §2.3): `client_secret_basic`, `client_secret_post`, `none`, and
/// client assertions (RFC 7523): `client_secret_jwt`, `private_key_jwt`.
@Suite struct SimulatedClientAuthenticationTests {
    static func basic(_ id: String, _ secret: String) -> String {
        "Basic " + Data("\(FormEncoding.encode(id)):\(FormEncoding.encode(secret))".utf8).base64EncodedString()
    }

    @Test func basicPostAndNoneEachWorkForTheirClient() async throws {
        let simulated = try SimulatedProvider(clients: [
            .confidential(id: "basic client", secret: "a secret+with:odd chars"),
            .confidential(id: "post-client", secret: "post-secret", authentication: .clientSecretPost),
            .public(id: "public-client"),
        ])
        let basic = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials")], headers: ["Authorization": Self.basic("basic client", "a secret+with:odd chars")])
        #expect(basic.status == 200)
        let post = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("client_id", "post-client"), ("client_secret", "post-secret")])
        #expect(post.status == 200)
        let none = try await Simulation.post(simulated, "token", [("grant_type", "client_credentials"), ("client_id", "public-client")])
        #expect(Simulation.error(none) == "unauthorized_client", "a public client has no token of its own")
    }

    @Test func aWrongSecretOrAnotherMethodIsInvalidClient() async throws {
        let simulated = try SimulatedProvider()
        let wrong = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials")], headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, "nope")])
        #expect(wrong.status == 401 && Simulation.error(wrong) == "invalid_client")
        #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        let posted = try await Simulation.post(
            simulated, "token",
            [("grant_type", "client_credentials"), ("client_id", SimulatedProvider.serviceClientID), ("client_secret", SimulatedProvider.serviceSecret)])
        #expect(posted.status == 401, "the service registered client_secret_basic")
        let unknown = try await Simulation.post(simulated, "token", [("grant_type", "client_credentials"), ("client_id", "nobody")])
        #expect(unknown.status == 401)
    }

    @Test func twoMethodsAtOnceOrARepeatedParameterIsInvalidRequest() async throws {
        let simulated = try SimulatedProvider()
        let both = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("client_secret", SimulatedProvider.serviceSecret)],
            headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
        #expect(Simulation.error(both) == "invalid_request")
        let repeated = try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials"), ("grant_type", "client_credentials")],
            headers: ["Authorization": Self.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
        #expect(Simulation.error(repeated) == "invalid_request")
    }

    static let signingKey = P256.Signing.PrivateKey()

    /// A service client that signs its assertions with `signingKey` (or a secret), at a provider that lists `method` only.
    static func assertingClient(
        _ simulated: SimulatedProvider, method: ProviderDescriptor.ClientAuthMethod, audience: ProviderDescriptor.AssertionAudience = .issuer
    ) throws -> OAuthClient {
        var options = SimulatedProvider.DescriptorOptions()
        options.clientAuthentication = [method]
        options.assertionAudience = audience
        let configuration: ClientConfiguration =
            method == .privateKeyJWT
            ? .service(clientID: "signer", signingKey: try ClientConfiguration.SigningKey(pem: signingKey.pemRepresentation))
            : .service(clientID: "signer", clientSecret: Secret("a-shared-secret-of-the-signer-0123456789"))
        return OAuthClient(provider: try simulated.provider(options), configuration: configuration, environment: simulated.environment)
    }

    @Test(arguments: [ProviderDescriptor.AssertionAudience.issuer, .tokenEndpoint])
    func aPrivateKeyAssertionAuthenticatesTheClientEverywhere(audience: ProviderDescriptor.AssertionAudience) async throws {
        let simulated = try SimulatedProvider(clients: [.privateKeyJWT(id: "signer", publicKeyPEM: Self.signingKey.publicKey.pemRepresentation)])
        let client = try Self.assertingClient(simulated, method: .privateKeyJWT, audience: audience)
        let token = try await client.clientCredentialsToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        #expect(try await client.introspect(token.accessToken)["client_id"] == .string("signer"))
        try await client.revoke(token.accessToken, kind: .accessToken)
        #expect(try await client.introspect(token.accessToken)["active"] == .bool(false))
    }

    @Test func aClientSecretJWTAuthenticatesTheClientAndAnotherKeyDoesNot() async throws {
        let simulated = try SimulatedProvider(clients: [
            .confidential(id: "signer", secret: "a-shared-secret-of-the-signer-0123456789", authentication: .clientSecretJWT)
        ])
        _ = try await Self.assertingClient(simulated, method: .clientSecretJWT).clientCredentialsToken()
        // The same client registered with another key: its assertions no longer verify.
        await simulated.register(.privateKeyJWT(id: "signer", publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation))
        let refused = await #expect(throws: AuthorizationServerError.self) {
            _ = try await Self.assertingClient(simulated, method: .privateKeyJWT).clientCredentialsToken()
        }
        #expect(refused?.error == "invalid_client" && refused?.httpStatus == 401)
    }

    /// RFC 7523 §3: a replayed assertion, one for another audience, an expired one or another client's is invalid_client.
    @Test func anAssertionIsUsedOnceForThisProviderBeforeItExpires() async throws {
        let simulated = try SimulatedProvider(clients: [.privateKeyJWT(id: "signer", publicKeyPEM: Self.signingKey.publicKey.pemRepresentation)])
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(pem: Self.signingKey.pemRepresentation))
        func assertion(audience: String = simulated.issuer.absoluteString, expiresIn: TimeInterval = 60, issuer: String = "signer") async throws -> String {
            let now = simulated.clock.now().timeIntervalSince1970.rounded(.down)
            let claims: [String: JSONValue] = [
                "iss": .string(issuer), "sub": .string("signer"), "aud": .string(audience), "jti": .string(UUID().uuidString),
                "iat": .number(now), "exp": .number(now + expiresIn),
            ]
            return try await keys.sign(Claims(members: claims))
        }
        func send(_ assertion: String) async throws -> TransportResponse {
            try await Simulation.post(
                simulated, "token",
                [
                    ("grant_type", "client_credentials"), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", assertion),
                ])
        }
        let once = try await assertion()
        #expect(try await send(once).status == 200)
        #expect(Simulation.error(try await send(once)) == "invalid_client", "replayed")
        #expect(Simulation.error(try await send(try await assertion(audience: "https://elsewhere.example"))) == "invalid_client")
        #expect(Simulation.error(try await send(try await assertion(expiresIn: -1))) == "invalid_client")
        #expect(Simulation.error(try await send(try await assertion(issuer: "someone-else"))) == "invalid_client")
        #expect(try await send(try await assertion(audience: simulated.issuer.appendingPathComponent("token").absoluteString)).status == 200)
    }

    /// Claims of any shape, for jwt-kit to sign.
    struct Claims: JWTPayload {
        let members: [String: JSONValue]
        init(members: [String: JSONValue]) { self.members = members }
        init(from decoder: any Decoder) throws { members = try [String: JSONValue](from: decoder) }
        func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }
}
