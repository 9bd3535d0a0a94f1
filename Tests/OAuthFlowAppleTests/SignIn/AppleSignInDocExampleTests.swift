import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

import OAuthFlowApple

/// Docs/apple.md's examples that run on Linux (AppleSignInDocExamples), run; and `UnverifiedJWT`, which shows a token.
@Suite struct AppleSignInDocExampleTests {
    /// The documented test user signs in through `AppSignIn`, and the token tabs show the JWT access token's parts.
    @Test func theDocumentedTestUserSignsInAndTheTabsShowTheToken() async throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let simulated = try SimulatedProvider(
            settings: settings, clients: [.public(id: "ios-app", redirectURIs: [URL(string: "com.example.app:/oauth2redirect")!])])
        var options = SimulatedProvider.DescriptorOptions()
        options.extra = "redirect:\n  private_use_scheme: '{bundle_id}'\n"
        let result = try await AppSignIn(
            store: InMemoryTokenStore(), authenticator: AppleSignInDocExamples.ApprovingUser(simulated: simulated), environment: simulated.environment,
            bundleIdentifier: "com.example.app"
        ).signIn(to: try simulated.provider(options), settings: ClientSettings(clientID: "ios-app"))
        AppleSignInDocExamples.tabs(result: result)
        let jwt = try UnverifiedJWT(result.tokens.accessToken.value)
        #expect(jwt.header["typ"]?.stringValue == "at+jwt" && jwt.payload["sub"]?.stringValue == "user-1")
        #expect(jwt.prettyPayload.contains("\"client_id\" : \"ios-app\""), "\(jwt.prettyPayload)")
    }

    /// An opaque token, or a JWT with a part that is not JSON, is not shown as one.
    @Test(arguments: ["opaque-token", "a.b.c", "eyJhbGciOiJub25lIn0.bm90IGpzb24.", "eyJhIjoxfQ.eyJhIjoxfQ.sig.extra"])
    func whatIsNoJWTIsRefused(_ token: String) {
        #expect(throws: IDTokenError.self) { try UnverifiedJWT(token) }
    }
}
