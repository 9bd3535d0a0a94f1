import Foundation
import MCP
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCP
import OAuthFlowTestSupport
import Testing

/// The MCP authorization spec end to end against a real peer: the official Python MCP SDK's server and its own
/// authorization server (Tests/MCPServer), signed in to through the loopback redirect and called over the Swift SDK's
/// streamable HTTP transport.
@Suite(.enabled(if: TestMCPServer.shouldRun, TestMCPServer.skipReason), .serialized)
struct MCPPythonPeerTests {
    let server: TestMCPServer
    let directory: TemporaryDirectory
    let registrations = InMemoryClientRegistrationStore()
    /// The authorizer's clock: moved past the time a token counts as just issued before the server expires it, since a
    /// 401 to a token issued moments ago is refused rather than answered with another sign-in.
    let clock = MovableClock()
    /// This test's `client_name`: the server's counters are shared by every test that talks to it.
    let clientName = "OAuthFlow MCP peer test \(UUID().uuidString)"

    init() throws {
        server = try TestMCPServer.require()
        directory = try TemporaryDirectory()
    }

    func authorizer(port: Int?, timeout: Duration = .seconds(30)) -> MCPAuthorizer {
        var configuration = MCPAuthorizer.Configuration(
            store: FileTokenStore(directory: directory.url.appendingPathComponent("sessions")), browser: FollowingBrowser(),
            environment: OAuthEnvironment(clock: clock), registrations: registrations, clientName: clientName)
        configuration.redirectPort = port
        configuration.signInTimeout = timeout
        return MCPAuthorizer(configuration)
    }

    /// Connects through `authorizer` and calls `add`; the tool's answer, decoded.
    func add(_ a: Int, _ b: Int, through authorizer: MCPAuthorizer) async throws -> [String: JSONValue] {
        let transport = HTTPClientTransport(endpoint: server.mcp, streaming: false, authorizer: authorizer)
        let client = Client(name: "oauthflow-tests", version: "1.0.0")
        _ = try await client.connect(transport: transport)
        defer { Task { await client.disconnect() } }
        let (content, isError) = try await client.callTool(name: "add", arguments: ["a": .int(a), "b": .int(b)])
        #expect(isError != true)
        guard case let .text(text, _, _)? = content.first else {
            Issue.record("the tool answered no text: \(content)")
            return [:]
        }
        return try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }

    /// What the server saw of this test's clients: `registrations` by client name, the rest by client id.
    func seen() async throws -> (registrations: [[String: JSONValue]], authorizations: [[String: JSONValue]], tokens: [[String: JSONValue]], refreshes: [[String: JSONValue]]) {
        let stats = try await server.stats()
        func entries(_ name: String) -> [[String: JSONValue]] {
            guard case let .array(values)? = stats[name] else { return [] }
            return values.compactMap { value in
                if case let .object(members) = value { return members }
                return nil
            }
        }
        let registrations = entries("registrations").filter { $0["client_name"] == .string(clientName) }
        let ids = Set(registrations.compactMap { $0["client_id"] })
        let mine = { (entry: [String: JSONValue]) in entry["client_id"].map(ids.contains) ?? false }
        return (registrations, entries("authorizations").filter(mine), entries("tokens").filter(mine), entries("refreshes").filter(mine))
    }

    @Test func signsInWithDynamicRegistrationCallsTheToolAndRefreshes() async throws {
        defer { directory.cleanUp() }
        let port = try unusedPort()
        let authorizer = authorizer(port: port)
        // The first request is refused with the SDK's 401; discovery, registration and the sign-in follow.
        let answer = try await add(2, 3, through: authorizer)
        #expect(answer["sum"] == .number(5))
        // The SDK's bearer middleware takes only tokens issued for its own URL (validate_token_resource).
        #expect(answer["resource"] == .string(server.mcp.absoluteString))
        let signedIn = try await seen()
        // A native public client with the loopback redirect, registered once.
        #expect(signedIn.registrations.count == 1)
        #expect(signedIn.registrations.first?["redirect_uris"] == .array([.string("http://127.0.0.1:\(port)/callback")]))
        #expect(signedIn.registrations.first?["client_id"] == answer["client_id"])
        #expect(signedIn.authorizations.count == 1)
        #expect(signedIn.authorizations.first?["resource"] == .string(server.mcp.absoluteString))
        #expect(signedIn.tokens.count == 1)
        #expect(signedIn.tokens.first?["grant_type"] == .string("authorization_code"))
        #expect(signedIn.tokens.first?["resource"] == .string(server.mcp.absoluteString))

        // Expired at the server a minute later: the next call's 401 is answered with a refresh that names the resource.
        clock.advance(60)
        guard case let .string(clientID)? = answer["client_id"] else { throw CancellationError() }
        try await server.expireTokens(of: clientID)
        #expect(try await add(4, 5, through: authorizer)["sum"] == .number(9))
        let refreshed = try await seen()
        #expect(refreshed.refreshes.count == 1)
        #expect(refreshed.tokens.last?["grant_type"] == .string("refresh_token"))
        #expect(refreshed.tokens.last?["resource"] == .string(server.mcp.absoluteString))
        #expect(refreshed.authorizations.count == 1)

        // Another authorizer over the same stores (a restart): the stored session, no registration, no sign-in.
        let again = self.authorizer(port: port, timeout: .seconds(2))
        #expect(try await add(1, 1, through: again)["sum"] == .number(2))
        let after = try await seen()
        #expect(after.registrations.count == 1)
        #expect(after.authorizations.count == 1)
        #expect(after.tokens.count == refreshed.tokens.count)
    }

    /// The SDK's authorization server compares redirect URIs exactly as registered (its `validate_redirect_uri`), where
    /// RFC 8252 §7.3 asks it to let any loopback port through: a client that registered `http://127.0.0.1/callback`
    /// without a port is refused at the authorization endpoint, and the sign-in ends at its timeout.
    @Test func aPortlessLoopbackRedirectIsRefusedByTheSDKsServer() async throws {
        defer { directory.cleanUp() }
        let authorizer = authorizer(port: nil, timeout: .seconds(3))
        let error = await #expect(throws: (any Error).self) { _ = try await add(1, 2, through: authorizer) }
        // The loopback's own sentence comes through the SDK's error (LoopbackError is a LocalizedError).
        #expect(String(describing: error).contains("no sign-in callback arrived within 3 s"), "\(String(describing: error))")
        let after = try await seen()
        // Registered without a port, but never authorized: the SDK refused the redirect URI before asking its provider.
        #expect(after.registrations.first?["redirect_uris"] == .array([.string("http://127.0.0.1/callback")]))
        #expect(after.authorizations.isEmpty)
        #expect(after.tokens.isEmpty)
    }
}
