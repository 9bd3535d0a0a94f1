import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device grant against Django OAuth Toolkit: a person approves or denies the code on DOT's pages.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct DeviceFlowEndToEndTests {
    typealias Server = TestAuthorizationServer

    @Test func approvedOnTheOtherDevice() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let provider = try server.provider()
        let shown = Shown()
        let session = try await DeviceSignIn(store: store).signIn(to: provider, clientID: Server.deviceClientID) { event in
            guard case let .showCode(authorization) = event else { return }
            shown.authorization = authorization
            Task.detached { try decideDetached(server, authorization) }
        }.session
        let authorization = try #require(shown.authorization)
        #expect(authorization.verificationURI.absoluteString == "\(server.baseURL.absoluteString)/o/device/")
        #expect(authorization.expiresAt.timeIntervalSinceNow > 1700, "DOT gives 1800 s")
        #expect(session.tokens.refreshToken != nil)
        #expect(session.tokens.idToken == nil, "DOT issues no ID token in the device flow")
        #expect(try await store.load(session.key)?.tokens.accessToken == session.tokens.accessToken)
        // The tokens work.
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: Server.deviceClientID,
                                                                                        redirectURI: DeviceSignIn.noRedirectURI))
        #expect(try await client.userInfo(session.tokens)["email"]?.stringValue == "alice@example.com")
    }

    @Test func deniedOnTheOtherDevice() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await DeviceSignIn(store: store).signIn(to: try server.provider(), clientID: Server.deviceClientID) { event in
                guard case let .showCode(authorization) = event else { return }
                Task.detached { try decideDetached(server, authorization, deny: true) }
            }
        }
        #expect(error.error == "access_denied")
        #expect(try await store.load(SessionKey(providerID: "django")) == nil)
    }

    /// DOT keeps answering `authorization_pending` after the code's 1800 s: the client stops on its own clock.
    /// Time runs 300 times faster here, so the 1800 s pass in six real polls.
    @Test func expiresOnTheClientsClock() async throws {
        let server = try Server.require()
        let time = FastTime(Date(), factor: 300)
        let signIn = DeviceSignIn(store: InMemoryTokenStore(), clock: time, sleeper: time)
        let error = try await #require(throws: FlowError.self) {
            try await signIn.signIn(to: try server.provider(), clientID: Server.deviceClientID)
        }
        #expect(error.code == .deviceCodeExpired)
        #expect(time.polls >= 5 && time.polls <= 7)
    }

    @Test func theCLISignsInWithADeviceCodeAndCtrlCCancels() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let environment = ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path]
        let arguments = ["login", "django", "--device", "--client-id", Server.deviceClientID, "--var", "port=\(server.port)",
                         "--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"]

        // Approved: the code goes to stderr, grouped, and the summary to stdout.
        let approved = try LiveProcess(try builtProduct("oauthflow"), arguments, environment: environment)
        let code = try await approved.waitForUserCode()
        #expect(code.contains("-"), "the code is shown grouped: \(code)")
        let decision = try runProcess(URL(fileURLWithPath: server.python),
                                      [server.agent, "--user-code=\(code.replacingOccurrences(of: "-", with: ""))", "\(server.baseURL.absoluteString)/o/device/"])
        #expect(decision.status == 0, "\(decision.stderr)")
        let (status, stdout, stderr) = approved.wait()
        #expect(status == 0, "\(stderr)")
        #expect(stdout.contains("Signed in to django"))
        #expect(FileManager.default.fileExists(atPath: state.url.appendingPathComponent("oauthflow/django--default.json").path))

        // In an SSH session without $BROWSER, plain `login` chooses the device flow and says so in one line.
        // Ctrl-C while waiting: exit 130, nothing stored.
        try FileManager.default.removeItem(at: state.url.appendingPathComponent("oauthflow/django--default.json"))
        var ssh = environment
        ssh["SSH_CONNECTION"] = "192.0.2.1 50000 192.0.2.2 22"
        let interrupted = try LiveProcess(try builtProduct("oauthflow"), arguments.filter { $0 != "--device" }, environment: ssh)
        _ = try await interrupted.waitForUserCode()
        interrupted.child.send(SIGINT)
        let (cancelled, _, cancelledErr) = interrupted.wait()
        #expect(cancelled == 130, "\(cancelledErr)")
        #expect(cancelledErr.contains("nothing was stored"))
        #expect(cancelledErr.contains("No browser can be opened here (an SSH session); signing in with a device code instead."))
        #expect(!FileManager.default.fileExists(atPath: state.url.appendingPathComponent("oauthflow/django--default.json").path))
    }
}

/// Plays the person on the other device: signs in on DOT and approves (or denies) the code.
private func decideDetached(_ server: TestAuthorizationServer, _ authorization: DeviceAuthorization, deny: Bool = false) throws {
    _ = try runProcess(URL(fileURLWithPath: server.python),
                       [server.agent, "--user-code=\(authorization.userCode)"] + (deny ? ["--deny"] : []) + [authorization.verificationURI.absoluteString])
}

/// What the event handler saw.
private final class Shown: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: DeviceAuthorization?
    var authorization: DeviceAuthorization? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A clock that runs `factor` times faster than real time while sleeping (a short real sleep each time).
private final class FastTime: DateClock, Sleeper, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var count = 0
    let factor: Double

    init(_ start: Date, factor: Double) {
        current = start
        self.factor = factor
    }

    func now() -> Date { lock.withLock { current } }
    var polls: Int { lock.withLock { count } }

    func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: 10_000_000)
        lock.withLock {
            count += 1
            current = current.addingTimeInterval(seconds * factor)
        }
    }
}

/// A running CLI whose stderr is read as it comes.
private final class LiveProcess: @unchecked Sendable {
    let child: ChildProcess

    init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        child = try ChildProcess(executable, arguments, directory: repositoryRoot, environment: environment, removing: ["BROWSER"])
    }

    var stderr: String { child.stderr }

    /// The user code printed on stderr, once it is there (10 s at most).
    func waitForUserCode() async throws -> String {
        for _ in 0..<200 {
            let text = stderr
            if let range = text.range(of: "and enter the code:\n\n    ") {
                let rest = text[range.upperBound...]
                if let end = rest.firstIndex(of: "\n") { return String(rest[..<end]) }
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        Issue.record("no user code was printed: \(stderr)")
        throw CancellationError()
    }

    func wait() -> (Int32, String, String) {
        let termination = child.waitForOutputAndExit()
        return (termination.status, child.stdout, child.stderr)
    }
}
