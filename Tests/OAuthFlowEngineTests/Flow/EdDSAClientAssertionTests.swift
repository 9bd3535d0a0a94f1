import Crypto
import Foundation
import JWTKit
import OAuthFlowTestSupport
import Testing
import _CryptoExtras

@testable import OAuthFlow

/// `private_key_jwt` with an Ed25519 key (RFC 8037): read from PKCS#8 PEM or an OKP JWK, signed as `EdDSA`, and verified
/// by the simulated provider with the client's registered public key.
@Suite struct EdDSAClientAssertionTests {
    static let key = Curve25519.Signing.PrivateKey()

    /// RFC 8037 Appendix A.1's private key, and A.4's signing input and signature.
    static let rfcJWK =
        #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"rfc8037"}"#
    static let rfcInput = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    static let rfcSignature = "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    @Test func anEd25519KeySignsAssertionsTheProviderVerifiesWithItsPublicKey() async throws {
        let signing = try ClientConfiguration.SigningKey(pem: Self.key.pemRepresentation, keyID: "ed-2026")
        #expect(signing.algorithm == .eddsa)
        #expect("\(signing)" == "EdDSA key `ed-2026`")
        let (fields, _, simulated) = try await ClientAssertionTests.sent(
            .service(clientID: "svc", signingKey: signing), registered: .privateKeyJWT(id: "svc", publicKeyPEM: Self.key.publicKey.pemRepresentation),
            methods: [.privateKeyJWT])
        let keys = await JWTKeyCollection().add(eddsa: try EdDSA.PublicKey(pem: Self.key.publicKey.pemRepresentation))
        let (claims, header) = try await ClientAssertionTests.verify(fields["client_assertion"], with: keys)
        #expect(header.alg == "EdDSA")
        #expect(header.kid == "ed-2026")
        #expect(claims.iss == "svc" && claims.sub == "svc")
        #expect(claims.aud == simulated.issuer.absoluteString)
    }

    @Test func aProviderHoldingAnotherKeyRefusesTheAssertion() async throws {
        let signing = try ClientConfiguration.SigningKey(pem: Self.key.pemRepresentation)
        for registered in [Curve25519.Signing.PrivateKey().publicKey.pemRepresentation, P256.Signing.PrivateKey().publicKey.pemRepresentation] {
            let error = await #expect(throws: AuthorizationServerError.self) {
                _ = try await ClientAssertionTests.sent(
                    .service(clientID: "svc", signingKey: signing), registered: .privateKeyJWT(id: "svc", publicKeyPEM: registered),
                    methods: [.privateKeyJWT])
            }
            #expect(error?.error == "invalid_client")
        }
    }

    @Test func theRFC8037KeyReadFromItsJWKSignsAsTheRFCShows() async throws {
        let signing = try ClientConfiguration.SigningKey(jwk: Self.rfcJWK)
        #expect(signing.algorithm == .eddsa)
        #expect(signing.keyID == "rfc8037")
        let signature = try await signing.signature(of: Array(Self.rfcInput.utf8))
        #expect(Base64URL.encode(Data(signature)) == Self.rfcSignature, "Ed25519 is deterministic (RFC 8032 §5.1.6)")
    }

    @Test func aProviderThatLeavesEdDSAOutIsNotSentAnEdDSAAssertion() async throws {
        let provider = try TestDescriptor(
            extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [private_key_jwt]\n  assertion_algs: [ES256, PS256]\n"
        ).provider()
        let transport = RecordingTransport(CannedTransport(body: #"{"access_token":"a","token_type":"Bearer","expires_in":60}"#))
        let client = OAuthClient(
            provider: provider, configuration: .service(clientID: "svc", signingKey: try ClientConfiguration.SigningKey(pem: Self.key.pemRepresentation)),
            environment: OAuthEnvironment(transport: transport))
        let error = await #expect(throws: FlowError.self) { _ = try await client.clientCredentialsToken() }
        #expect(error?.message.contains("not EdDSA") == true, "\(error?.message ?? "")")
        #expect(transport.requests.isEmpty)
        // Listed, it is sent.
        let listed = try TestDescriptor(
            extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [private_key_jwt]\n  assertion_algs: [EdDSA]\n"
        ).provider()
        #expect(listed.policy.clientAssertion.algorithms == [.eddsa])
    }

    @Test func keysThatAreNotEd25519OrDoNotFitTheAlgorithmAreRefusedWithoutQuotingThem() throws {
        let pem = Self.key.pemRepresentation
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(pem: pem, algorithm: .es256) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(pem: P256.Signing.PrivateKey().pemRepresentation, algorithm: .eddsa) }
        let d = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
        let ed448 = try #require(throws: FlowError.self) {
            try ClientConfiguration.SigningKey(jwk: #"{"kty":"OKP","crv":"Ed448","d":"\#(d)","x":"AAAA"}"#)
        }
        #expect(ed448.message.contains("`Ed448`") && ed448.message.contains("Ed25519"), "\(ed448.message)")
        #expect(!ed448.message.contains(d))
        let mismatched = try #require(throws: FlowError.self) {
            try ClientConfiguration.SigningKey(jwk: #"{"kty":"OKP","crv":"Ed25519","d":"\#(d)","x":"\#(Base64URL.encode(Data(repeating: 9, count: 32)))"}"#)
        }
        #expect(!mismatched.message.contains(d))
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(jwk: #"{"kty":"OKP","crv":"Ed25519","d":"AAAA"}"#) }
        #expect(throws: FlowError.self) { try ClientConfiguration.SigningKey(jwk: Self.rfcJWK, algorithm: .es256) }
    }
}
