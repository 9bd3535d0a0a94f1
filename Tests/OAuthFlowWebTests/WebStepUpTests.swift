import Crypto
import Foundation
import OAuthFlowTesting
import OAuthFlowWeb
import Testing

import OAuthFlow

/// A web sign-in started with an API's step-up (RFC 9470) asks for it, and its callback is held to it: the pending
/// cookie carries what was asked, so the instance that finishes checks the ID token against it.
@Suite struct WebStepUpTests {
    static let origin = URL(string: "https://app.example.com")!

    static func web(honours: Bool, required: [String]? = nil) async throws -> (OAuthFlowTesting.SimulatedProvider, WebSignIn) {
        var settings = OAuthFlowTesting.SimulatedProvider.Settings()
        settings.userAuthenticatedAgo = 3600
        settings.acrValuesSupported = ["urn:example:mfa"]
        settings.defaultACR = "urn:example:password"
        settings.honoursStepUp = honours
        let simulated = try OAuthFlowTesting.SimulatedProvider(settings: settings)
        await simulated.register(SimulatedClient.public(id: "web-app", redirectURIs: [origin.appendingPathComponent("auth/simulated/callback")]))
        let key = try SessionKeyring.Key(id: "web-1", key: SymmetricKey(size: .bits256))
        var descriptor = try simulated.descriptor()
        descriptor.authorization.acrValues = required
        let web = try WebSignIn(
            providers: [(try descriptor.resolve([:]), ClientSettings(clientID: "web-app"))], origin: origin, keyring: SessionKeyring(current: key),
            environment: simulated.environment)
        return (simulated, web)
    }

    /// Starts with `stepUp`, approves, and finishes.
    static func signIn(_ simulated: OAuthFlowTesting.SimulatedProvider, _ web: WebSignIn, stepUp: ProtectedResource.StepUp?) async throws -> (
        URL, Result<WebSignInResult, WebSignInError>
    ) {
        let started = await web.start("simulated", stepUp: stepUp)
        let location = try #require(started.headers.first { $0.name == "Location" }.flatMap { URL(string: $0.value) })
        let pair = try #require(started.headers.first { $0.name == "Set-Cookie" }?.value.split(separator: ";").first?.split(separator: "=", maxSplits: 1))
        let callback = try await simulated.approve(location)
        let finished = await web.finish("simulated", callback: .init(query: try #require(callback.query) as String, cookies: [String(pair[0]): String(pair[1])]))
        return (location, finished)
    }

    static func query(_ url: URL, _ name: String) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    @Test func aSteppedUpSignInAsksForItAndGetsIt() async throws {
        let (simulated, web) = try await Self.web(honours: true)
        let (location, finished) = try await Self.signIn(simulated, web, stepUp: .init(acrValues: ["urn:example:mfa"], maximumAge: 300))
        #expect(Self.query(location, "acr_values") == "urn:example:mfa" && Self.query(location, "max_age") == "300")
        #expect(try finished.get().idToken?.all["acr"]?.stringValue == "urn:example:mfa")

        let (plain, _) = try await Self.signIn(simulated, web, stepUp: nil)
        #expect(Self.query(plain, "acr_values") == nil && Self.query(plain, "max_age") == nil, "the step-up was for that sign-in only")
    }

    @Test func aProviderThatIgnoresTheStepUpIsRefusedAtTheCallback() async throws {
        let (simulated, web) = try await Self.web(honours: false)
        let (_, finished) = try await Self.signIn(simulated, web, stepUp: .init(maximumAge: 300))
        #expect(finished.failureCode == "id_token_rejected", "\(finished)")
    }

    /// The descriptor's `authorization.acr_values` stay in force (RFC 9470 §4): a challenge naming only a weaker class
    /// starts nothing, and one naming the descriptor's among others asks the descriptor's alone (seen failing with the
    /// challenge's classes replacing the descriptor's).
    @Test func aStepUpCannotLowerTheDescriptorsClasses() async throws {
        let (simulated, web) = try await Self.web(honours: true, required: ["urn:example:mfa"])
        let weaker = await web.start("simulated", stepUp: .init(acrValues: ["urn:example:password"]))
        #expect(weaker.status != 302 && !weaker.headers.contains { $0.name == "Location" }, "\(weaker)")

        let (location, finished) = try await Self.signIn(simulated, web, stepUp: .init(acrValues: ["urn:example:password", "urn:example:mfa"]))
        #expect(Self.query(location, "acr_values") == "urn:example:mfa")
        #expect(try finished.get().idToken?.all["acr"]?.stringValue == "urn:example:mfa")
    }
}
