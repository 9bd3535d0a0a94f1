import Crypto
import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// `client_auth.generated_secret`: the client secret is a JWT the client signs (Sign in with Apple's shape).
@Suite struct GeneratedSecretTests {
    let key = P256.Signing.PrivateKey()

    func client(_ extra: String, clock: any DateClock, signingKey: Bool = true) throws -> OAuthClient {
        let provider = try TestDescriptor(
            extra: "variables:\n  team:\n    description: Team\n    pattern: '^[A-Z0-9]+$'\n    example: TEAM123456\n"
                + "client_auth:\n  method: client_secret_post\n  generated_secret:\n" + extra
        ).provider(["team": "TEAM123456"])
        return OAuthClient(provider: provider,
            configuration: ClientConfiguration(
                clientID: "com.example.web", redirectURI: URL(string: "https://app.example.com/cb")!,
                signingKey: signingKey ? try ClientConfiguration.SigningKey(pem: key.pemRepresentation, keyID: "KID1") : nil), environment: OAuthEnvironment(clock: clock))
    }

    @Test func theSecretIsSignedWithTheClientsKeyAndReusedWhileYoung() async throws {
        let clock = MovableClock()
        let oauth = try client("    issuer: '{client_id}'\n    audience: https://auth.example.com/{client_id}\n    lifetime: 600\n", clock: clock)
        let first = try #require(try await oauth.clientSecret())
        let jws = try CompactJWS(first.value)
        #expect(jws.header["alg"]?.stringValue == "ES256" && jws.header["kid"]?.stringValue == "KID1")
        #expect(jws.claims["iss"]?.stringValue == "com.example.web" && jws.claims["sub"]?.stringValue == "com.example.web")
        #expect(jws.claims["aud"]?.stringValue == "https://auth.example.com/com.example.web")
        let issued = try #require(jws.claims["iat"]?.numberValue), expires = try #require(jws.claims["exp"]?.numberValue)
        #expect(expires - issued == 600)
        #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: jws.signature), for: Data(jws.signingInput)))
        clock.advance(400)
        #expect(try await oauth.clientSecret() == first, "reused while more than a sixth of its life is left")
        clock.advance(120)
        #expect(try await oauth.clientSecret() != first, "signed again when less is left")
    }

    @Test func aVariableFillsTheIssuerAndAMissingKeyIsNamed() async throws {
        let oauth = try client("    issuer: '{team}'\n    audience: https://auth.example.com\n", clock: SystemDateClock())
        let secret = try #require(try await oauth.clientSecret())
        #expect(try CompactJWS(secret.value).claims["iss"]?.stringValue == "TEAM123456")
        let keyless = try client("    issuer: '{team}'\n    audience: https://auth.example.com\n", clock: SystemDateClock(), signingKey: false)
        let error = try #require(throws: FlowError.self) { try keyless.configuration.authenticationMethod(for: keyless.provider) }
        #expect(error.message.contains("a private key with its Key ID (the client secret is a JWT signed with it"), "\(error)")
    }

    /// The provider finds the key to check the secret with by its Key ID: a key without one is refused before anything is sent.
    @Test func aKeyWithoutItsKeyIDIsRefusedBeforeTheBrowserOpens() async throws {
        let provider = try TestDescriptor(
            extra: "variables:\n  team:\n    description: Team\n    pattern: '^[A-Z0-9]+$'\n    example: TEAM123456\n"
                + "client_auth:\n  method: client_secret_post\n  generated_secret:\n    issuer: '{team}'\n    audience: https://auth.example.com\n"
        ).provider(["team": "TEAM123456"])
        let oauth = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(
                clientID: "com.example.web", redirectURI: URL(string: "https://app.example.com/cb")!,
                signingKey: try ClientConfiguration.SigningKey(pem: key.pemRepresentation)))
        let error = try await #require(throws: FlowError.self) { try await oauth.startAuthorization() }
        #expect(error.message.contains("Key ID"), "\(error)")
    }

    @Test func theSecretsTimesAreWholeSeconds() async throws {
        let clock = MovableClock()
        clock.advance(0.75)
        let oauth = try client("    issuer: '{team}'\n    audience: https://auth.example.com\n", clock: clock)
        let secret = try #require(try await oauth.clientSecret()).value
        let payload = try #require(Base64URL.decode(String(secret.split(separator: ".")[1])))
        let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        for name in ["iat", "exp"] {
            let text = String(describing: try #require(claims[name]))
            #expect(!text.contains("."), "\(name) is \(text)")
        }
    }
}
