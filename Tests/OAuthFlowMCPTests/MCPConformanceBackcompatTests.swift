import Foundation
import OAuthFlow
import Testing

import OAuthFlowMCPAuth

/// The suite's back-compat scenarios (`backcompatScenariosList`, MCP 2025-03-26): one origin serves the MCP server and
/// its authorization server, and there is no protected-resource metadata.
@Suite struct MCPConformanceBackcompatTests {
    typealias Scenarios = MCPConformanceTests

    /// One origin serving the MCP server (no protected-resource metadata) and its authorization server under `/oauth`.
    static func world(
        _ run: ConformanceRun, revisions: [String]? = nil, legacy: Bool
    ) -> (MockMCPServer, ConformanceClient) {
        var auth = MockAuthServerOptions()
        auth.routePrefix = "/oauth"
        auth.metadataIssuer = Scenarios.mcpOrigin
        let authServer = MockAuthServer(run: run, origin: Scenarios.mcpOrigin, options: auth, serving: false)
        var mcp = MockMCPServerOptions()
        mcp.prmPath = nil
        mcp.checksRevisionFirst = revisions
        mcp.extraRoutes = { request in request.url.path == "/mcp" ? nil : authServer.handle(request) }
        let server = MockMCPServer(run: run, origin: Scenarios.mcpOrigin, options: mcp) { [] }
        return (server, ConformanceClient(run: run, endpoint: server.endpoint) { $0.legacyDiscovery = legacy })
    }

    @Test("auth/2025-03-26-oauth-metadata-backcompat")
    func oauthMetadataBackcompat() async {
        let run = ConformanceRun(version: .v20251125)
        let (_, client) = Self.world(run, legacy: true)
        let error = await client.runEverything()
        let expected = ["authorization-server-metadata", "client-registration", "authorization-request", "token-request"]
        run.requireRecorded(expected)
        run.expectPassed(expected + ["pkce-code-challenge-sent", "pkce-s256-method-used", "pkce-verifier-matches-challenge"], clientError: error)
    }

    @Test("auth/2025-03-26-oauth-endpoint-fallback")
    func oauthEndpointFallback() async {
        let run = ConformanceRun(version: .v20251125)
        var mcp = MockMCPServerOptions()
        mcp.prmPath = nil
        mcp.extraRoutes = { [run] request in
            switch (request.method, request.url.path) {
            case (.get, "/authorize"):
                let query = ConformanceRun.query(request.url)
                run.record(
                    "authorization-request", .success,
                    "response_type \(query["response_type"] ?? ""), code_challenge \(query["code_challenge"] != nil), method \(query["code_challenge_method"] ?? "")"
                )
                guard var location = query["redirect_uri"].flatMap(URLComponents.init(string:)) else { return TransportResponse(status: 500) }
                location.queryItems =
                    (location.queryItems ?? []) + [URLQueryItem(name: "code", value: "test-auth-code")]
                    + (query["state"].map { [URLQueryItem(name: "state", value: $0)] } ?? [])
                return ConformanceRun.redirect(location.url?.absoluteString ?? "")
            case (.post, "/token"):
                run.record("token-request", .success)
                run.registerToken("test-token", scopes: [])
                return ConformanceRun.json(["access_token": .string("test-token"), "token_type": .string("Bearer"), "expires_in": .number(3600)])
            case (.post, "/register"):
                let body = ConformanceRun.jsonBody(request) ?? [:]
                run.record("client-registration", .success)
                return ConformanceRun.json(
                    [
                        "client_id": .string("test-client-id"), "client_secret": .string("test-client-secret"),
                        "client_name": body["client_name"] ?? .null, "redirect_uris": body["redirect_uris"] ?? .array([]),
                    ], status: 201)
            default: return nil
            }
        }
        let server = MockMCPServer(run: run, origin: Scenarios.mcpOrigin, options: mcp) { [] }
        let client = ConformanceClient(run: run, endpoint: server.endpoint) { $0.legacyDiscovery = true }
        let error = await client.runEverything()
        let expected = ["client-registration", "authorization-request", "token-request"]
        run.requireRecorded(expected)
        run.expectPassed(expected, clientError: error)
    }
}
