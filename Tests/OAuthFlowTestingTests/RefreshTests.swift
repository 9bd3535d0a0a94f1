import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Refresh with rotation and reuse detection (RFC 6749 §6, RFC 9700 §4.14.2), through `TokenManager`.
@Suite struct RefreshTests {
    /// A signed-in session in a store, and its token manager.
    static func session(_ simulated: SimulatedProvider) async throws -> (TokenManager, SignInResult, OAuthClient) {
        let client = try Simulation.appClient(simulated)
        let store = InMemoryTokenStore()
        let outcome = try await Simulation.signIn(client, at: simulated)
        let result = try await SignInResult.store(
            outcome, client: client, redirectURI: Simulation.redirect, in: store, at: simulated.clock.now())
        return (TokenManager(client: client, store: store, key: result.session.key), result, client)
    }

    @Test func anExpiredAccessTokenIsRefreshedAndTheRefreshTokenRotated() async throws {
        let simulated = try SimulatedProvider()
        let (manager, signedIn, _) = try await Self.session(simulated)
        #expect(try await manager.validAccessToken() == signedIn.tokens.accessToken, "still valid: no refresh")
        simulated.clock.advance(3600)
        let refreshed = try await manager.validAccessToken()
        #expect(refreshed != signedIn.tokens.accessToken)
        let session = try await manager.session()
        #expect(session.tokens.refreshToken != signedIn.tokens.refreshToken, "rotated")
        #expect(await simulated.requestCount(.token) == 2)
        #expect(try await manager.userInfo()["sub"]?.stringValue == "user-1")
    }

    @Test func aSpentRefreshTokenPresentedAgainRevokesTheFamily() async throws {
        let simulated = try SimulatedProvider()
        let (manager, signedIn, client) = try await Self.session(simulated)
        _ = try await manager.refresh()
        // An attacker replays the first refresh token: refused, and the legitimate session's tokens die with it.
        let replay = await #expect(throws: AuthorizationServerError.self) { _ = try await client.refresh(signedIn.tokens) }
        #expect(replay?.error == "invalid_grant")
        let error = await #expect(throws: SessionError.self) { _ = try await manager.refresh() }
        #expect(error?.code == .signedOut)
    }

    @Test func withoutRotationTheRefreshTokenIsKept() async throws {
        var settings = SimulatedProvider.Settings()
        settings.rotatesRefreshTokens = false
        let simulated = try SimulatedProvider(settings: settings)
        let (manager, signedIn, _) = try await Self.session(simulated)
        let first = try await manager.refresh()
        let second = try await manager.refresh()
        #expect(first.tokens.refreshToken == signedIn.tokens.refreshToken && second.tokens.refreshToken == signedIn.tokens.refreshToken)
    }

    @Test func anExpiredRefreshTokenSignsTheSessionOut() async throws {
        var settings = SimulatedProvider.Settings()
        settings.refreshTokenLifetime = 7200
        let simulated = try SimulatedProvider(settings: settings)
        let (manager, _, _) = try await Self.session(simulated)
        simulated.clock.advance(7201)
        let error = await #expect(throws: SessionError.self) { _ = try await manager.validAccessToken() }
        #expect(error?.code == .signedOut)
    }

    @Test func aServerFailureDoesNotSignOutButInvalidGrantDoes() async throws {
        let simulated = try SimulatedProvider()
        let (manager, _, _) = try await Self.session(simulated)
        await simulated.failNext(.token, status: 503)
        await #expect(throws: (any Error).self) { _ = try await manager.refresh() }
        #expect(try await manager.session().tokens.refreshToken != nil, "still signed in")
        _ = try await manager.refresh()
        await simulated.failNext(.token, error: "invalid_grant")
        let error = await #expect(throws: SessionError.self) { _ = try await manager.refresh() }
        #expect(error?.code == .signedOut)
    }

    @Test func aNarrowerScopeMayBeAskedForAndAWiderOneNot() async throws {
        let simulated = try SimulatedProvider()
        let (_, signedIn, client) = try await Self.session(simulated)
        let narrowed = try await client.refresh(signedIn.tokens, scopes: ["openid", "email"])
        #expect(Set(narrowed.scopes) == ["openid", "email"])
        let error = await #expect(throws: AuthorizationServerError.self) {
            _ = try await client.refresh(narrowed, scopes: ["openid", "email", "admin"])
        }
        #expect(error?.error == "invalid_scope")
    }

    @Test func revocationEndsTheFamily() async throws {
        let simulated = try SimulatedProvider()
        let (_, signedIn, client) = try await Self.session(simulated)
        try await client.revoke(try #require(signedIn.tokens.refreshToken), kind: .refreshToken)
        await #expect(throws: AuthorizationServerError.self) { _ = try await client.userInfo(signedIn.tokens) }
        await #expect(throws: AuthorizationServerError.self) { _ = try await client.refresh(signedIn.tokens) }
    }
}
