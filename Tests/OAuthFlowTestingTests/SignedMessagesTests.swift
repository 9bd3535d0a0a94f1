import Crypto
import Foundation
import JWTKit
import OAuthFlow
import OAuthFlowTesting
import Testing

/// What the signed-message tests share: a client that signs with its own key, registered at the simulated provider.
enum SignedMessages {
    static let clientID = "signer"

    /// `options` with the client authenticating by `private_key_jwt` and the given response mode and request object setting.
    static func options(
        responseMode: ProviderDescriptor.ResponseMode = .query, requestObject: ProviderDescriptor.RequestObject = .never,
        pushed: Bool = false, discovery: Bool = false
    ) -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.clientAuthentication = [.privateKeyJWT]
        options.responseMode = responseMode
        options.requestObject = requestObject
        options.pushesAuthorizationRequests = pushed
        options.usesDiscovery = discovery
        return options
    }

    /// A client of `simulated` signing with `key` (registered with the provider under its public half, unless
    /// `registered` names another key's PEM).
    static func client(
        _ simulated: SimulatedProvider, _ options: SimulatedProvider.DescriptorOptions, key: ClientConfiguration.SigningKey?,
        registering publicKeyPEM: String
    ) async throws -> OAuthClient {
        await simulated.register(.privateKeyJWT(id: clientID, publicKeyPEM: publicKeyPEM, redirectURIs: [Simulation.redirect]))
        return OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(clientID: clientID, redirectURI: Simulation.redirect, signingKey: key),
            environment: simulated.environment)
    }

    /// A P-256 client key and its registered public half.
    static func p256() throws -> (ClientConfiguration.SigningKey, String) {
        let key = P256.Signing.PrivateKey()
        return (try ClientConfiguration.SigningKey(pem: key.pemRepresentation, keyID: "client-es256"), key.publicKey.pemRepresentation)
    }

    /// The header and claims of a compact JWS.
    static func decode(_ token: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue]) {
        try IDTokenValidator.decodeUnverified(token)
    }

    /// `url` with its query replaced by `fields`.
    static func callback(_ url: URL, _ fields: [(String, String)]) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = FormEncoding.encode(fields)
        return components.url!
    }
}

/// Signed request objects (RFC 9101) against the simulated provider, which verifies them with the client's registered key.
@Suite struct SimulatedRequestObjectTests {
    @Test(arguments: [false, true])
    func aSignedRequestSignsIn(pushed: Bool) async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresSignedRequestObject = true }
        let (key, publicPEM) = try SignedMessages.p256()
        let client = try await SignedMessages.client(
            simulated, SignedMessages.options(requestObject: .always, pushed: pushed), key: key, registering: publicPEM)
        let pending = try await client.startAuthorization()
        let query = Simulation.query(pending.url)
        if pushed {
            #expect(Set(query.keys) == ["client_id", "request_uri"])
        } else {
            // RFC 9101 §5: client_id outside; OpenID Connect Core §6.1: response_type and scope too. Nothing else.
            #expect(Set(query.keys) == ["client_id", "request", "response_type", "scope"])
            let (header, claims) = try SignedMessages.decode(try #require(query["request"]))
            #expect(header["typ"] == .string("oauth-authz-req+jwt"))
            #expect(header["alg"] == .string("ES256"))
            #expect(header["kid"] == .string("client-es256"))
            #expect(claims["iss"] == .string(SignedMessages.clientID))
            #expect(claims["client_id"] == .string(SignedMessages.clientID))
            #expect(claims["aud"] == .string(simulated.issuer.absoluteString))
            #expect(claims["state"] == .string(pending.state.value))
            #expect(claims["code_challenge_method"] == .string("S256"))
            for name in ["exp", "nbf", "iat"] { #expect(claims[name]?.numberValue != nil) }
            #expect(claims["jti"]?.stringValue?.isEmpty == false)
        }
        let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        #expect(outcome.idToken?.subject == "user-1")
    }

    @Test func aProviderThatRequiresSignedRequestsRefusesAPlainOne() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresSignedRequestObject = true }
        let (key, publicPEM) = try SignedMessages.p256()
        let client = try await SignedMessages.client(simulated, SignedMessages.options(), key: key, registering: publicPEM)
        let pending = try await client.startAuthorization()
        #expect(Simulation.query(try await simulated.approve(pending.url))["error"] == "invalid_request")
    }

    @Test func discoveryThatRequiresSignedRequestsGetsThem() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresSignedRequestObject = true }
        let (key, publicPEM) = try SignedMessages.p256()
        // `never` in the descriptor, but the server's metadata says `require_signed_request_object: true`.
        let client = try await SignedMessages.client(
            simulated, SignedMessages.options(pushed: true, discovery: true), key: key, registering: publicPEM)
        _ = try await client.discoveredProvider()
        let outcome = try await Simulation.signIn(client, at: simulated)
        #expect(outcome.idToken != nil)
    }

    @Test func ifSupportedSignsWhenDiscoveryListsTheKeysAlgorithm() async throws {
        let simulated = try SimulatedProvider()
        let (key, publicPEM) = try SignedMessages.p256()
        let client = try await SignedMessages.client(
            simulated, SignedMessages.options(requestObject: .ifSupported, discovery: true), key: key, registering: publicPEM)
        let pending = try await client.startAuthorization()
        #expect(Simulation.query(pending.url)["request"] != nil)
    }

    @Test func aRequestSignedWithAnotherKeyIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let (key, _) = try SignedMessages.p256()
        let client = try await SignedMessages.client(
            simulated, SignedMessages.options(requestObject: .always), key: key, registering: P256.Signing.PrivateKey().publicKey.pemRepresentation)
        let pending = try await client.startAuthorization()
        // The authorization endpoint shows an error page: a request it cannot trust is never redirected.
        let error = await #expect(throws: SimulationError.self) { _ = try await simulated.approve(pending.url) }
        #expect(error?.message.contains("does not verify") == true)
    }

    @Test func alwaysWithoutAPrivateKeyFailsBeforeTheBrowserOpens() async throws {
        let simulated = try SimulatedProvider()
        var options = SignedMessages.options(requestObject: .always)
        options.clientAuthentication = [.none]
        let client = OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: Simulation.redirect),
            environment: simulated.environment)
        let error = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(error?.code == .requestObject)
    }

    @Test func aKeyTheDescriptorDoesNotAllowIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let (key, publicPEM) = try SignedMessages.p256()
        var options = SignedMessages.options(requestObject: .always)
        options.extra = ""
        let descriptor = simulated.descriptorText(options).replacingOccurrences(
            of: "  request_object: always\n", with: "  request_object: always\n  request_object_algs: [PS256]\n")
        let document = DescriptorDocument.parse(Data(descriptor.utf8), path: "simulated.yaml")
        let provider = try #require(document.descriptor).resolve([:])
        await simulated.register(.privateKeyJWT(id: SignedMessages.clientID, publicKeyPEM: publicPEM, redirectURIs: [Simulation.redirect]))
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: SignedMessages.clientID, redirectURI: Simulation.redirect, signingKey: key),
            environment: simulated.environment)
        let error = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(error?.code == .requestObject)
    }
}

/// JWT-secured authorization responses (JARM) against the simulated provider, and every response the engine must refuse.
@Suite struct SimulatedJARMTests {
    /// A client of the public app, with the provider answering in `mode`.
    static func appClient(_ simulated: SimulatedProvider, _ mode: ProviderDescriptor.ResponseMode, pushed: Bool = false) throws
        -> OAuthClient
    {
        var options = SimulatedProvider.DescriptorOptions()
        options.responseMode = mode
        options.pushesAuthorizationRequests = pushed
        return try Simulation.appClient(simulated, options)
    }

    @Test(arguments: [ProviderDescriptor.ResponseMode.jwt, .queryJWT])
    func aSignedResponseInTheQuerySignsIn(mode: ProviderDescriptor.ResponseMode) async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, mode)
        let pending = try await client.startAuthorization()
        #expect(Simulation.query(pending.url)["response_mode"] == mode.rawValue)
        let callback = try await simulated.approve(pending.url)
        #expect(Set(Simulation.query(callback).keys) == ["response"])
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        #expect(outcome.idToken?.subject == "user-1")
    }

    @Test func aSignedResponseInAPostSignsIn() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .formPostJWT, pushed: true)
        let pending = try await client.startAuthorization()
        let (url, body) = try await simulated.approveWithPost(pending.url)
        #expect(url.path == Simulation.redirect.path)
        #expect(String(decoding: body, as: UTF8.self).hasPrefix("response="))
        let outcome = try await client.finishSignIn(.formPost(body), pending: pending)
        #expect(outcome.idToken != nil)
    }

    @Test func requestObjectAndSignedResponseTogether() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure {
            $0.requiresSignedRequestObject = true
            $0.requiresPushedAuthorization = true
        }
        let (key, publicPEM) = try SignedMessages.p256()
        let client = try await SignedMessages.client(
            simulated, SignedMessages.options(responseMode: .jwt, requestObject: .always, pushed: true), key: key, registering: publicPEM)
        let outcome = try await Simulation.signIn(client, at: simulated)
        #expect(outcome.idToken != nil)
    }

    @Test func anErrorInsideTheJWTIsTheProvidersError() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let error = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.finishSignIn(.callback(try await simulated.deny(pending.url)), pending: pending)
        }
        #expect(error?.error == "access_denied")
    }

    /// A genuine response's claims changed by `change` and signed again with the provider's key.
    static func forged(
        _ simulated: SimulatedProvider, _ pending: PendingAuthorization, _ change: (inout [String: JSONValue]) -> Void
    ) async throws -> URL {
        let genuine = try await simulated.approve(pending.url)
        var claims = try SignedMessages.decode(try #require(Simulation.query(genuine)["response"])).claims
        change(&claims)
        return SignedMessages.callback(genuine, [("response", try await simulated.signAuthorizationResponse(claims))])
    }

    static let refusals: [(String, @Sendable (inout [String: JSONValue]) -> Void)] = [
        ("wrong aud", { $0["aud"] = .string("another-client") }),
        ("wrong iss", { $0["iss"] = .string("https://attacker.example") }),
        ("no iss", { $0["iss"] = nil }),
        ("no exp", { $0["exp"] = nil }),
        ("state mismatch", { $0["state"] = .string("not-the-state") }),
    ]

    @Test(arguments: 0..<5)
    func aForgedResponseIsRefused(case index: Int) async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let callback = try await Self.forged(simulated, pending, Self.refusals[index].1)
        let error = await #expect(throws: FlowError.self, "\(Self.refusals[index].0)") {
            _ = try await client.finishSignIn(.callback(callback), pending: pending)
        }
        #expect([.invalidCallback, .stateMismatch].contains(error?.code))
        #expect(await simulated.requestCount(.token) == 0)
    }

    @Test func anExpiredResponseIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url)
        simulated.clock.advance(600 + 61)
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.message.contains("expired") == true)
    }

    @Test func anUnsignedResponseIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let genuine = try await simulated.approve(pending.url)
        let token = try #require(Simulation.query(genuine)["response"])
        let payload = token.split(separator: ".")[1]
        let header = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))
        let callback = SignedMessages.callback(genuine, [("response", "\(header).\(payload).")])
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.message.contains("`none`") == true)
        #expect(await simulated.requestCount(.token) == 0)
    }

    @Test func aResponseSignedByAnotherKeyIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let genuine = try await simulated.approve(pending.url)
        let claims = try SignedMessages.decode(try #require(Simulation.query(genuine)["response"])).claims
        // Signed with another P-256 key under the provider's own `kid`.
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ES256PrivateKey(), kid: JWKIdentifier(string: await simulated.currentKeyID))
        let forged = try await keys.sign(ForgedClaims(members: claims), kid: JWKIdentifier(string: await simulated.currentKeyID))
        let callback = SignedMessages.callback(genuine, [("response", forged)])
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.message.contains("signature does not verify") == true)
    }

    @Test func aResponseBesideAPlainCodeIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let genuine = try await simulated.approve(pending.url)
        let token = try #require(Simulation.query(genuine)["response"])
        let callback = SignedMessages.callback(genuine, [("response", token), ("code", "injected-code")])
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.code == .invalidCallback)
        #expect(error?.message.contains("`code`") == true)
    }

    @Test func aPlainResponseIsRefusedWhenASignedOneWasAskedFor() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let genuine = try await simulated.approve(pending.url)
        let claims = try SignedMessages.decode(try #require(Simulation.query(genuine)["response"])).claims
        let plain = ["code", "state", "iss"].compactMap { name in claims[name]?.stringValue.map { (name, $0) } }
        let error = await #expect(throws: FlowError.self) {
            _ = try await client.finishSignIn(.callback(SignedMessages.callback(genuine, plain)), pending: pending)
        }
        #expect(error?.code == .invalidCallback)
    }

    @Test func anEncryptedResponseIsRefusedSayingSo() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let jwe = [#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#, "key", "iv", "text", "tag"].map { Base64URL.encode(Data($0.utf8)) }.joined(separator: ".")
        let callback = SignedMessages.callback(Simulation.redirect, [("response", jwe)])
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.message.contains("encrypted") == true)
    }

    @Test func aResponseWithARepeatedMemberIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let client = try Self.appClient(simulated, .jwt)
        let pending = try await client.startAuthorization()
        let genuine = try await simulated.approve(pending.url)
        let parts = try #require(Simulation.query(genuine)["response"]).split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        let doubled = Base64URL.encode(Data((#"{"state":"x","# + payload.dropFirst()).utf8))
        let callback = SignedMessages.callback(genuine, [("response", "\(parts[0]).\(doubled).\(parts[2])")])
        let error = await #expect(throws: FlowError.self) { _ = try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(error?.message.contains("more than once") == true)
    }
}

/// Claims of any shape, for a test to sign with a key of its own.
struct ForgedClaims: JWTPayload {
    let members: [String: JSONValue]

    init(members: [String: JSONValue]) { self.members = members }

    init(from decoder: any Decoder) throws { members = try [String: JSONValue](from: decoder) }

    func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
