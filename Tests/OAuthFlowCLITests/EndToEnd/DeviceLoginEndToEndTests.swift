import Foundation
import Testing
import OAuthFlowTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `oauthflow login --device` against Django OAuth Toolkit: the code on stderr, Ctrl-C cancels.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct DeviceLoginEndToEndTests {
    typealias Server = TestAuthorizationServer

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
        let decision = try await runProcess(URL(fileURLWithPath: server.python),
                                            [server.agent, "--user-code=\(code.replacingOccurrences(of: "-", with: ""))", "\(server.baseURL.absoluteString)/o/device/"])
        #expect(decision.status == 0, "\(decision.stderr)")
        let (status, stdout, stderr) = await approved.wait()
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
        let (cancelled, _, cancelledErr) = await interrupted.wait()
        #expect(cancelled == 130, "\(cancelledErr)")
        #expect(cancelledErr.contains("nothing was stored"))
        #expect(cancelledErr.contains("No browser can be opened here (an SSH session); signing in with a device code instead."))
        #expect(!FileManager.default.fileExists(atPath: state.url.appendingPathComponent("oauthflow/django--default.json").path))
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

    func wait() async -> (Int32, String, String) {
        let termination = await child.finished()
        return (termination.status, child.stdout, child.stderr)
    }
}
