import Foundation
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

@testable import OAuthFlow

/// EdDSA end to end against a simulated provider that signs with Ed25519: a sign-in whose ID token, JWT access token and
/// DPoP proofs are all EdDSA, and the DPoP key itself (RFC 8037 §2 thumbprints, kept and read back).
@Suite struct EdDSADPoPTests {
    /// RFC 8037 Appendix A.3: the thumbprint of A.2's public key.
    @Test func anOKPThumbprintIsRFC8037s() {
        let jwk = ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"]
        #expect(DPoPKey.thumbprint(of: jwk) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    @Test func anEd25519KeySignsProofsThatVerifyWithTheKeyTheyCarry() async throws {
        let key = try DPoPKey.generate(.eddsa)
        let proof = try await key.proof(method: .post, url: URL(string: "https://as.example.com/token?x=1")!, accessToken: Secret("t"))
        let (header, claims) = try await DPoPTests.verify(proof)
        #expect(header["alg"]?.stringValue == "EdDSA")
        guard case let .object(jwk)? = header["jwk"] else { Issue.record("no jwk"); return }
        #expect(jwk == ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(key.publicJWK["x"] ?? "")], "the public key alone")
        #expect(claims["htu"]?.stringValue == "https://as.example.com/token")
        #expect("\(key)".hasPrefix("EdDSA DPoP key "))
    }

    @Test func anEd25519KeyKeptWithTheTokensComesBackTheSame() throws {
        let key = try DPoPKey.generate(.eddsa)
        let decoded = try JSONDecoder().decode(DPoPKey.self, from: JSONEncoder().encode(key))
        #expect(decoded == key && decoded.algorithm == .eddsa)
        // An Ed25519 key kept under another algorithm, or another key kept as EdDSA, is refused.
        let pem = try #require(String(data: try JSONEncoder().encode(key), encoding: .utf8))
        let relabeled = pem.replacingOccurrences(of: #""alg":"EdDSA""#, with: #""alg":"ES256""#)
        #expect(relabeled != pem)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DPoPKey.self, from: Data(relabeled.utf8)) }
        let ec = String(decoding: try JSONEncoder().encode(try DPoPKey.generate(.es256)), as: UTF8.self)
            .replacingOccurrences(of: #""alg":"ES256""#, with: #""alg":"EdDSA""#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DPoPKey.self, from: Data(ec.utf8)) }
    }

    /// The provider signs with Ed25519 and takes EdDSA proofs; the descriptor prefers EdDSA for the session's key.
    @Test func aSignInAtAnEd25519ProviderIsVerifiedAndBoundWithAnEd25519Key() async throws {
        var settings = SimulatedProvider.Settings()
        settings.signingAlgorithm = .eddsa
        settings.accessTokenFormat = .jwt
        settings.requiresDPoP = true
        let simulated = try SimulatedProvider(settings: settings)
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        options.dpopAlgorithms = [.eddsa, .es256]
        options.accessTokensAreJWTs = true
        let provider = try simulated.provider(options)
        #expect(provider.policy.idTokenAlgorithms == [.eddsa])
        #expect(provider.policy.accessTokens.algorithms == [.eddsa])
        let client = try Simulated.appClient(simulated, options)
        let outcome = try await Simulated.signIn(client, at: simulated)
        let idToken = try #require(outcome.tokens.idToken)
        #expect(try IDTokenValidator.decodeUnverified(idToken.value).header["alg"]?.stringValue == "EdDSA")
        #expect(outcome.tokens.proofKey?.algorithm == .eddsa)
        #expect(outcome.tokens.tokenType.lowercased() == "dpop")
        // The refresh is checked against the bound key, and its new ID token verified again.
        let refreshed = try await client.refresh(outcome.tokens)
        #expect(refreshed.proofKey == outcome.tokens.proofKey)
        // The API verifies the EdDSA access token and the Ed25519 proof that comes with it.
        let api = try ProtectedResource(
            providers: [provider], settings: .init(resource: URL(string: "https://api.simulated.example")!),
            environment: OAuthEnvironment(transport: simulated.transport, clock: simulated.clock))
        let url = URL(string: "https://api.simulated.example/notes")!
        let key = try #require(refreshed.proofKey)
        let proof = try await key.proof(method: .get, url: url, accessToken: refreshed.accessToken, now: simulated.clock.now())
        let principal = try await api.authenticate(
            ProtectedResource.Request(authorization: ["DPoP \(refreshed.accessToken.value)"], dpop: [proof], method: "GET", url: url))
        #expect(principal.subject == "user-1")
        #expect(principal.confirmation?.keyThumbprint == key.thumbprint)
    }

    @Test func aServerOfferingOnlyES256GetsAnES256KeyThoughEdDSAIsPreferred() async throws {
        let provider = try TestDescriptor(extra: "security:\n  dpop: if_supported\n  dpop_signing_alg_values_supported: [EdDSA, ES256]\n").provider()
        #expect(provider.policy.dpop.algorithms == [.eddsa, .es256])
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: "c", redirectURI: Simulated.redirect))
        func offering(_ names: [String]) -> Provider {
            provider.with(endpoints: provider.endpoints, capabilities: Provider.ServerCapabilities(dpopAlgorithms: names), discovered: true)
        }
        #expect(try await client.proofKey(for: offering(["ES256", "RS256"]))?.algorithm == .es256)
        #expect(try await client.proofKey(for: offering(["RS256", "EdDSA", "ES256"]))?.algorithm == .eddsa)
        #expect(try await client.proofKey(for: offering(["RS256"])) == nil)
    }
}
