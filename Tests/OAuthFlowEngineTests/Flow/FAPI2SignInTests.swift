import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing
import _CryptoExtras

import OAuthFlow

/// `security.profile: fapi2` at run time, against a simulated provider configured as a FAPI 2.0 server (pushed requests
/// required, DPoP with nonces, `private_key_jwt`): a sign-in goes through end to end, and what only the server reveals
/// (its metadata, its token answers, its signatures) is refused when it falls short, before anything is sent that should
/// not be.
@Suite struct FAPI2SignInTests {
    static let clientID = "bank-app"
    static let ecKey = P256.Signing.PrivateKey()
    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let edKey = Curve25519.Signing.PrivateKey()

    /// A client key, and the public key the provider registers for it.
    enum ClientKey: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case es256, ps256, eddsa, rs256

        var testDescription: String { rawValue }

        func signingKey() throws -> ClientConfiguration.SigningKey {
            switch self {
            case .es256: try .init(pem: FAPI2SignInTests.ecKey.pemRepresentation)
            case .ps256: try .init(pem: FAPI2SignInTests.rsaKey.pemRepresentation, algorithm: .ps256)
            case .rs256: try .init(pem: FAPI2SignInTests.rsaKey.pemRepresentation, algorithm: .rs256)
            case .eddsa:
                try .init(
                    jwk: #"{"kty":"OKP","crv":"Ed25519","d":"\#(Base64URL.encode(FAPI2SignInTests.edKey.rawRepresentation))"}"#)
            }
        }

        var publicKeyPEM: String {
            switch self {
            case .es256: FAPI2SignInTests.ecKey.publicKey.pemRepresentation
            case .ps256, .rs256: FAPI2SignInTests.rsaKey.publicKey.pemRepresentation
            case .eddsa: FAPI2SignInTests.edKey.publicKey.pemRepresentation
            }
        }
    }

    /// A simulated FAPI 2.0 server, a client held to the profile, and every request the client sent.
    struct Bank {
        let simulated: SimulatedProvider
        let client: OAuthClient
        let sent: RecordingTransport

        func requests(to path: String) -> [TransportRequest] { sent.requests.filter { $0.url.path == path } }
    }

    /// The settings of a FAPI 2.0 server: pushed requests only, DPoP-bound tokens, a nonce in every proof.
    static func fapiSettings(signing: JWSAlgorithm = .es256) -> SimulatedProvider.Settings {
        var settings = SimulatedProvider.Settings()
        settings.requiresPushedAuthorization = true
        settings.requiresDPoP = true
        settings.requiresDPoPNonce = true
        settings.signingAlgorithm = signing
        return settings
    }

    /// - Parameters:
    ///   - descriptor: Changes the descriptor's text.
    ///   - metadata: Changes the discovery document the client reads.
    ///   - tokenAnswer: Changes the token endpoint's successful answers.
    static func bank(
        key: ClientKey = .es256, settings: SimulatedProvider.Settings = fapiSettings(), descriptor: (String) -> String = { $0 },
        metadata: @escaping @Sendable (inout [String: JSONValue]) -> Void = { _ in },
        tokenAnswer: @escaping @Sendable (inout [String: JSONValue]) -> Void = { _ in }
    ) throws -> Bank {
        let simulated = try SimulatedProvider(
            settings: settings,
            clients: [.privateKeyJWT(id: clientID, publicKeyPEM: key.publicKeyPEM, redirectURIs: [SimulatedProvider.appRedirectURI])])
        var options = SimulatedProvider.DescriptorOptions()
        options.id = "bank"
        options.usesDiscovery = true
        options.pushesAuthorizationRequests = true
        options.bindsTokensWithDPoP = true
        options.clientAuthentication = [.privateKeyJWT]
        options.dpopAlgorithms = [.es256, .ps256]
        var text = simulated.descriptorText(options)
        // FAPI 2.0 takes ID tokens signed with PS256, ES256 or EdDSA; the simulated descriptor states EdDSA itself.
        let algorithms = simulated.keyAlgorithm == .eddsa ? "" : "  id_token_algs: [PS256, ES256]\n"
        text = text.replacingOccurrences(of: "security:\n", with: "security:\n  profile: fapi2\n" + algorithms)
        let document = DescriptorDocument.parse(Data(descriptor(text).utf8), path: "bank.yaml")
        let provider = try #require(document.descriptor, "\(document.problems)").resolve()

        let edited = ScriptedTransport { request, _ in
            let response = try await simulated.transport.send(request)
            func rewritten(_ change: (inout [String: JSONValue]) -> Void) throws -> TransportResponse {
                guard case var .object(members) = try JSONDecoder().decode(JSONValue.self, from: response.body) else { return response }
                change(&members)
                var changed = response
                changed.body = try JSONEncoder().encode(JSONValue.object(members))
                return changed
            }
            switch request.url.path {
            case "/.well-known/openid-configuration": return try rewritten(metadata)
            case "/token" where response.status == 200: return try rewritten(tokenAnswer)
            default: return response
            }
        }
        let sent = RecordingTransport(edited)
        var environment = simulated.environment
        environment.transport = sent
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: clientID, redirectURI: SimulatedProvider.appRedirectURI, signingKey: try key.signingKey()),
            environment: environment)
        return Bank(simulated: simulated, client: client, sent: sent)
    }

    /// The form fields of a request.
    static func fields(_ request: TransportRequest) -> [String: String] {
        Dictionary(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { first, _ in first })
    }

    /// The JSON object in the payload of a compact JWS.
    static func payload(_ jws: String) throws -> [String: JSONValue] {
        let part = try #require(jws.split(separator: ".").dropFirst().first)
        guard case let .object(members) = try JSONDecoder().decode(JSONValue.self, from: try #require(Base64URL.decode(String(part)))) else {
            throw FlowError(.invalidTokenResponse, "not a JSON object")
        }
        return members
    }

    static func header(_ jws: String) throws -> [String: JSONValue] {
        let part = try #require(jws.split(separator: ".").first)
        guard case let .object(members) = try JSONDecoder().decode(JSONValue.self, from: try #require(Base64URL.decode(String(part)))) else {
            throw FlowError(.invalidTokenResponse, "not a JSON object")
        }
        return members
    }

    @Test(arguments: [ClientKey.es256, .ps256, .eddsa])
    func aFAPIClientSignsInEndToEnd(_ key: ClientKey) async throws {
        let bank = try Self.bank(key: key)
        let pending = try await bank.client.startAuthorization()

        // The browser's URL carries the client and the pushed request's URI, nothing else.
        let query = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(Set(query.map(\.name)) == ["client_id", "request_uri"])

        // The pushed request: PKCE S256, a nonce of at most 64 characters, the DPoP key's thumbprint, and a client
        // assertion signed with the client's key and addressed to the issuer, as a string.
        let pushed = try #require(bank.requests(to: "/par").first)
        let fields = Self.fields(pushed)
        #expect(fields["code_challenge_method"] == "S256")
        let nonce = try #require(fields["nonce"])
        #expect(!nonce.isEmpty && nonce.count <= ProviderDescriptor.SecurityProfile.fapi2MaximumNonceLength)
        #expect(fields["dpop_jkt"] != nil)
        let assertion = try #require(fields["client_assertion"])
        #expect(try Self.header(assertion)["alg"] == .string(try key.signingKey().algorithm.rawValue))
        #expect(try Self.payload(assertion)["aud"] == .string(bank.simulated.issuer.absoluteString))

        let outcome = try await bank.client.finishSignIn(.callback(try await bank.simulated.approve(pending.url)), pending: pending)
        #expect(outcome.tokens.isDPoPBound)
        #expect(outcome.idToken?.subject == "user-1")
        // The token endpoint demanded a nonce once (RFC 9449 §8); the retry carried it.
        #expect(bank.requests(to: "/token").count == 2)
        #expect(try await bank.client.userInfo(outcome.tokens)["sub"] == .string("user-1"))
        let refreshed = try await bank.client.refresh(outcome.tokens)
        #expect(refreshed.isDPoPBound)
    }

    @Test func idTokensSignedWithEdDSAAreTaken() async throws {
        let bank = try Self.bank(settings: Self.fapiSettings(signing: .eddsa))
        let pending = try await bank.client.startAuthorization()
        let outcome = try await bank.client.finishSignIn(.callback(try await bank.simulated.approve(pending.url)), pending: pending)
        #expect(outcome.idToken?.subject == "user-1")
    }

    /// What the server's metadata reveals, each refused before the request is pushed or the browser opened.
    struct MetadataShortfall: CustomTestStringConvertible, Sendable {
        let name: String
        let change: @Sendable (inout [String: JSONValue]) -> Void
        var descriptor: @Sendable (String) -> String = { $0 }
        let says: String
        var testDescription: String { name }
    }

    static let shortfalls: [MetadataShortfall] = [
        .init(name: "no pushed request endpoint", change: { $0["pushed_authorization_request_endpoint"] = nil }, says: "pushed_authorization_request_endpoint"),
        .init(name: "no S256", change: { $0["code_challenge_methods_supported"] = .array([.string("plain")]) }, says: "lists plain"),
        .init(name: "no PKCE methods", change: { $0["code_challenge_methods_supported"] = nil }, says: "is missing"),
        .init(
            name: "no DPoP", change: { $0["dpop_signing_alg_values_supported"] = nil },
            descriptor: { $0.replacingOccurrences(of: "dpop: required", with: "dpop: if_supported") }, says: "sender-constrained"),
        .init(
            name: "DPoP with RS256 only", change: { $0["dpop_signing_alg_values_supported"] = .array([.string("RS256")]) },
            descriptor: { $0.replacingOccurrences(of: "dpop: required", with: "dpop: if_supported") }, says: "sender-constrained"),
    ]

    @Test(arguments: shortfalls)
    func metadataThatFallsShortIsRefusedBeforeAnythingIsPushed(_ shortfall: MetadataShortfall) async throws {
        let bank = try Self.bank(descriptor: shortfall.descriptor, metadata: shortfall.change)
        let error = try await #require(throws: FlowError.self) { try await bank.client.startAuthorization() }
        #expect(error.code == .securityProfile)
        #expect(error.message.contains("FAPI 2.0"), "\(error.message)")
        #expect(error.message.contains(shortfall.says), "\(error.message)")
        #expect(bank.requests(to: "/par").isEmpty)
        #expect(bank.requests(to: "/token").isEmpty)
    }

    @Test func metadataOfAnotherIssuerIsRefused() async throws {
        let bank = try Self.bank(metadata: { $0["issuer"] = .string("https://simulated.example/") })
        let error = try await #require(throws: DiscoveryError.self) { try await bank.client.startAuthorization() }
        #expect(error.code == .issuerMismatch)
        #expect(bank.sent.requests.count == 1)
    }

    @Test func anRS256ClientKeyIsRefusedBeforeAnythingIsPushed() async throws {
        let bank = try Self.bank(key: .rs256)
        let error = try await #require(throws: FlowError.self) { try await bank.client.startAuthorization() }
        #expect(error.code == .securityProfile)
        #expect(error.message.contains("PS256"), "\(error.message)")
        #expect(bank.requests(to: "/par").isEmpty)
    }

    /// RFC 9207 `iss` is required under the profile, even when the server's metadata does not promise it.
    @Test func aCallbackWithoutIssIsRefusedBeforeTheCodeIsSpent() async throws {
        let bank = try Self.bank(metadata: { $0["authorization_response_iss_parameter_supported"] = nil })
        let pending = try await bank.client.startAuthorization()
        let callback = try await bank.simulated.approve(pending.url)
        var components = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.filter { $0.name != "iss" }
        let stripped = try #require(components.url)
        await #expect(throws: FlowError.self) { try await bank.client.finishSignIn(.callback(stripped), pending: pending).tokens }
        #expect(bank.requests(to: "/token").isEmpty)
    }

    @Test func aBearerAnswerIsRefused() async throws {
        let bank = try Self.bank(tokenAnswer: { $0["token_type"] = .string("Bearer") })
        let pending = try await bank.client.startAuthorization()
        await #expect(throws: FlowError.self) {
            try await bank.client.finishSignIn(.callback(try await bank.simulated.approve(pending.url)), pending: pending).tokens
        }
    }

    /// Tokens got without a sign-in (client credentials) must be sender-constrained too: a Bearer answer to a request
    /// that carried no proof, from a client without a certificate, is not kept.
    @Test func aServiceTokenThatIsNotSenderConstrainedIsRefused() async throws {
        var settings = Self.fapiSettings()
        settings.requiresDPoP = false
        settings.offersDPoP = false
        let bank = try Self.bank(
            settings: settings, descriptor: { $0.replacingOccurrences(of: "dpop: required", with: "dpop: if_supported") })
        let error = try await #require(throws: FlowError.self) { try await bank.client.clientCredentialsToken() }
        #expect(error.code == .securityProfile)
        #expect(error.message.contains("not kept"), "\(error.message)")
    }

    @Test func anIDTokenSignedWithRS256IsRefused() async throws {
        let bank = try Self.bank(settings: Self.fapiSettings(signing: .rs256))
        let pending = try await bank.client.startAuthorization()
        await #expect(throws: IDTokenError.self) {
            try await bank.client.finishSignIn(.callback(try await bank.simulated.approve(pending.url)), pending: pending)
        }
    }

    /// RSA keys under 2048 bits are never taken from a key set (FAPI 2.0 asks for 2048 or more).
    @Test func aShortRSAKeyInTheKeySetIsNotUsed() async throws {
        let short = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey
        let primitives = try short.getKeyPrimitives()
        let jwks = #"{"keys":[{"kty":"RSA","kid":"short","alg":"PS256","n":"\#(Base64URL.encode(primitives.modulus))","e":"\#(Base64URL.encode(primitives.publicExponent))"}]}"#
        let keys = SigningKeys(
            url: URL(string: "https://bank.example.com/jwks")!, providerID: "bank", algorithms: [.ps256],
            transport: CannedTransport(body: jwks))
        let snapshot = try await keys.snapshot(for: "short")
        #expect(snapshot.count == 0)
    }
}
