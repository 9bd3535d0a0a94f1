import Crypto
import Foundation
import OAuthFlow
import Testing

/// The Django OAuth Toolkit server that `scripts/test.sh` starts on 127.0.0.1 (the one launcher:
/// scripts/servers.sh), as the tests see it.
///
/// In CI (`CI` set) the end-to-end tests run and fail when the server is missing;
/// elsewhere they are skipped with a message saying how to run them.
public struct TestAuthorizationServer: Sendable {
    public let baseURL: URL
    public let python: String
    public let agent: String

    public static let publicClientID = "oauthflow-public"
    /// A DOT application holds one grant type: the device grant has its own public client.
    public static let deviceClientID = "oauthflow-device"
    public static let confidentialClientID = "oauthflow-confidential"
    public static let confidentialSecret = Secret("confidential-test-secret-0123456789")

    /// The descriptor of the test server, with its `port` variable.
    public static let descriptorFile = repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml")

    public static let current: TestAuthorizationServer? = {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["OAUTHFLOW_TEST_AS_URL"].flatMap(URL.init(string:)),
              let python = environment["OAUTHFLOW_TEST_AS_PYTHON"], let agent = environment["OAUTHFLOW_TEST_AS_AGENT"] else {
            return nil
        }
        return TestAuthorizationServer(baseURL: url, python: python, agent: agent)
    }()

    /// Run end-to-end tests when the server is there, and always in CI (where its absence is a failure).
    public static var shouldRun: Bool {
        current != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    public static let skipReason: Comment = "needs the Django OAuth Toolkit server: run `bash scripts/test.sh`"

    /// The server, or a recorded failure (in CI) when it is missing.
    public static func require() throws -> TestAuthorizationServer {
        try #require(current, "OAUTHFLOW_TEST_AS_URL is not set: the authorization server was not started (run `bash scripts/test.sh`)")
    }

    public var port: String { String(baseURL.port ?? 80) }

    /// The test descriptor, optionally changed, resolved for this server.
    public func provider(_ change: (inout ProviderDescriptor) -> Void = { _ in }) throws -> Provider {
        let document = DescriptorDocument.load(contentsOf: Self.descriptorFile)
        var descriptor = try #require(document.descriptor, "\(document.problems)")
        change(&descriptor)
        return try descriptor.resolve(["port": port])
    }

    /// A loopback redirect URI on some port: DOT matches registered loopback URIs on any port.
    public static let redirectURI = URL(string: "http://127.0.0.1:53682/callback")!

    /// Signs in as the test user through the HTML login and consent forms and returns
    /// the redirect to the client, without fetching it.
    public func signIn(_ authorizationURL: URL, deny: Bool = false) async throws -> URL {
        let result = try await runProcess(URL(fileURLWithPath: python), [agent, authorizationURL.absoluteString] + (deny ? ["--deny"] : []))
        guard result.status == 0 else { throw AgentFailure(message: result.stderr) }
        return try #require(URL(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A browser that signs in as the test user when the library opens the authorization URL.
    public var browserCommand: String { "\(python) \(agent) --deliver" }

    /// A loopback post-logout redirect URI on some port: DOT matches the registered
    /// `http://127.0.0.1/logged-out` on any port (RP-Initiated Logout at `/o/logout/`).
    public static let postLogoutRedirectURI = URL(string: "http://127.0.0.1:53682/logged-out")!

    /// Signs in as the test user in a browser whose cookies are kept in the file `cookies` between calls: the
    /// login form appears only when that browser has no session at DOT. Returns the redirect to the client
    /// (not fetched) and whether the login form was shown.
    public func signIn(_ authorizationURL: URL, cookies: URL, deny: Bool = false) async throws -> (redirect: URL, askedForCredentials: Bool) {
        let result = try await runProcess(
            URL(fileURLWithPath: python), [agent, "--cookies", cookies.path] + (deny ? ["--deny"] : []) + [authorizationURL.absoluteString])
        guard result.status == 0 else { throw AgentFailure(message: result.stderr) }
        let redirect = try #require(URL(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        return (redirect, result.stderr.contains("login form shown"))
    }

    /// Follows an RP-Initiated Logout URL (DOT's end_session_endpoint) in the browser whose cookies are in
    /// `cookies`, confirming the logout if DOT asks (it does without a valid `id_token_hint`), and returns the
    /// redirect to the post-logout redirect URI, not fetched (DOT's root without one).
    public func endSession(_ url: URL, cookies: URL) async throws -> URL {
        let result = try await runProcess(URL(fileURLWithPath: python), [agent, "--end-session", "--cookies", cookies.path, url.absoluteString])
        guard result.status == 0 else { throw AgentFailure(message: result.stderr) }
        return try #require(URL(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// `$BROWSER` for sign-in and logout alike, its cookies kept in `cookies`: the agent signs in as the test
    /// user (logging in only when that browser has no session at DOT), or follows an end-session URL
    /// (`/o/logout/`), and delivers the final redirect to the application's loopback receiver. The path must
    /// hold no space or `:`.
    public func browserCommand(cookies: URL) -> String { "\(python) \(agent) --deliver --cookies \(cookies.path)" }

    /// Signs in as the test user with the public client and returns the tokens.
    public func signedInTokens(_ provider: Provider) async throws -> TokenSet {
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Self.publicClientID, redirectURI: Self.redirectURI))
        let pending = try await client.startAuthorization()
        return try await client.finishSignIn(.callback(try await signIn(pending.url)), pending: pending).tokens
    }

    public struct AgentFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "scripted user agent failed: \(message)" }
    }
}

/// The lines DOT's token-request journal holds (Tests/AuthorizationServer/asserver/journal.py).
public struct TokenJournal: Sendable {
    public let url: URL

    public init() throws {
        let state = try #require(ProcessInfo.processInfo.environment["OAUTHFLOW_AS_STATE"], "OAUTHFLOW_AS_STATE is not set")
        url = URL(fileURLWithPath: state).appendingPathComponent("token-requests.log")
    }

    public func lines() throws -> [String] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The refresh requests DOT saw that spent `refreshToken`, as `STATUS` each: other tests
    /// refresh their own sessions meanwhile, so only the token's hash tells this session's apart.
    public func refreshes(spending refreshToken: Secret?) throws -> [String] {
        guard let refreshToken else { return [] }
        let hash = SHA256.hash(data: Data(refreshToken.value.utf8)).map { String(format: "%02x", $0) }.joined().prefix(16)
        return try lines().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "refresh_token", fields[3] == hash else { return nil }
            return String(fields[2])
        }
    }
}
