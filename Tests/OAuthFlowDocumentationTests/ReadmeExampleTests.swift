import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
import OAuthFlowLoopback

/// The host-code examples README.md links to (Docs/host-code.md), compiled and run here; the test also checks the
/// guide still shows these exact lines, so the two cannot drift apart.
@Suite struct ReadmeExampleTests {
    static let shownLines = [
        #"let auth0 = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])"#,
        #"auth0.resources.resources(granted: ["openid", "email"])"#,
        #"let client = OAuthClient(provider: auth0, configuration: ClientConfiguration("#,
        #"    clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))"#,
        #"let pending = try await client.startAuthorization()"#,
        #"auth0.policy.tokenRequest.encoding   // .json: typed, every default applied"#,
        // The front door's sign-in, line for line (readmeSignInRunsAgainstTheTestServer runs it).
        #"func signIn(to name: String, oauth: OAuth, browser: any BrowserOpener) async throws -> [String: JSONValue] {"#,
        #"    let result = try await oauth.signIn(to: name, browser: browser)"#,
        #"    print("signed in:", result.idToken?.subject ?? "(plain OAuth)")   // claims verified during the sign-in"#,
        #"    return try await oauth.session(name).userInfo()   // the session's token manager: refreshes when needed, once"#,
        // The one program that shows how errors are caught (ReadmeProgramTests runs it).
        "@main",
        "    static func main() async {",
        "        } catch {",
        #"            print("sign-in failed: \(error)")   // one sentence that says what to do"#,
    ]

    /// Docs/host-code.md's sign-in function, line for line.
    func signIn(to name: String, oauth: OAuth, browser: any BrowserOpener) async throws -> [String: JSONValue] {
        let result = try await oauth.signIn(to: name, browser: browser)
        print("signed in:", result.idToken?.subject ?? "(plain OAuth)")   // claims verified during the sign-in
        #expect(result.idToken?.subject != nil && result.profile?.subject == result.idToken?.subject, "the result carries the verified claims")
        return try await oauth.session(name).userInfo()   // the session's token manager: refreshes when needed, once
    }

    /// The configuration a host would write for the test server: its descriptor's directory, its public client.
    static func configuration(for server: TestAuthorizationServer, store: any TokenStore) -> OAuth.Configuration {
        var configuration = OAuth.Configuration(
            providerDirectories: [repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers")],
            clients: ["django": ClientSettings(clientID: TestAuthorizationServer.publicClientID, variables: ["port": server.port])],
            store: store)
        // What a desktop's environment would say: a browser can open here (the scripted agent stands in for it).
        configuration.environmentVariables = ["BROWSER": server.browserCommand]
        return configuration
    }

    @Test(.enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
    func readmeSignInRunsAgainstTheTestServer() async throws {
        let server = try TestAuthorizationServer.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let oauth = OAuth(Self.configuration(for: server, store: store))
        // The scripted user agent stands in for the person at the browser. It is watched: when it fails, the
        // test fails at once with what it printed, instead of waiting out the sign-in's 300 s.
        let browser = WatchedAgent(server: server)
        let claims = try await withThrowingTaskGroup(of: [String: JSONValue]?.self) { group in
            group.addTask {
                try await self.signIn(to: "django", oauth: oauth, browser: browser)
            }
            group.addTask {
                try await browser.failure()
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let claims = next { return claims }
            }
            throw WatchedAgent.Failure(message: "the sign-in ended without claims")
        }
        #expect(claims["email"]?.stringValue == "alice@example.com")
        let stored = try #require(try await store.load(SessionKey(providerID: "django")))
        #expect(stored.clientID == TestAuthorizationServer.publicClientID && stored.variables["port"] == server.port)
    }

    /// Docs/host-code.md's client settings lines, compiled: they read this process's environment and clients file,
    /// so ClientSettingsResolverTests checks what they do with controlled ones.
    func clientSettingsExample() throws {
        let clients = ClientSettingsResolver(environment: ProcessInfo.processInfo.environment)
        let settings = try clients.settings(for: "google", overrides: .init(scopes: ["openid", "email"]))
        print(settings.clientID, settings.secretSource?.description ?? "public client", settings.notes)
    }

    /// Docs/host-code.md's one call for a usable session, line for line.
    func accessToken(for provider: String, oauth: OAuth) async throws -> Secret {
        let session = try await oauth.usableSession(provider, browser: SystemBrowser(environment: oauth.configuration.environmentVariables)) { event in
            // On standard error: a tool that prints the token keeps standard output for it.
            if case let .browser(.openURL(url)) = event { FileHandle.standardError.write(Data("sign in at \(url)\n".utf8)) }
            if case let .device(.showCode(code)) = event {
                FileHandle.standardError.write(Data("open \(code.verificationURI) and enter \(code.displayUserCode)\n".utf8))
            }
        }
        return session.tokens.accessToken   // valid now: stored, refreshed, or just signed in
    }

    @Test func readmeSessionAccessAnswersAValidStoredSession() async throws {
        let store = InMemoryTokenStore()
        var session = sampleSession("google", access: "stored-and-valid", expiresAt: Date().addingTimeInterval(3600))
        session.variables = [:]   // google takes no variables: the gate resolves the provider with the session's
        await store.save(session)
        #expect(try await accessToken(for: "google", oauth: OAuth(.init(store: store))).value == "stored-and-valid")
    }

    @Test func hostCodeShowsTheseLines() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/host-code.md"), encoding: .utf8)
        for line in Self.shownLines {
            #expect(guide.contains(line), "Docs/host-code.md no longer shows: \(line)")
        }
    }

    @Test func hostCodeRuns() async throws {
        let registry = try ProviderRegistry.load(includeUserDirectory: false)
        let auth0 = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        #expect(auth0.endpoints.authorization?.absoluteString == "https://example.us.auth0.com/authorize")
        #expect(auth0.policy.tokenRequest.encoding == .json)
        _ = auth0.resources.resources(granted: ["openid", "email"])
        let client = OAuthClient(provider: auth0, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
        let pending = try await client.startAuthorization()
        #expect(pending.url.host == "example.us.auth0.com")
    }
}

/// Docs/host-code.md's program, whose `main` catches what the sign-in throws, compiled here and run with a sign-in that
/// fails as a first run can (a binary copied without its bundled descriptors): it prints one line and exits 1,
/// where an error escaping top-level code would stop it with a fatal error and a backtrace.
///
/// A test target has its own entry point, so the copy here has no `@main` (the one line
/// `swiftExamplesAreCompiledByTests` lets a test call instead), and the program's `print` and `exit` are this
/// suite's, which record what it would have printed and its exit status.
@Suite struct ReadmeProgramTests {
    final class Recording: @unchecked Sendable {
        private let lock = NSLock()
        private var printed: [String] = []
        private var status: Int32?

        var lines: [String] { lock.withLock { printed } }
        var exitStatus: Int32? { lock.withLock { status } }
        func print(_ line: String) { lock.withLock { printed.append(line) } }
        func exit(_ code: Int32) { lock.withLock { status = code } }
    }

    static let recording = Recording()

    static func print(_ items: Any...) {
        recording.print(items.map { "\($0)" }.joined(separator: " "))
    }

    static func exit(_ status: Int32) {
        recording.exit(status)
    }

    /// The configuration of a program installed without the bundled descriptors beside it.
    static func withoutBundledDescriptors(_ configuration: OAuth.Configuration) -> OAuth {
        var configuration = configuration
        configuration.includeBundledProviders = false
        return OAuth(configuration)
    }

    /// Docs/host-code.md's `signIn` where no descriptor was installed beside the program.
    static func signIn(to name: String, oauth: OAuth, browser: any BrowserOpener) async throws -> [String: JSONValue] {
        let provider = try withoutBundledDescriptors(oauth.configuration).provider(name)
        Issue.record("\(provider.id) resolved with no descriptor to read")
        return [:]
    }

    /// Docs/host-code.md's program, line for line.
    struct SignInExample {
        static func main() async {
            // Sessions live in memory here; `store: FileTokenStore(directory: ...)` keeps them for the next run.
            // Google's Desktop clients come with a secret, which Google does not hold confidential (RFC 8252 §8.5).
            let secret = ProcessInfo.processInfo.environment["GOOGLE_CLIENT_SECRET"].map(Secret.init)
            var configuration = OAuth.Configuration(clients: ["google": ClientSettings(clientID: "YOUR_CLIENT_ID", secret: secret)])
            configuration.environmentVariables = ProcessInfo.processInfo.environment   // can a browser open here? (SSH, a display)
            let oauth = OAuth(configuration)
            do {
                let claims = try await signIn(to: "google", oauth: oauth, browser: SystemBrowser(environment: configuration.environmentVariables))
                print(claims["email"]?.stringValue ?? "signed in")
            } catch {
                print("sign-in failed: \(error)")   // one sentence that says what to do
                exit(1)
            }
        }
    }

    @Test func theProgramPrintsTheErrorOnOneLineAndExits1() async throws {
        await SignInExample.main()
        let expected = try #require(throws: ProviderError.self) {
            try Self.withoutBundledDescriptors(OAuth.Configuration()).provider("google")
        }
        #expect(Self.recording.lines == ["sign-in failed: \(expected)"])
        #expect(Self.recording.exitStatus == 1)
        #expect(Self.recording.lines.allSatisfy { !$0.contains("\n") && $0.contains("google") }, "\(Self.recording.lines)")
    }
}

/// The scripted user agent as the browser, delivering the callback like a person's browser; `failure()`
/// throws with the agent's output when it exits with an error, and returns when it succeeded.
final class WatchedAgent: BrowserOpener, @unchecked Sendable {
    let server: TestAuthorizationServer
    private let lock = NSLock()
    private var child: ChildProcess?

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    init(server: TestAuthorizationServer) { self.server = server }

    func open(_ url: URL) async throws {
        let agent = try ChildProcess(URL(fileURLWithPath: server.python), [server.agent, "--deliver", url.absoluteString])
        lock.withLock { child = agent }
    }

    func failure() async throws {
        while true {
            if let agent = lock.withLock({ child }), let ended = agent.ended {
                _ = await agent.finished()
                guard ended.status == 0 else {
                    throw Failure(message: "the scripted user agent failed (\(ended)): \(agent.stderr) \(agent.stdout)")
                }
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
