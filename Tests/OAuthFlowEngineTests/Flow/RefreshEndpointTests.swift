import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// `endpoints.refresh`: a provider that takes refreshes apart from its token endpoint (Figma, DigitalOcean)
/// gets them there, and only them.
@Suite struct RefreshEndpointTests {
    @Test func refreshesGoToTheRefreshEndpointAndNothingElseDoes() async throws {
        let calls = Locked<[String]>([])
        let transport = ScriptedTransport { request, _ in
            calls.withLock { $0.append(request.url.absoluteString) }
            let body = #"{"access_token": "at-2", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-2"}"#
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let provider = try TestDescriptor(extra: "grant_types: [authorization_code, refresh_token, client_credentials]\nclient_auth:\n  method: client_secret_post\n")
            .with(endpoints: [("refresh", "https://auth.example.com/v1/oauth/refresh")]).provider()
        #expect(provider.endpoints.all.contains { $0.key == "refresh" })
        let client = OAuthClient(
            provider: provider,
            configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!, clientSecret: Secret("s")),
            environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(
            accessToken: Secret("at-1"), tokenType: "Bearer", expiresAt: nil, refreshToken: Secret("rt-1"), idToken: nil, scopes: [], issuedAt: Date())
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.accessToken.value == "at-2")
        #expect(calls.current == ["https://auth.example.com/v1/oauth/refresh"])
        _ = try await client.clientCredentialsToken()
        #expect(calls.current.last == "https://auth.example.com/token", "other grants stay at the token endpoint")
    }

    @Test func aPlainHTTPRefreshEndpointIsRefusedBeforeTheRefreshTokenIsSent() async throws {
        let calls = Locked<[String]>([])
        let transport = ScriptedTransport { request, _ in
            calls.withLock { $0.append(request.url.absoluteString) }
            return TransportResponse(status: 500)
        }
        #expect(throws: ProviderError.self) { try TestDescriptor().with(endpoints: [("refresh", "http://auth.example.com/refresh")]).provider() }
        // Refused when resolved; a provider made any other way is refused before the refresh token is sent.
        var endpoints = try TestDescriptor().provider().endpoints
        endpoints.refresh = URL(string: "http://auth.example.com/refresh")
        let provider = try TestDescriptor().provider().with(endpoints: endpoints, discovered: true)
        let client = OAuthClient(
            provider: provider, configuration: ClientConfiguration(clientID: "app", redirectURI: URL(string: "http://127.0.0.1/callback")!),
            environment: OAuthEnvironment(transport: transport))
        let tokens = TokenSet(
            accessToken: Secret("at-1"), tokenType: "Bearer", expiresAt: nil, refreshToken: Secret("rt-1"), idToken: nil, scopes: [], issuedAt: Date())
        let error = await #expect(throws: FlowError.self) { _ = try await client.refresh(tokens) }
        #expect(error?.code == .insecureEndpoint)
        #expect(calls.current.isEmpty)
    }
}
