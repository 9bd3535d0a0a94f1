import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import Testing

/// `oauthflow mcp` refusing what needs no server: an insecure URL, a malformed one, a token nobody signed in for.
@Suite struct MCPCommandTests {
    @Test func refusesAnMCPServerURLThatIsNotHTTPSOrLoopback() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        for command in ["inspect", "token", "login"] {
            let result = try await CLI.run(
                ["mcp", command, "http://mcp.example.com/mcp"], environment: ["XDG_STATE_HOME": directory.url.path, "BROWSER": "/bin/false"])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("insecure") || result.stderr.contains("neither https nor http to a loopback host"))
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func refusesAMalformedCommandLine() async throws {
        let noURL = try await CLI.run(["mcp", "token"])
        #expect(noURL.status == 64)
        let badPort = try await CLI.run(["mcp", "login", "https://mcp.example.com/mcp", "--port", "0"])
        #expect(badPort.status == 64)
        #expect(badPort.stderr.contains("--port"))
    }
}

/// `oauthflow mcp inspect`, `login` and `token` against the Python MCP SDK's server and authorization server
/// (Tests/MCPServer): discovery without signing in, a sign-in with Dynamic Client Registration kept 0600, and a token the
/// server takes.
@Suite(.enabled(if: TestMCPServer.shouldRun, TestMCPServer.skipReason), .serialized)
struct MCPCommandEndToEndTests {
    let server: TestMCPServer
    let directory: TemporaryDirectory

    init() throws {
        server = try TestMCPServer.require()
        directory = try TemporaryDirectory()
    }

    /// python3 from the test's PATH: the command runs with no PATH of its own.
    static func python() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "python3 is not on the PATH")
    }

    func run(_ arguments: [String], state: URL? = nil) async throws -> CLI.Result {
        let browser = "\(try Self.python()) \(repositoryRoot.appendingPathComponent("Tests/MCPServer/browser.py").path)"
        return try await CLI.run(["mcp"] + arguments, environment: ["XDG_STATE_HOME": (state ?? directory.url).path, "BROWSER": browser])
    }

    static func object(_ text: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }

    /// An MCP `initialize` with `token`: the status the SDK's bearer middleware answers.
    func initialize(with token: String) async throws -> Int {
        let body = Data(
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
                .utf8)
        let request = TransportRequest(
            method: .post, url: server.mcp,
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"],
            body: body)
        return try await DefaultHTTPTransport(timeout: 10).send(request).status
    }

    @Test func inspectsSignsInAndPrintsATokenTheServerTakes() async throws {
        defer { directory.cleanUp() }
        let url = server.mcp.absoluteString
        // Nothing is registered and nobody signs in.
        let inspected = try await run(["inspect", url, "--json"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let found = try Self.object(inspected.stdout)
        #expect(found["resource"] == .string(url))
        #expect(found["issuer"] == .string(server.issuer))
        #expect(found["signed_in"] == .bool(false))
        guard case let .object(registration)? = found["registration"] else { throw CancellationError() }
        #expect(registration["route"] == .string("dynamic_registration"))
        #expect(registration["endpoint"] == .string(server.issuer + "/register"))
        guard case let .object(challenge)? = found["challenge"] else { throw CancellationError() }
        #expect(challenge["resource_metadata"] == .string(server.issuer + "/.well-known/oauth-protected-resource/mcp"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("oauthflow/mcp-clients").path))
        let text = try await run(["inspect", url])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Dynamic Client Registration (RFC 7591) at \(server.issuer)/register"))
        #expect(text.stdout.contains("`oauthflow mcp login` would register"))

        // Not signed in: no token, and the hint says how to sign in.
        let early = try await run(["token", url])
        #expect(early.status == 1)
        #expect(early.stdout.isEmpty)
        #expect(early.stderr.contains("oauthflow mcp login \(url)"))

        // The SDK's server compares redirect URIs exactly: the port is fixed and registered with it.
        let port = try unusedPort()
        let login = try await run(["login", url, "--port", "\(port)", "--timeout", "30", "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        let summary = try Self.object(login.stdout)
        #expect(summary["scopes"] == .array([.string("mcp:tools")]))
        #expect(login.stderr.contains("Sign in at: \(server.issuer)/authorize?"))
        // The registered client is kept 0600 beside the sessions.
        let clients = directory.url.appendingPathComponent("oauthflow/mcp-clients")
        let files = try FileManager.default.contentsOfDirectory(atPath: clients.path)
        #expect(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: clients.appendingPathComponent(files[0]).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let token = try await run(["token", url])
        #expect(token.status == 0, "\(token.stderr)")
        let accessToken = token.stdout.trimmingCharacters(in: .newlines)
        #expect(!accessToken.isEmpty)
        #expect(!token.stderr.contains(accessToken))
        #expect(try await initialize(with: accessToken) == 200)
        #expect(try await initialize(with: "not-a-token") == 401)
        let asJSON = try await run(["token", url, "--json"])
        let answer = try Self.object(asJSON.stdout)
        #expect(answer["access_token"] == .string(accessToken))
        #expect(answer["token_type"] == .string("Bearer"))

        // The command's first request carried the revision's headers: the server, which answers 400 to a POST other than
        // `initialize` without `MCP-Protocol-Version` before its authorization, saw none without (issue 63 item 1).
        #expect(try await server.stats()["header_less"] == .number(0))

        // Inspected again: the session is stored and the client kept.
        let after = try Self.object(try await run(["inspect", url, "--port", "\(port)", "--json"]).stdout)
        #expect(after["signed_in"] == .bool(true))
        guard case let .object(kept)? = after["registration"] else { throw CancellationError() }
        #expect(kept["route"] == .string("registered_before"))
        #expect(login.stdout.contains(accessToken) == false)
    }

    /// A client registered beforehand (`--client-id`, `--issuer`): no Dynamic Client Registration, the user signs in with
    /// it, and `mcp token` finds the session with the same flags. The client is the one a first sign-in registered, used
    /// from a state folder that keeps no registration.
    @Test func aClientRegisteredBeforehandSignsInWithoutARegistration() async throws {
        defer { directory.cleanUp() }
        let url = server.mcp.absoluteString
        let port = try unusedPort()
        let first = try await run(["login", url, "--port", "\(port)", "--timeout", "30"])
        #expect(first.status == 0, "\(first.stderr)")
        let kept = try Self.object(try await run(["inspect", url, "--port", "\(port)", "--json"]).stdout)
        guard case let .object(registration)? = kept["registration"], case let .string(clientID)? = registration["client_id"] else {
            Issue.record("no client registered: \(kept)")
            return
        }

        let other = directory.url.appendingPathComponent("other")
        let client = ["--client-id", clientID, "--issuer", server.issuer]
        let inspected = try Self.object(try await run(["inspect", url, "--port", "\(port)", "--json"] + client, state: other).stdout)
        guard case let .object(route)? = inspected["registration"] else { throw CancellationError() }
        #expect(route["route"] == .string("host_client"))
        #expect(route["client_id"] == .string(clientID))

        let login = try await run(["login", url, "--port", "\(port)", "--timeout", "30"] + client, state: other)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("client_id=\(clientID)"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other.appendingPathComponent("oauthflow/mcp-clients").path))
        let token = try await run(["token", url] + client, state: other)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(try await initialize(with: token.stdout.trimmingCharacters(in: .newlines)) == 200)

        // Given for another issuer: refused before anything is sent to the one the server names.
        let elsewhere = try await run(["login", url, "--port", "\(port)", "--timeout", "5", "--client-id", clientID, "--issuer", "https://auth.example.com"], state: other)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("--issuer") && !elsewhere.stderr.contains("Sign in at"), "\(elsewhere.stderr)")
    }

    @Test func inspectNamesThePinnedDescriptorAndRefusesAnUnpinnedServer() async throws {
        defer { directory.cleanUp() }
        let url = server.mcp.absoluteString
        let providers = directory.url.appendingPathComponent("providers")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        let descriptor = """
            schema_version: 1
            id: python-mcp
            display_name: Python MCP
            protocol: oauth2
            issuer: "\(server.issuer)"
            discovery:
              mode: rfc8414
            client_auth:
              methods: [none]
            scopes:
              default: [mcp:tools]

            """
        try descriptor.write(to: providers.appendingPathComponent("python-mcp.yaml"), atomically: true, encoding: .utf8)
        let pinned = try await run(["inspect", url, "--json", "--providers-dir", providers.path, "--provider", "python-mcp", "--pinned-only"])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let found = try Self.object(pinned.stdout)
        #expect(found["pinned_provider"] == .string("python-mcp"))
        guard case let .object(session)? = found["session"] else { throw CancellationError() }
        #expect(session["provider"] == .string("python-mcp"))

        // A pin for another issuer only: this server is refused before anything is registered.
        let refused = try await run(["login", url, "--provider", "github", "--pinned-only", "--timeout", "5"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no pinned provider names the authorization server \(server.issuer)"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("oauthflow/mcp-clients").path))
    }
}
