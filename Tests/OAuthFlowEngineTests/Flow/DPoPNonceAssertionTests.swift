import Crypto
import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// A token request retried for a DPoP nonce (RFC 9449 §8) by a client that authenticates with `private_key_jwt`: the
/// retry carries a new client assertion, since an assertion is used once (RFC 7523 §3) and the simulated provider, as
/// a server that remembers `jti`s does, refuses one seen before.
@Suite struct DPoPNonceAssertionTests {
    @Test func aRetryForADPoPNonceSignsANewAssertion() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoP = true
        settings.requiresDPoPNonce = true
        let key = P256.Signing.PrivateKey()
        let simulated = try SimulatedProvider(
            settings: settings,
            clients: [.privateKeyJWT(id: "app", publicKeyPEM: key.publicKey.pemRepresentation, redirectURIs: [SimulatedProvider.appRedirectURI])])
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        options.clientAuthentication = [.privateKeyJWT]
        let sent = RecordingTransport(simulated.transport)
        var environment = simulated.environment
        environment.transport = sent
        let client = OAuthClient(
            provider: try simulated.provider(options),
            configuration: ClientConfiguration(
                clientID: "app", redirectURI: SimulatedProvider.appRedirectURI, signingKey: try .init(pem: key.pemRepresentation)),
            environment: environment)
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending).tokens
        #expect(tokens.isDPoPBound)

        let assertions = sent.requests.filter { $0.url.path == "/token" }.map { request in
            FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)).first { $0.0 == "client_assertion" }?.1
        }
        #expect(assertions.count == 2)
        #expect(Set(assertions.compactMap { $0 }).count == 2)
    }
}
