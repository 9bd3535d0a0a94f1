import Foundation
import OAuthFlowTesting
import Testing

import OAuthFlow

/// The profile a finished sign-in carries (issue 55, item 13): from the verified ID token and, when the descriptor's
/// profile names userinfo, from userinfo, for a provider that puts `name` and `email` there alone (OpenID Connect Core §5.4).
@Suite struct SignInProfileTests {
    /// Signs in to `simulated` in process and stores the session, as every sign-in route does.
    static func signIn(_ simulated: SimulatedProvider, requestOfflineAccess: Bool = true) async throws -> SignInResult {
        let client = OAuthClient(
            provider: try simulated.provider(),
            configuration: ClientConfiguration(
                clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI, requestOfflineAccess: requestOfflineAccess),
            environment: simulated.environment)
        let pending = try await client.startAuthorization()
        let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        return try await SignInResult.store(outcome, client: client, redirectURI: SimulatedProvider.appRedirectURI, in: InMemoryTokenStore())
    }

    static let ada: [String: JSONValue] = ["name": .string("Ada Lovelace"), "email": .string("ada@simulated.example"), "email_verified": .bool(true)]

    @Test func userinfoFillsWhatTheIDTokenLeavesOut() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { settings in
            settings.userClaimsInIDTokens = false
            settings.users = ["user-1": Self.ada]
        }
        let result = try await Self.signIn(simulated)
        #expect(result.idToken?.all["name"] == nil, "the ID token names only the subject")
        let profile = try #require(result.profile)
        #expect(profile.subject == "user-1")
        #expect(profile.name == "Ada Lovelace" && profile.email == "ada@simulated.example" && profile.emailVerified == true, "\(profile)")
        #expect(await simulated.requestCount(.userinfo) == 1)
        #expect(result.session.offlineAccessRequested == true)
    }

    /// Userinfo that fails leaves the profile to the ID token; the sign-in stands.
    @Test func aFailingUserinfoLeavesTheIDTokensProfile() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { settings in settings.users = ["user-1": Self.ada] }
        await simulated.failNext(.userinfo, status: 503)
        let result = try await Self.signIn(simulated, requestOfflineAccess: false)
        #expect(result.profile?.name == "Ada Lovelace", "from the ID token: \(String(describing: result.profile))")
        #expect(result.session.offlineAccessRequested == false)
    }
}
