import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
import OAuthFlowLoopback

/// The README's host-code examples, compiled and run here; the test also checks the
/// README still shows these exact lines, so the two cannot drift apart.
@Suite struct ReadmeExampleTests {
    static let shownLines = [
        #"let auth0 = try registry.provider(named: "auth0").resolve(["domain": "example.us.auth0.com"])"#,
        #"auth0.resources.resources(granted: ["openid", "email"])"#,
        #"let client = OAuthClient(provider: auth0, configuration: ClientConfiguration("#,
        #"    clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))"#,
        #"let pending = try await client.startAuthorization()"#,
        #"    let provider = try ProviderRegistry.load().provider(named: name).resolve(variables)"#,
        #"    let result = try await LoopbackSignIn(store: store, browser: browser).signIn(to: provider, client: .init(clientID: clientID))"#,
        #"    print("signed in:", result.idToken?.subject ?? "(plain OAuth)")   // claims verified during the sign-in"#,
        #"    let session = result.session"#,
        #"auth0.policy.tokenRequest.encoding   // .json: typed, every default applied"#,
        #"    let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: clientID, redirectURI: session.redirectURI))"#,
        #"    let manager = TokenManager(client: client, store: store, key: session.key)   // refreshes when needed, once"#,
        #"    return try await manager.userInfo()"#,
        // The one program that shows how errors are caught (ReadmeProgramTests runs it).
        "@main",
        "    static func main() async {",
        "        } catch {",
        #"            print("sign-in failed: \(error)")   // one sentence that says what to do"#,
    ]

    /// The README's sign-in function, line for line (the registry also reads the test descriptors).
    func signIn(to name: String, variables: [String: String], clientID: String,
                store: any TokenStore, browser: any BrowserOpener) async throws -> [String: JSONValue] {
        let provider = try ProviderRegistry.load(directories: [repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers")])
            .provider(named: name).resolve(variables)
        let result = try await LoopbackSignIn(store: store, browser: browser).signIn(to: provider, client: .init(clientID: clientID))
        print("signed in:", result.idToken?.subject ?? "(plain OAuth)")   // claims verified during the sign-in
        #expect(result.idToken?.subject != nil && result.profile?.subject == result.idToken?.subject, "the result carries the verified claims")
        let session = result.session
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: clientID, redirectURI: session.redirectURI))
        let manager = TokenManager(client: client, store: store, key: session.key)   // refreshes when needed, once
        return try await manager.userInfo()
    }

    @Test(.enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
    func readmeSignInRunsAgainstTheTestServer() async throws {
        let server = try TestAuthorizationServer.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        // The scripted user agent stands in for the person at the browser. It is watched: when it fails, the
        // test fails at once with what it printed, instead of waiting out the sign-in's 300 s.
        let browser = WatchedAgent(server: server)
        let claims = try await withThrowingTaskGroup(of: [String: JSONValue]?.self) { group in
            group.addTask {
                try await self.signIn(to: "django", variables: ["port": server.port], clientID: TestAuthorizationServer.publicClientID,
                                      store: store, browser: browser)
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
        #expect(try await store.load(SessionKey(providerID: "django")) != nil)
    }

    /// The README's client settings lines, compiled: they read this process's environment and clients file,
    /// so ClientSettingsResolverTests checks what they do with controlled ones.
    func clientSettingsExample() throws {
        let settings = try ClientSettingsResolver().settings(for: "google", overrides: .init(scopes: ["openid", "email"]))
        print(settings.clientID, settings.secretSource?.description ?? "public client", settings.notes)
    }

    /// The README's one call for a usable session, line for line.
    func accessToken(for provider: String, store: any TokenStore) async throws -> Secret {
        let session = try await SessionAccess(store: store).session(for: SessionKey(providerID: provider)) { event in
            if case let .browser(.openURL(url)) = event { print("sign in at", url) }
            if case let .device(.showCode(code)) = event { print("open", code.verificationURI, "and enter", code.displayUserCode) }
        }
        return session.tokens.accessToken   // valid now: stored, refreshed, or just signed in
    }

    @Test func readmeSessionAccessAnswersAValidStoredSession() async throws {
        let store = InMemoryTokenStore()
        try await store.save(sampleSession("google", access: "stored-and-valid", expiresAt: Date().addingTimeInterval(3600)))
        #expect(try await accessToken(for: "google", store: store).value == "stored-and-valid")
    }

    @Test func readmeShowsTheseLines() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for line in Self.shownLines {
            #expect(readme.contains(line), "README.md no longer shows: \(line)")
        }
    }

    @Test func hostCodeRuns() async throws {
        let registry = try ProviderRegistry.load(includeUserDirectory: false)
        let auth0 = try registry.provider(named: "auth0").resolve(["domain": "example.us.auth0.com"])
        #expect(auth0.endpoints.authorization?.absoluteString == "https://example.us.auth0.com/authorize")
        #expect(auth0.policy.tokenRequest.encoding == .json)
        _ = auth0.resources.resources(granted: ["openid", "email"])
        let client = OAuthClient(provider: auth0, configuration: ClientConfiguration(
            clientID: "YOUR_CLIENT_ID", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
        let pending = try await client.startAuthorization()
        #expect(pending.url.host == "example.us.auth0.com")
    }
}

/// README.md's program, whose `main` catches what the sign-in throws, compiled here and run with a sign-in that
/// fails as a first run can (a binary copied without its bundled descriptors): it prints one line and exits 1,
/// where an error escaping top-level code would stop it with a fatal error and a backtrace.
///
/// A test target has its own entry point, so the copy here has no `@main` (the one README line
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

    /// The README's `signIn` where no descriptor was installed beside the program.
    static func signIn(to name: String, variables: [String: String], clientID: String,
                       store: any TokenStore, browser: any BrowserOpener) async throws -> [String: JSONValue] {
        let provider = try ProviderRegistry.load(includeBundled: false).provider(named: name).resolve(variables)
        Issue.record("\(provider.id) resolved with no descriptor to read")
        return [:]
    }

    /// The README's program, line for line.
    struct SignInExample {
        static func main() async {
            do {
                let claims = try await signIn(to: "google", variables: [:], clientID: "YOUR_CLIENT_ID",
                                              store: FileTokenStore(), browser: SystemBrowser())
                print(claims["email"]?.stringValue ?? "signed in")
            } catch {
                print("sign-in failed: \(error)")   // one sentence that says what to do
                exit(1)
            }
        }
    }

    @Test func theProgramPrintsTheErrorOnOneLineAndExits1() async throws {
        await SignInExample.main()
        let expected = try #require(throws: ProviderError.self) { try ProviderRegistry.load(includeBundled: false).provider(named: "google") }
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
