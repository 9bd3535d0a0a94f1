import Foundation
import OAuthFlow
import OAuthFlowTestSupport
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

    /// Docs/apple.md, step 2: the redirect the default builds for Google's iOS client, and Cloudentity's once its
    /// `app_scheme` is given.
    @Test func theRedirectsTheGuideShowsAreBuilt() throws {
        let oauth = OAuth(OAuth.Configuration())
        let (google, cloudentity) = try AppleSignInDocExamples.redirects(oauth: oauth)
        #expect(google.absoluteString == "com.googleusercontent.apps.1234-abc:/oauth2redirect")
        let provider = try oauth.provider("cloudentity", variables: cloudentity.variables)
        let uri = try provider.appRedirectURI(clientID: cloudentity.clientID, bundleIdentifier: "com.example.simple-pkce")
        #expect(uri.absoluteString == "oauth://com.example.simple-pkce")
    }

    /// Docs/apple.md, "Who is signed in after a relaunch": nobody signed in is caught as the guide says, not thrown.
    @Test func nobodySignedInIsCaughtAsTheGuideShows() async throws {
        let oauth = OAuth(OAuth.Configuration(clients: ["cloudentity": ClientSettings(clientID: "c0ffee")], store: InMemoryTokenStore()))
        #expect(try await AppleSignInDocExamples.relaunch(oauth: oauth) == nil)
        let error = await #expect(throws: SessionError.self) { try await AppleSignInDocExamples.signOutHere(oauth: oauth) }
        #expect(error?.code == .notSignedIn)
    }

    /// Docs/apple.md, "Step-up from an app": one header value holding several challenges, as a response may combine
    /// repeated fields, is read as the list it is.
    @Test func aStepUpChallengeIsFoundInACombinedHeader() throws {
        let combined = #"Basic realm="api", Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa", max_age=300"#
        let stepUp = try #require(ProtectedResource.StepUp(challenges: [combined]))
        #expect(stepUp.acrValues == ["urn:example:mfa"] && stepUp.maximumAge == 300)
        #expect(ProtectedResource.StepUp(challenges: [""]) == nil)
    }

    /// Docs/apple.md, step 4: the Info.plist entries it shows are what the example's `AppClients` reads.
    @Test func theInfoPlistShapeTheGuideShowsIsRead() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/apple.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```xml\n"))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let plist = "<plist version=\"1.0\"><dict>" + guide[start.upperBound..<end.lowerBound] + "</dict></plist>"
        let info = try #require(try PropertyListSerialization.propertyList(from: Data(plist.utf8), format: nil) as? [String: Any])
        let clients = try AppClients.settings(infoDictionary: info)
        #expect(clients["google-ios"]?.clientID == "1234-abc.apps.googleusercontent.com")
        #expect(clients["cloudentity"]?.variables == ["tenant": "acme", "workspace": "demo", "app_scheme": "oauth"])
    }

    /// Docs/apple.md, step 3: the example registers reverse-DNS schemes only, never a generic one such as `oauth`.
    @Test func theExampleRegistersNoGenericScheme() throws {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Examples/AppleSignIn/App/Info.plist"))
        let info = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let types = try #require(info["CFBundleURLTypes"] as? [[String: Any]])
        let schemes = types.flatMap { $0["CFBundleURLSchemes"] as? [String] ?? [] }
        #expect(!schemes.isEmpty)
        for scheme in schemes {
            #expect(scheme.contains(".") || scheme == "$(PRODUCT_BUNDLE_IDENTIFIER)", "`\(scheme)` is not a reverse-DNS scheme")
        }
    }

    /// An opaque token, or a JWT with a part that is not JSON, is not shown as one.
    @Test(arguments: ["opaque-token", "a.b.c", "eyJhbGciOiJub25lIn0.bm90IGpzb24.", "eyJhIjoxfQ.eyJhIjoxfQ.sig.extra"])
    func whatIsNoJWTIsRefused(_ token: String) {
        #expect(throws: IDTokenError.self) { try UnverifiedJWT(token) }
    }
}
