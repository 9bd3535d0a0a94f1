import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// Rich authorization requests (RFC 9396) end to end against the simulated provider: details asked for through a
/// pushed request, granted in the token answer, the JWT access token and introspection, kept through refreshes, and
/// checked by an API that requires them.
@Suite struct RichAuthorizationTests {
    static let api = URL(string: "https://api.simulated.example")!
    static let accounts = AuthorizationDetail(
        type: "account_information",
        ["actions": .array([.string("read")]), "locations": .array([.string("https://api.simulated.example/accounts")])])
    static let payment = AuthorizationDetail(
        type: "payment_initiation", ["instructedAmount": .object(["currency": .string("EUR"), "amount": .string("10.00")])])

    static func options(jwt: Bool = true) -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.pushesAuthorizationRequests = true
        options.accessTokensAreJWTs = jwt
        return options
    }

    static func client(_ simulated: SimulatedProvider, _ details: [AuthorizationDetail], provider: Provider? = nil) throws -> OAuthClient {
        var configuration = ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: Simulation.redirect)
        configuration.authorizationDetails = details
        return OAuthClient(provider: try provider ?? simulated.provider(options()), configuration: configuration, environment: simulated.environment)
    }

    static func request(_ api: ProtectedResource, _ token: Secret) -> ProtectedResource.Request {
        api.accessRequest(authorization: ["Bearer \(token.value)"], dpop: [], method: "GET", path: "/accounts")
    }

    @Test func detailsGoThroughThePushedRequestAndComeBackWithTheTokens() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        let client = try Self.client(simulated, [Self.accounts])
        let pending = try await client.startAuthorization()
        #expect(Set(Simulation.query(pending.url).keys) == ["client_id", "request_uri"], "the details went in the pushed request")
        let outcome = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending)
        #expect(outcome.tokens.authorizationDetails == [Self.accounts])
        #expect(Simulation.claims(outcome.tokens.accessToken.value)["authorization_details"] == .array([.object(Self.accounts.members)]))

        // A refresh keeps them (the simulated provider grants them again; TokenResponseParser keeps them when a server does not).
        let refreshed = try await client.refresh(outcome.tokens)
        #expect(refreshed.authorizationDetails == [Self.accounts])

        let api = try ProtectedResource(
            providers: [try simulated.provider(Self.options())], settings: .init(resource: Self.api), environment: simulated.environment)
        let principal = try await api.authenticate(Self.request(api, refreshed.accessToken), details: ["account_information"])
        #expect(principal.authorizationDetails(ofType: "account_information") == [Self.accounts])
        #expect(principal.authorizationDetails(ofType: "account_information").first?.actions == ["read"])

        let denial = await #expect(throws: ProtectedResource.Denial.self) {
            _ = try await api.authenticate(Self.request(api, refreshed.accessToken), details: ["payment_initiation"])
        }
        #expect(denial?.code == .insufficientAuthorizationDetails)
        #expect(denial?.status == 403)
        #expect(denial?.reason.contains("payment_initiation") == true, "\(denial?.reason ?? "")")
        #expect(denial?.challenges.first?.contains(#"error="insufficient_scope""#) == true, "\(denial?.challenges ?? [])")
    }

    /// RFC 9396 §9.2: an opaque token's details come from introspection.
    @Test func anIntrospectedTokenCarriesItsDetails() async throws {
        let simulated = try SimulatedProvider()
        let provider = try simulated.provider(Self.options(jwt: false))
        let outcome = try await Simulation.signIn(try Self.client(simulated, [Self.payment], provider: provider), at: simulated)
        let api = try ProtectedResource(
            providers: [provider], settings: .init(resource: Self.api),
            introspectionClients: [provider.id: .service(clientID: SimulatedProvider.serviceClientID, clientSecret: Secret(SimulatedProvider.serviceSecret))],
            environment: simulated.environment)
        let principal = try await api.authenticate(Self.request(api, outcome.tokens.accessToken), details: ["payment_initiation"])
        #expect(principal.source == .introspection)
        #expect(principal.authorizationDetails == [Self.payment])
        // A token with no details at all is refused when a route requires them, and accepted where none are required.
        let plain = try await Simulation.signIn(try Self.client(simulated, [], provider: provider), at: simulated)
        await #expect(throws: ProtectedResource.Denial.self) { _ = try await api.authenticate(Self.request(api, plain.tokens.accessToken), details: ["payment_initiation"]) }
        #expect(try await api.authenticate(Self.request(api, plain.tokens.accessToken)).authorizationDetails.isEmpty)
    }

    /// RFC 9396 §7: the server may grant other details than were asked for. The client keeps what it says; the API
    /// checks what it needs, so a grant of another type opens nothing that requires the type asked for.
    @Test func detailsOfATypeNeverAskedForAreKeptAndTheAPIChecks() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure {
            $0.accessTokenFormat = .jwt
            $0.grantedAuthorizationDetails = .array([.object(["type": .string("loan_application")])])
        }
        let outcome = try await Simulation.signIn(try Self.client(simulated, [Self.accounts]), at: simulated)
        #expect(outcome.tokens.authorizationDetails == [AuthorizationDetail(type: "loan_application")])
        let api = try ProtectedResource(
            providers: [try simulated.provider(Self.options())], settings: .init(resource: Self.api), environment: simulated.environment)
        let denial = await #expect(throws: ProtectedResource.Denial.self) {
            _ = try await api.authenticate(Self.request(api, outcome.tokens.accessToken), details: ["account_information"])
        }
        #expect(denial?.reason.contains("loan_application") == true, "\(denial?.reason ?? "")")
    }

    /// Discovery's `authorization_details_types_supported` refuses another type before the pushed request is sent.
    @Test func discoveryDeclaresTheTypesWhenTheDescriptorDoesNot() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.authorizationDetailsTypes = ["account_information"] }
        var options = Self.options()
        options.usesDiscovery = true
        let provider = try simulated.provider(options)
        let error = await #expect(throws: FlowError.self) { _ = try await Self.client(simulated, [Self.payment], provider: provider).startAuthorization() }
        #expect(error?.code == .invalidAuthorizationDetails)
        #expect(error?.message.contains("authorization_details_types_supported") == true, "\(error?.message ?? "")")
        #expect(await simulated.requestCount(.pushedAuthorization) == 0)
        _ = try await Self.client(simulated, [Self.accounts], provider: provider).startAuthorization()
        #expect(await simulated.requestCount(.pushedAuthorization) == 1)
        // A server that checks what it is pushed says the same (RFC 9396 §5), in its own words.
        let unchecked = try Self.client(simulated, [Self.payment], provider: try simulated.provider(Self.options()))
        let refused = await #expect(throws: AuthorizationServerError.self) { _ = try await unchecked.startAuthorization() }
        #expect(refused?.error == "invalid_authorization_details")
    }

    /// The descriptor's types are the provider's word: a type it lacks is refused with nothing sent, even discovery.
    @Test func theDescriptorsTypesRefuseAnotherTypeWithNothingSent() async throws {
        let simulated = try SimulatedProvider()
        var descriptor = try simulated.descriptor(Self.options())
        descriptor.authorization.detailsTypes = ["payment_initiation"]
        let error = await #expect(throws: FlowError.self) {
            _ = try await Self.client(simulated, [Self.accounts], provider: try descriptor.resolve()).startAuthorization()
        }
        #expect(error?.message.contains("authorization.details_types") == true, "\(error?.message ?? "")")
        for endpoint in SimulatedProvider.Endpoint.allCases { #expect(await simulated.requestCount(endpoint) == 0, "\(endpoint)") }
    }

    /// RFC 9396 §5: a server refuses details it cannot read with `invalid_authorization_details`.
    @Test func theSimulatedProviderRefusesDetailsItCannotRead() async throws {
        let simulated = try SimulatedProvider()
        for details in [#"{"type":"a"}"#, #"[{"actions":["read"]}]"#, "not json"] {
            let response = try await Simulation.post(
                simulated, "token", [("grant_type", "client_credentials"), ("authorization_details", details)],
                headers: ["Authorization": SimulatedClientAuthenticationTests.basic(SimulatedProvider.serviceClientID, SimulatedProvider.serviceSecret)])
            #expect(Simulation.error(response) == "invalid_authorization_details", "\(details)")
        }
    }

    /// RFC 9396 §6: a service token request carries details too; each distinct list has its own cached token.
    @Test func serviceTokensAskForDetailsAndAreCachedPerList() async throws {
        let simulated = try SimulatedProvider()
        await simulated.configure { $0.accessTokenFormat = .jwt }
        let client = try Simulation.serviceClient(simulated)
        let issued = try await client.clientCredentialsToken(.init(scopes: ["reports.read"], authorizationDetails: [Self.accounts]))
        #expect(issued.authorizationDetails == [Self.accounts])
        #expect(Simulation.claims(issued.accessToken.value)["authorization_details"] == .array([.object(Self.accounts.members)]))
        let tokens = ServiceTokens(client: client)
        let accounts = try await tokens.accessToken(.init(authorizationDetails: [Self.accounts]))
        let payments = try await tokens.accessToken(.init(authorizationDetails: [Self.payment]))
        #expect(accounts != payments)
        #expect(try await tokens.accessToken(.init(authorizationDetails: [Self.accounts])) == accounts)
        #expect(tokens.key(for: .init(authorizationDetails: [Self.accounts])).sessionKey != tokens.key(for: .init()).sessionKey)
        #expect(tokens.key(for: .init()).sessionKey == tokens.key(for: .init(authorizationDetails: [])).sessionKey)
    }
}
