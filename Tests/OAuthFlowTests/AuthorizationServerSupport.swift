import Foundation
import Testing
@testable import OAuthFlow

/// The Django OAuth Toolkit server that `scripts/test.sh` starts on 127.0.0.1.
///
/// In CI (`CI` set) the end-to-end tests run and fail when the server is missing;
/// elsewhere they are skipped with a message saying how to run them.
struct TestAuthorizationServer {
    let baseURL: URL
    let python: String
    let agent: String

    static let publicClientID = "oauthflow-public"
    /// A DOT application holds one grant type: the device grant has its own public client.
    static let deviceClientID = "oauthflow-device"
    static let confidentialClientID = "oauthflow-confidential"
    static let confidentialSecret = Secret("confidential-test-secret-0123456789")

    static let current: TestAuthorizationServer? = {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["OAUTHFLOW_TEST_AS_URL"].flatMap(URL.init(string:)),
              let python = environment["OAUTHFLOW_TEST_AS_PYTHON"], let agent = environment["OAUTHFLOW_TEST_AS_AGENT"] else {
            return nil
        }
        return TestAuthorizationServer(baseURL: url, python: python, agent: agent)
    }()

    /// Run end-to-end tests when the server is there, and always in CI (where its absence is a failure).
    static var shouldRun: Bool {
        current != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static let skipReason: Comment = "needs the Django OAuth Toolkit server: run `bash scripts/test.sh`"

    /// The server, or a recorded failure (in CI) when it is missing.
    static func require() throws -> TestAuthorizationServer {
        try #require(current, "OAUTHFLOW_TEST_AS_URL is not set: the authorization server was not started (run `bash scripts/test.sh`)")
    }

    var port: String { String(baseURL.port ?? 80) }

    /// The test descriptor, optionally changed, resolved for this server.
    func provider(_ change: (inout ProviderDescriptor) -> Void = { _ in }) throws -> Provider {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/providers/django", withExtension: "yaml"))
        var descriptor = try #require(DescriptorDocument.load(contentsOf: url).descriptor)
        change(&descriptor)
        return try descriptor.resolve(["port": port])
    }

    /// A loopback redirect URI on some port: DOT matches registered loopback URIs on any port.
    static let redirectURI = URL(string: "http://127.0.0.1:53682/callback")!

    /// Signs in as the test user through the HTML login and consent forms and returns
    /// the redirect to the client, without fetching it.
    func signIn(_ authorizationURL: URL, deny: Bool = false) throws -> URL {
        let result = try runProcess(URL(fileURLWithPath: python), [agent, authorizationURL.absoluteString] + (deny ? ["--deny"] : []))
        guard result.status == 0 else { throw AgentFailure(message: result.stderr) }
        return try #require(URL(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Signs in as the test user with the public client and returns the tokens.
    func signedInTokens(_ provider: Provider) async throws -> TokenSet {
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: Self.publicClientID, redirectURI: Self.redirectURI))
        let pending = try await client.startAuthorization()
        return try await client.finishAuthorization(callback: try signIn(pending.url), pending: pending)
    }

    struct AgentFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { "scripted user agent failed: \(message)" }
    }
}

/// Wraps a transport and records every request, so tests can prove what was (not) sent.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let base: any HTTPTransport
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []

    init(_ base: any HTTPTransport = DefaultHTTPTransport(timeout: 15)) {
        self.base = base
    }

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        return try await base.send(request)
    }
}

/// A transport that answers every request with one canned response, for failures a real server will not produce.
struct CannedTransport: HTTPTransport {
    let response: HTTPResponse

    init(status: Int = 200, contentType: String = "application/json", body: String) {
        response = HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}
