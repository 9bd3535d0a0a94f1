import Crypto
import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Pushed authorization requests (RFC 9126) and DPoP (RFC 9449) against the simulated provider.
@Suite struct PushedAndDPoPTests {
    static func options(pushed: Bool = false, dpop: Bool = false, jwt: Bool = false) -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = pushed
        options.bindsTokensWithDPoP = dpop
        options.accessTokensAreJWTs = jwt
        return options
    }

    @Test func aPushedSignInSendsTheBrowserOnlyTheReference() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresPushedAuthorization = true }
        let client = try Simulation.appClient(simulated, Self.options(pushed: true))
        let pending = try await client.startAuthorization()
        #expect(Set(Simulation.query(pending.url).keys) == ["client_id", "request_uri"])
        let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        #expect(outcome.idToken != nil)
        #expect(await simulated.requestCount(.pushedAuthorization) == 1)
        // The request_uri is spent.
        await #expect(throws: SimulationError.self) { _ = try await simulated.approve(pending.url) }
    }

    @Test func aProviderThatRequiresPushingRefusesAPlainRequest() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresPushedAuthorization = true }
        let pending = try await Simulation.appClient(simulated).startAuthorization()
        #expect(Simulation.query(try await simulated.approve(pending.url))["error"] == "invalid_request")
    }

    @Test func anExpiredPushedRequestIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let pending = try await Simulation.appClient(simulated, Self.options(pushed: true)).startAuthorization()
        simulated.clock.advance(61)
        await #expect(throws: SimulationError.self) { _ = try await simulated.approve(pending.url) }
    }

    @Test func dpopWithNoncesBindsTheTokensToTheKey() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure {
            $0.requiresDPoP = true
            $0.requiresDPoPNonce = true
            $0.accessTokenFormat = .jwt
        }
        let client = try Simulation.appClient(simulated, Self.options(pushed: true, dpop: true, jwt: true))
        let outcome = try await Simulation.signIn(client, at: simulated)
        let key = try #require(outcome.tokens.proofKey)
        #expect(outcome.tokens.tokenType.lowercased() == "dpop")
        let claims = Simulation.claims(outcome.tokens.accessToken.value)
        #expect(claims["cnf"] == .object(["jkt": .string(key.thumbprint)]))
        #expect(try await client.userInfo(outcome.tokens)["sub"]?.stringValue == "user-1")
        // The refresh token of a public client is bound too: the refresh carries a proof of the same key.
        let refreshed = try await client.refresh(outcome.tokens)
        #expect(refreshed.proofKey == key)
        // A new nonce: the client is told once, and retries.
        await simulated.rotateDPoPNonce()
        _ = try await client.refresh(refreshed)
    }

    @Test func aBoundTokenSentAsBearerIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let outcome = try await Simulation.signIn(try Simulation.appClient(simulated, Self.options(dpop: true)), at: simulated)
        #expect(outcome.tokens.proofKey != nil)
        var bearer = outcome.tokens
        bearer.proofKey = nil
        let response = try await bearer.send(
            TransportRequest(method: .get, url: simulated.issuer.appendingPathComponent("userinfo")), environment: simulated.environment)
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate")?.hasPrefix("DPoP") == true)
    }

    /// A token request with a proof `make` builds, answered by the simulated provider.
    func tokenRequest(_ simulated: SimulatedProvider, proof: String) async throws -> TransportResponse {
        try await Simulation.post(
            simulated, "token", [("grant_type", "client_credentials")],
            headers: [
                "Authorization": SimulatedClientAuthenticationTests.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret),
                "DPoP": proof,
            ])
    }

    @Test func badProofsAreRefused() async throws {
        let simulated = try SimulatedProvider()
        let key = try DPoPKey.generate()
        let token = simulated.issuer.appendingPathComponent("token")
        let now = simulated.clock.now()
        let cases: [(String, String)] = [
            ("wrong htm", try await key.proof(method: .get, url: token, now: now)),
            ("wrong htu", try await key.proof(method: .post, url: simulated.issuer.appendingPathComponent("other"), now: now)),
            ("old iat", try await key.proof(method: .post, url: token, now: now.addingTimeInterval(-300))),
            ("future iat", try await key.proof(method: .post, url: token, now: now.addingTimeInterval(300))),
            ("not a JWT", "abc.def"),
        ]
        for (name, proof) in cases {
            let answer = try await tokenRequest(simulated, proof: proof)
            #expect(Simulation.error(answer) == "invalid_dpop_proof", "\(name)")
        }
        let good = try await key.proof(method: .post, url: token, now: now)
        #expect(try await tokenRequest(simulated, proof: good).status == 200)
        #expect(Simulation.error(try await tokenRequest(simulated, proof: good)) == "invalid_dpop_proof", "a replayed jti")
    }

    @Test func aProofWithoutTheNonceGetsOne() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.requiresDPoPNonce = true }
        let key = try DPoPKey.generate()
        let token = simulated.issuer.appendingPathComponent("token")
        let first = try await tokenRequest(simulated, proof: try await key.proof(method: .post, url: token, now: simulated.clock.now()))
        #expect(first.status == 400 && Simulation.error(first) == "use_dpop_nonce")
        let nonce = try #require(first.header("DPoP-Nonce"))
        let second = try await tokenRequest(simulated, proof: try await key.proof(method: .post, url: token, nonce: nonce, now: simulated.clock.now()))
        #expect(second.status == 200)
        #expect(Simulation.members(second)["token_type"]?.stringValue == "DPoP")
    }

    @Test func aForgedSignatureIsRefused() async throws {
        let simulated = try SimulatedProvider()
        let key = try DPoPKey.generate()
        let other = try DPoPKey.generate()
        let token = simulated.issuer.appendingPathComponent("token")
        let proof = try await key.proof(method: .post, url: token, now: simulated.clock.now())
        let forged = try await other.proof(method: .post, url: token, now: simulated.clock.now())
        // The header (and key) of one proof with the claims and signature of another.
        let parts = proof.split(separator: "."), forgedParts = forged.split(separator: ".")
        let mixed = [parts[0], forgedParts[1], forgedParts[2]].joined(separator: ".")
        #expect(Simulation.error(try await tokenRequest(simulated, proof: mixed)) == "invalid_dpop_proof")
    }
}
