import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// RFC 9470 end to end: an API route requires a recent, strong authentication; a token whose user authenticated an hour
/// ago with a password is answered 401 `insufficient_user_authentication` with `acr_values` and `max_age`; the client
/// reads the challenge back, signs the user in again asking for it, and the second call passes. By JWT and by
/// introspection.
@Suite struct StepUpChallengeTests {
    static let resource = URL(string: "https://api.simulated.example")!
    static let required = ProtectedResource.StepUp(acrValues: ["urn:example:mfa"], maximumAge: 300)

    /// A simulated provider whose user last authenticated an hour ago by password, and an API trusting it.
    static func world(jwt: Bool) throws -> (SimulatedProvider, SignInRun, ProtectedResource) {
        var settings = SimulatedProvider.Settings()
        settings.userAuthenticatedAgo = 3600
        settings.acrValuesSupported = ["urn:example:mfa"]
        settings.defaultACR = "urn:example:password"
        if jwt { settings.accessTokenFormat = .jwt }
        let simulated = try SimulatedProvider(settings: settings)
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = jwt
        let run = SignInRun(client: try Simulated.appClient(simulated, options))
        let api = try ProtectedResource(
            providers: [try simulated.provider(options)], settings: .init(resource: resource),
            introspectionClients: jwt
                ? [:] : ["simulated": .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret))],
            environment: simulated.environment)
        return (simulated, run, api)
    }

    static func call(_ api: ProtectedResource, _ result: SignInResult) -> ProtectedResource.Request {
        ProtectedResource.Request(authorization: ["Bearer \(result.tokens.accessToken.value)"])
    }

    @Test(arguments: [true, false])
    func anAPIsChallengeIsAnsweredBySigningInAgain(jwt: Bool) async throws {
        let (simulated, run, api) = try Self.world(jwt: jwt)
        let store = InMemoryTokenStore()
        let first = try await run.run(Simulated.Approving(simulated: simulated), in: store)
        _ = try await api.authenticate(Self.call(api, first))   // a route without a requirement takes it

        let denial = try await #require(throws: ProtectedResource.Denial.self) {
            try await api.authenticate(Self.call(api, first), stepUp: Self.required)
        }
        #expect(denial.code == .insufficientUserAuthentication && denial.status == 401)
        let challenge = try #require(denial.challenges.first)
        #expect(challenge.hasPrefix("Bearer ") && challenge.contains("error=\"insufficient_user_authentication\""))
        #expect(challenge.contains("acr_values=\"urn:example:mfa\"") && challenge.contains("max_age=300"))

        let asked = try #require(ProtectedResource.StepUp(challenges: denial.challenges))
        #expect(asked == Self.required)
        let second = try await run.steppedUp(asked).run(Simulated.Approving(simulated: simulated), in: store)
        let principal = try await api.authenticate(Self.call(api, second), stepUp: Self.required)
        #expect(principal.claims["acr"]?.stringValue == "urn:example:mfa")
        #expect(await store.load(SessionKey(providerID: "simulated"))?.tokens.accessToken == second.tokens.accessToken)
    }

    /// Each half of the requirement alone: a strong but old authentication fails `max_age`; a recent password fails
    /// `acr_values`; a token that says neither fails both.
    @Test func eachHalfOfTheRequirementIsChecked() async throws {
        let (simulated, run, api) = try Self.world(jwt: true)
        let old = try await run.steppedUp(.init(acrValues: ["urn:example:mfa"])).run(Simulated.Approving(simulated: simulated), in: InMemoryTokenStore())
        _ = try await api.authenticate(Self.call(api, old), stepUp: .init(acrValues: ["urn:example:mfa"]))
        let tooOld = try await #require(throws: ProtectedResource.Denial.self) {
            try await api.authenticate(Self.call(api, old), stepUp: .init(maximumAge: 300))
        }
        #expect(tooOld.code == .insufficientUserAuthentication && tooOld.reason.contains("300 s"))
        #expect(tooOld.challenges.first?.contains("max_age=300") == true && tooOld.challenges.first?.contains("acr_values") == false)

        let recent = try await run.steppedUp(.init(maximumAge: 60)).run(Simulated.Approving(simulated: simulated), in: InMemoryTokenStore())
        _ = try await api.authenticate(Self.call(api, recent), stepUp: .init(maximumAge: 300))
        let weak = try await #require(throws: ProtectedResource.Denial.self) {
            try await api.authenticate(Self.call(api, recent), stepUp: .init(acrValues: ["urn:example:mfa"]))
        }
        #expect(weak.code == .insufficientUserAuthentication && weak.reason.contains("urn:example:password"))
    }

    @Test func aClientCredentialsTokenSaysNoAuthenticationAndIsRefused() async throws {
        let (simulated, _, api) = try Self.world(jwt: true)
        var options = SimulatedProvider.DescriptorOptions()
        options.accessTokensAreJWTs = true
        let service = try Simulated.serviceClient(simulated, options)
        let tokens = try await service.clientCredentialsToken()
        let request = ProtectedResource.Request(authorization: ["Bearer \(tokens.accessToken.value)"])
        _ = try await api.authenticate(request)
        for stepUp in [ProtectedResource.StepUp(maximumAge: 300), .init(acrValues: ["urn:example:mfa"])] {
            let denial = try await #require(throws: ProtectedResource.Denial.self) { try await api.authenticate(request, stepUp: stepUp) }
            #expect(denial.code == .insufficientUserAuthentication, "\(stepUp)")
        }
    }

    /// RFC 8628 carries no `acr_values` or `max_age`: a device sign-in asked for a step-up is refused before anything is
    /// sent, rather than run unchecked.
    @Test func theDeviceGrantRefusesAStepUpItCannotAskFor() async throws {
        let simulated = try SimulatedProvider()
        let run = SignInRun(client: try Simulated.appClient(simulated)).steppedUp(Self.required)
        let error = try await #require(throws: FlowError.self) { try await run.client.startDeviceAuthorization() }
        #expect(error.code == .stepUp)
        #expect(await simulated.requestCount(.deviceAuthorization) == 0)
    }

    @Test func aChallengeIsReadAsRFC9470WritesIt() {
        let both = #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR urn:x", max_age=5"#
        #expect(ProtectedResource.StepUp(challenges: [both]) == .init(acrValues: ["myACR", "urn:x"], maximumAge: 5))
        // Schemes and parameter names are matched case-insensitively; a DPoP challenge counts too.
        #expect(
            ProtectedResource.StepUp(challenges: [#"dpop algs="ES256", ERROR="insufficient_user_authentication", Max_Age=0"#])
                == .init(maximumAge: 0))
        // The step-up may follow another challenge in the same header.
        #expect(
            ProtectedResource.StepUp(challenges: [#"Basic realm="x", Bearer error="insufficient_user_authentication", acr_values="a""#])
                == .init(acrValues: ["a"]))
        for refused in [
            #"Bearer error="insufficient_scope", scope="a", acr_values="a""#,  // another error
            #"Bearer error="insufficient_user_authentication""#,  // nothing to ask for
            #"Bearer error="insufficient_user_authentication", max_age=-5"#,  // not a non-negative integer
            #"Bearer error="insufficient_user_authentication", max_age="soon""#,
            #"Basic error="insufficient_user_authentication", acr_values="a""#,  // not an OAuth scheme
            "",
        ] {
            #expect(ProtectedResource.StepUp(challenges: [refused]) == nil, "\(refused)")
        }
    }
}
