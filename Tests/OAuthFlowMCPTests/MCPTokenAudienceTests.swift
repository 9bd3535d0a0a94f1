import Crypto
import Foundation
import OAuthFlow
import OAuthFlowMCPAuth
import Testing

/// A token the authorization server issued for another resource never goes to the MCP server, whatever the grant: a
/// server that names a trusted authorization server, which ignores RFC 8707's `resource`, would otherwise collect a
/// token for another API and replay it there (MCP authorization, "Token Audience Binding and Validation").
@Suite struct MCPTokenAudienceTests {
    typealias Scenarios = MCPConformanceTests

    /// A signed JWT access token of the conformance authorization server for `audience`.
    static func token(for audience: JSONValue) -> String {
        let now = Date().timeIntervalSince1970.rounded(.down)
        return MockJWT.sign(
            header: ["alg": .string("ES256"), "typ": .string("at+jwt")],
            claims: ["iss": .string(Scenarios.authOrigin), "aud": audience, "exp": .number(now + 600)],
            key: P256.Signing.PrivateKey())
    }

    static func expectRefused(_ error: (any Error)?, _ run: ConformanceRun, token: String) throws {
        let refusal = try #require(error as? MCPAuthorizationError, "\(String(describing: error))")
        #expect(refusal.code == .tokenMismatch && refusal.message.contains("https://api.corp.example"), "\(refusal)")
        #expect(!run.requests.values.contains { ConformanceRun.header($0, "Authorization")?.contains(token) == true })
    }

    @Test func theBrowserSignInsTokenForAnotherAPIIsNeitherSentNorKept() async throws {
        let run = ConformanceRun(version: .v20260728)
        let foreign = Self.token(for: .string("https://api.corp.example"))
        var auth = MockAuthServerOptions()
        auth.onTokenRequest = { body, _ in body["grant_type"] == "authorization_code" ? .token(foreign, scopes: []) : nil }
        let (_, _, client) = Scenarios.world(run, auth: auth)
        try Self.expectRefused(await client.runEverything(), run, token: foreign)
        let key = SessionKey(providerID: DescriptorDraftID.of(Scenarios.authOrigin), account: Scenarios.mcpOrigin + "/mcp")
        #expect(try await client.authorization.configuration.store.load(key) == nil)
    }

    @Test func aClientCredentialsTokenForThisServerAndAnotherIsRefused() async throws {
        let run = ConformanceRun(version: .v20260728)
        let shared = Self.token(for: .array([.string(Scenarios.mcpOrigin + "/mcp"), .string("https://api.corp.example")]))
        var auth = MockAuthServerOptions()
        auth.grantTypesSupported = ["client_credentials"]
        auth.tokenEndpointAuthMethodsSupported = ["client_secret_basic"]
        auth.onTokenRequest = { _, _ in .token(shared, scopes: []) }
        let (_, _, client) = Scenarios.world(run, auth: auth) {
            $0.clients = [Scenarios.authOrigin: ClientSettings(clientID: "conformance-test-client", secret: Secret("conformance-test-secret"))]
            $0.clientCredentials = true
        }
        try Self.expectRefused(await client.runEverything(), run, token: shared)
    }

    /// A user's token for this server that also names what no URL says is another API's (Keycloak's `account`, an
    /// application id) or the authorization server's own userinfo endpoint (Auth0) is sent: those are the authorization
    /// server's to give and the MCP server's to check.
    @Test func aTokenForThisServerIsSent() async throws {
        let run = ConformanceRun(version: .v20260728)
        let own = Self.token(
            for: .array([
                .string(Scenarios.mcpOrigin + "/mcp"), .string("account"), .string("00000003-0000-0000-c000-000000000000"),
                .string(Scenarios.authOrigin + "/userinfo"),
            ]))
        var auth = MockAuthServerOptions()
        auth.onTokenRequest = { body, _ in body["grant_type"] == "authorization_code" ? .token(own, scopes: []) : nil }
        let (_, _, client) = Scenarios.world(run, auth: auth)
        _ = await client.runEverything()
        #expect(run.requests.values.contains { ConformanceRun.header($0, "Authorization") == "Bearer \(own)" })
    }
}
