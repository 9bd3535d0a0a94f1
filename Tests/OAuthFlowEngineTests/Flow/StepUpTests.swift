import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// Step-up at sign-in (OpenID Connect `max_age` and `acr_values`, RFC 9470): what the client asks goes in the
/// authorization request, and the ID token must show it was done (`auth_time`, `acr`), whatever the provider did.
@Suite struct StepUpTests {
    /// A sign-in at a simulated provider whose user last authenticated an hour ago, asking `maxAge` and `acr`.
    static func signIn(
        maxAge: Int? = nil, acr: [String] = [], settings change: (inout SimulatedProvider.Settings) -> Void = { _ in }
    ) async throws -> (OAuthClient.SignInOutcome, PendingAuthorization) {
        var settings = SimulatedProvider.Settings()
        settings.userAuthenticatedAgo = 3600
        settings.acrValuesSupported = ["urn:example:mfa"]
        settings.defaultACR = "urn:example:password"
        change(&settings)
        let simulated = try SimulatedProvider(settings: settings)
        var configuration = ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI)
        configuration.maximumAuthenticationAge = maxAge
        configuration.acrValues = acr
        let client = OAuthClient(provider: try simulated.provider(), configuration: configuration, environment: simulated.environment)
        let pending = try await client.startAuthorization()
        return (try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending), pending)
    }

    static func query(_ pending: PendingAuthorization, _ name: String) -> String? {
        URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    @Test func aStepUpIsAskedAndItsProofChecked() async throws {
        let (outcome, pending) = try await Self.signIn(maxAge: 300, acr: ["urn:example:mfa", "urn:example:otp"])
        #expect(Self.query(pending, "max_age") == "300" && Self.query(pending, "acr_values") == "urn:example:mfa urn:example:otp")
        #expect(pending.maximumAuthenticationAge == 300 && pending.acrValues == ["urn:example:mfa", "urn:example:otp"])
        let claims = try #require(outcome.idToken)
        #expect(claims.all["acr"]?.stringValue == "urn:example:mfa")
        let authenticated = try #require(claims.all["auth_time"]?.numericDate)
        #expect(Date().timeIntervalSince1970 - authenticated < 120, "the user signed in again")
    }

    @Test func withoutAStepUpNothingIsAskedNorChecked() async throws {
        let (outcome, pending) = try await Self.signIn()
        #expect(Self.query(pending, "max_age") == nil && Self.query(pending, "acr_values") == nil && pending.acrValues == nil)
        #expect(outcome.idToken?.all["acr"]?.stringValue == "urn:example:password")
    }

    /// A provider that ignores `max_age` hands back the hour-old authentication: refused (seen failing without the check).
    @Test func anAuthenticationOlderThanAskedIsRefused() async throws {
        let error = await #expect(throws: IDTokenError.self) {
            _ = try await Self.signIn(maxAge: 300) { $0.honoursStepUp = false }
        }
        #expect(error?.code == .authenticationTooOld, "\(String(describing: error))")
    }

    /// A provider that ignores `acr_values`, or cannot satisfy them, gives another `acr`: refused.
    @Test(arguments: [false, true])
    func anotherAuthenticationClassIsRefused(_ honours: Bool) async throws {
        let error = await #expect(throws: IDTokenError.self) {
            _ = try await Self.signIn(acr: [honours ? "urn:example:hardware-key" : "urn:example:mfa"]) { $0.honoursStepUp = honours }
        }
        #expect(error?.code == .acrNotSatisfied, "\(String(describing: error))")
        #expect(error?.message.contains("urn:example:password") == true, "\(String(describing: error))")
    }

    @Test func aStepUpItCannotCheckIsRefusedBeforeAnythingIsSent() async throws {
        let simulated = try SimulatedProvider()
        var configuration = ClientConfiguration(
            clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI, scopes: ["profile"])
        configuration.maximumAuthenticationAge = 60
        let client = OAuthClient(provider: try simulated.provider(), configuration: configuration, environment: simulated.environment)
        let withoutOpenID = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(withoutOpenID?.code == .stepUp)
        var spaced = ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI)
        spaced.acrValues = ["two words"]
        let malformed = await #expect(throws: FlowError.self) {
            _ = try await OAuthClient(provider: try simulated.provider(), configuration: spaced, environment: simulated.environment).startAuthorization()
        }
        #expect(malformed?.code == .stepUp)
    }
}
