import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// RFC 8707 resource indicators: a client's `resources` go in the authorization request, the code exchange and every refresh.
@Suite struct ResourceIndicatorTests {
    static let resource = URL(string: "https://mcp.example/mcp")!

    @Test func sendsTheResourceOnAuthorizationTokenAndRefresh() async throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        let simulated = try SimulatedProvider(settings: settings)
        let sent = Locked<[TransportRequest]>([])
        let transport = ScriptedTransport { request, _ in
            sent.withLock { $0.append(request) }
            return try await simulated.transport.send(request)
        }
        var configuration = ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI)
        configuration.resources = [Self.resource]
        let client = OAuthClient(
            provider: try simulated.provider(), configuration: configuration,
            environment: OAuthEnvironment(transport: transport, clock: simulated.clock, nonces: simulated.nonces))
        let pending = try await client.startAuthorization()
        let tokens = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending).tokens
        _ = try await client.refresh(tokens)
        let forms = sent.withLock { $0 }.filter { $0.method == .post }.map {
            FormEncoding.decode(String(decoding: $0.body ?? Data(), as: UTF8.self))
        }
        let authorization = forms.first { $0.contains { $0 == ("response_type", "code") } }
            ?? (URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        #expect(authorization.filter { $0.0 == "resource" }.map(\.1) == [Self.resource.absoluteString])
        let tokenRequests = forms.filter { $0.contains { $0.0 == "grant_type" } }
        #expect(tokenRequests.count == 2)
        for form in tokenRequests {
            #expect(form.filter { $0.0 == "resource" }.map(\.1) == [Self.resource.absoluteString])
        }
    }

    @Test func refusesAResourceWithAFragment() async throws {
        let simulated = try SimulatedProvider()
        var configuration = ClientConfiguration(clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI)
        configuration.resources = [URL(string: "https://mcp.example/mcp#part")!]
        let client = OAuthClient(provider: try simulated.provider(), configuration: configuration, environment: simulated.environment)
        let error = await #expect(throws: FlowError.self) { _ = try await client.startAuthorization() }
        #expect(error?.code == .invalidResource)
    }
}
