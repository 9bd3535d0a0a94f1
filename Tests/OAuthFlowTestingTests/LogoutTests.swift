import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0) received by `ProviderLogoutReceiver`.
@Suite struct LogoutTests {
    @Test func aLogoutTokenEndsTheUsersSession() async throws {
        let simulated = try SimulatedProvider()
        let client = try Simulation.appClient(simulated)
        let store = InMemoryTokenStore()
        let outcome = try await Simulation.signIn(client, at: simulated, subject: "carol")
        let result = try await SignInResult.store(outcome, client: client, redirectURI: Simulation.redirect, in: store, at: simulated.clock.now())
        let sid = try #require(outcome.idToken?.all["sid"]?.stringValue)
        let token = try await simulated.logoutToken(subject: "carol", sessionID: sid)
        let receiver = ProviderLogoutReceiver(client: client, sessions: store)
        let answer = await receiver.receiveBackChannel(body: Data(FormEncoding.encode([("logout_token", token)]).utf8), contentType: "application/x-www-form-urlencoded")
        #expect(answer.status == 200)
        #expect(answer.ended == [result.session.key])
        #expect(await store.load(result.session.key) == nil)
        // The provider ended its side too: the refresh token is gone.
        await #expect(throws: AuthorizationServerError.self) { _ = try await client.refresh(outcome.tokens) }
        // A replay of the same token is refused.
        let replay = await receiver.receiveBackChannel(body: Data(FormEncoding.encode([("logout_token", token)]).utf8), contentType: "application/x-www-form-urlencoded")
        #expect(replay.status == 400)
    }

    @Test func aLogoutTokenIsTypedAndCarriesTheEvent() async throws {
        let simulated = try SimulatedProvider()
        let token = try await simulated.logoutToken(subject: "dave")
        let header = try JSONDecoder().decode([String: JSONValue].self, from: try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
        #expect(header["typ"]?.stringValue == "logout+jwt")
        let claims = Simulation.claims(token)
        #expect(claims["events"] == .object([IDTokenValidator.backChannelLogoutEvent: .object([:])]))
        #expect(claims["nonce"] == nil && claims["sub"]?.stringValue == "dave" && claims["jti"] != nil)
    }
}
