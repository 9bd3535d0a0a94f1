import Foundation
import OAuthFlow
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The MCP server `scripts/servers.sh` starts (Tests/MCPServer): the official Python MCP SDK's streamable HTTP
/// server at `/mcp`, with one tool (`add`), behind the SDK's own authorization server (RFC 8414 metadata, Dynamic
/// Client Registration, PKCE, tokens bound to the `resource`).
public struct TestMCPServer: Decodable, Sendable {
    public let issuer: String
    /// The MCP endpoint, which is also the resource its tokens are for.
    public let mcp: URL

    public static let current: TestMCPServer? = TestServiceServer.load("OAUTHFLOW_TEST_MCP_SERVER")
    public static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    public static let skipReason: Comment = "needs the Python MCP SDK's server: run `bash scripts/test.sh`"

    public static func require() throws -> TestMCPServer {
        try #require(current, "OAUTHFLOW_TEST_MCP_SERVER is not set: the Python MCP server was not started (run `bash scripts/test.sh`)")
    }

    /// What the server saw (`/test/stats`): `registrations`, `authorizations` (each with its `resource`), `tokens`
    /// (each token request's `grant_type` and `resource`), `refreshes`, `calls`.
    public func stats() async throws -> [String: JSONValue] {
        let url = try #require(URL(string: issuer + "/test/stats"))
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: url))
        return try JSONDecoder().decode([String: JSONValue].self, from: response.body)
    }

    /// Expires every access token the server issued to `clientID` so far: its next call is refused with a 401.
    public func expireTokens(of clientID: String) async throws {
        var components = try #require(URLComponents(string: issuer + "/test/expire"))
        components.queryItems = [URLQueryItem(name: "client_id", value: clientID)]
        let url = try #require(components.url)
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .post, url: url))
        try #require(response.status == 200)
        let answer = try JSONDecoder().decode([String: JSONValue].self, from: response.body)
        try #require(answer["expired"] != .number(0), "the server issued no access token to \(clientID)")
    }
}
