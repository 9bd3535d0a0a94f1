import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `oauthflow login` and the session commands, run as a user runs them, with
/// `$BROWSER` set to the scripted user agent.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct LoginCLITests {
    typealias Server = TestAuthorizationServer

    struct Environment {
        let state: TemporaryDirectory
        let server: Server

        var providers: [String] { ["--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"] }

        func variables(browser: String) -> [String: String] {
            ["XDG_STATE_HOME": state.url.appendingPathComponent("state").path,
             "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path,
             "BROWSER": browser]
        }

        func agent(_ flags: String...) -> String {
            ([server.python, server.agent] + flags).joined(separator: " ")
        }

        var sessionFile: String { state.url.appendingPathComponent("state/oauthflow/django--default.json").path }

        func run(_ arguments: [String], browser: String = "/bin/true") async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runProduct("oauthflow", arguments + providers, environment: variables(browser: browser))
        }

        func login(_ extra: [String] = [], browser: String) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await run(["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(server.port)", "--timeout", "30"] + extra,
                          browser: browser)
        }
    }

    private func environment() throws -> Environment {
        Environment(state: try TemporaryDirectory(), server: try Server.require())
    }

    /// `logout --end-session` ends the session at DOT too: the browser (the agent, keeping its cookies like a
    /// real one) comes back with the state sent, and the next login asks for credentials again, which a
    /// plain `logout` does not make it do.
    @Test func logoutEndSessionMakesTheNextLoginAskForCredentials() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let browser = env.server.browserCommand(cookies: env.state.url.appendingPathComponent("cookies"))
        let first = try await env.login(browser: browser)
        #expect(first.status == 0 && first.stderr.contains("login form shown"), "\(first.stderr)")
        let plain = try await env.run(["logout", "django"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let second = try await env.login(browser: browser)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("login form shown"), "a plain logout leaves DOT's session: \(second.stderr)")

        let ended = try await env.run(["logout", "django", "--end-session", "--timeout", "60"], browser: browser)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(ended.stderr.contains("/o/logout/?") && ended.stderr.contains("the session at the provider ended"), "\(ended.stderr)")
        #expect(!FileManager.default.fileExists(atPath: env.sessionFile))
        let third = try await env.login(browser: browser)
        #expect(third.status == 0 && third.stderr.contains("login form shown"), "DOT asks again after --end-session: \(third.stderr)")

        // --no-browser prints the URL (with the client id, but neither the ID token, which is a credential, nor state:
        // there is no return address).
        let printed = try await env.run(["logout", "django", "--end-session", "--no-browser"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let url = try #require(URL(string: printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(url.absoluteString.contains("/o/logout/?") && query.contains { $0.name == "client_id" }, "\(url)")
        #expect(!query.contains { $0.name == "id_token_hint" } && !query.contains { $0.name == "state" }, "\(url)")
        let without = try await env.run(["logout", "django", "--end-session"])
        #expect(without.status == 1, "no session left to sign out: \(without.stderr)")
    }

    @Test func loginThenUseTheSessionThenLogOut() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.login(browser: env.agent("--deliver"))
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to django."))
        #expect(login.stdout.contains("refresh token: issued"))
        #expect(login.stdout.contains("ID token subject: "))
        #expect(login.stdout.contains("resource: Userinfo"))
        #expect(login.stderr.contains("/o/authorize/?"), "the URL is always printed on stderr")
        var info = stat()
        #expect(stat(env.sessionFile, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let stored = try #require(try await FileTokenStore(directory: URL(fileURLWithPath: env.sessionFile).deletingLastPathComponent())
            .load(SessionKey(providerID: "django")))
        for output in [login.stdout, login.stderr] {
            #expect(!output.contains(stored.tokens.accessToken.value))
            #expect(!output.contains(try #require(stored.tokens.refreshToken).value))
        }

        let userinfo = try await env.run(["userinfo", "django"])
        #expect(userinfo.status == 0, "\(userinfo.stderr)")
        #expect(userinfo.stdout.contains("\"email\" : \"alice@example.com\""))

        let refresh = try await env.run(["token", "refresh", "django"])
        #expect(refresh.status == 0, "\(refresh.stderr)")

        let call = try await env.run(["call", "django", "Userinfo"])
        #expect(call.status == 0 && call.stderr.contains("HTTP 200"), "\(call.stderr)")

        let printed = try await env.run(["token", "print", "django"])
        #expect(printed.status == 0)
        let accessToken = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!accessToken.isEmpty)

        let logout = try await env.run(["logout", "django"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr.contains("tokens revoked"))
        #expect(!FileManager.default.fileExists(atPath: env.sessionFile))

        // The token was revoked at the server, not only forgotten here.
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(
            method: .get, url: env.server.baseURL.appendingPathComponent("o/userinfo/"), headers: ["Authorization": "Bearer \(accessToken)"]))
        #expect(response.status == 401)

        let after = try await env.run(["userinfo", "django"])
        #expect(after.status == 1, "a missing session is a state, not a usage error")
        #expect(after.stderr.contains("no stored session for django"))
    }

    @Test func jsonOutput() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.login(["--json"], browser: env.agent("--deliver"))
        #expect(login.status == 0, "\(login.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any])
        #expect(object["provider"] as? String == "django")
        #expect(object["refresh_token"] as? Bool == true)
        #expect((object["scopes"] as? [String])?.contains("openid") == true)
    }

    @Test func deniedConsentIsReportedAndNothingIsStored() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.login(browser: env.agent("--deny", "--deliver"))
        #expect(login.status == 1)
        #expect(login.stderr.contains("access_denied"))
        #expect(login.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: env.sessionFile))
    }

    @Test func noCallbackTimesOut() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.run(["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)",
                                       "--timeout", "2"], browser: "/bin/true")
        #expect(login.status == 2)
        #expect(login.stderr.contains("no sign-in callback arrived within 2 s"))
        #expect(!FileManager.default.fileExists(atPath: env.sessionFile))
    }

    @Test func forgedCallbackFirstIsRefusedAndTheRealOneCompletes() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.login(browser: env.agent("--forge-first", "--deliver"))
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Ignored a callback that does not belong to this sign-in"))
        #expect(FileManager.default.fileExists(atPath: env.sessionFile))
    }

    @Test func fixedPortAlreadyTakenIsAClearError() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        #if canImport(Glibc)
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let holder = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0 }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let login = try await env.login(["--port", "\(port)"], browser: env.agent("--deliver"))
        #expect(login.status == 1)
        #expect(login.stderr.contains("port \(port) on 127.0.0.1 is already in use"))
    }

    /// `authorize-url`, then the user's sign-in at the server: the URL the browser was redirected to.
    private func manualSignIn(_ env: Environment) async throws -> URL {
        let start = try await env.run(["authorize-url", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)"])
        #expect(start.status == 0, "\(start.stderr)")
        let url = try #require(URL(string: start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        return try await env.server.signIn(url)
    }

    @Test func manualFlowWithAuthorizeURL() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let redirect = try await manualSignIn(env)
        let finish = try await env.run(["login", "django", "--callback-url", redirect.absoluteString])
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(FileManager.default.fileExists(atPath: env.sessionFile))
        let again = try await env.run(["login", "django", "--callback-url", redirect.absoluteString])
        #expect(again.status == 1, "the pending state is spent: a state, not a usage error")
        #expect(again.stderr.contains("no authorization in progress for django"), "\(again.stderr)")
        #expect(!again.stderr.contains("Usage:"))
    }

    @Test func aForgedCallbackURLKeepsTheSignInInProgress() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let redirect = try await manualSignIn(env)
        var forged = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false))
        forged.queryItems = [URLQueryItem(name: "code", value: "attacker-code"), URLQueryItem(name: "state", value: "attacker-state")]
        let attack = try await env.run(["login", "django", "--callback-url", try #require(forged.url).absoluteString])
        #expect(attack.status == 1, "\(attack.stderr)")
        #expect(attack.stderr.contains("state"), "\(attack.stderr)")
        #expect(attack.stderr.contains("was kept"), "\(attack.stderr)")
        let genuine = try await env.run(["login", "django", "--callback-url", redirect.absoluteString])
        #expect(genuine.status == 0, "the genuine URL still completes the sign-in: \(genuine.stderr)")
        #expect(FileManager.default.fileExists(atPath: env.sessionFile))
    }

    /// What a stranger did: ran the printed next step, which left out `--providers-dir`, so the provider was not
    /// found. Nothing was sent, so the sign-in in progress must survive; and the printed step now names the directory.
    @Test func aLocalFailureKeepsTheSignInInProgressAndTheNextStepNamesTheProvidersDirectory() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let start = try await env.run(["authorize-url", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stderr.contains("oauthflow login django --providers-dir Tests/OAuthFlowTests/Fixtures/providers --callback-url"),
                "\(start.stderr)")
        let redirect = try await env.server.signIn(try #require(URL(string: start.stdout.trimmingCharacters(in: .whitespacesAndNewlines))))
        // Without the directory: the provider is unknown; nothing is sent.
        let lost = try await runProduct("oauthflow", ["login", "django", "--callback-url", redirect.absoluteString],
                                        environment: env.variables(browser: "/bin/true"))
        #expect(lost.status == 1)
        #expect(lost.stderr.contains("no provider named `django`") && lost.stderr.contains("was kept"), "\(lost.stderr)")
        let finish = try await env.run(["login", "django", "--callback-url", redirect.absoluteString])
        #expect(finish.status == 0, "the sign-in in progress survived: \(finish.stderr)")
        #expect(FileManager.default.fileExists(atPath: env.sessionFile))
    }

    @Test func missingClientIDSaysWhereToPutIt() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.run(["login", "django", "--var", "port=\(env.server.port)"])
        #expect(login.status == 1, "no client configured is a state, not a malformed command line")
        #expect(!login.stderr.contains("Usage:"))
        #expect(login.stderr.contains("OAUTHFLOW_DJANGO_CLIENT_ID"))
        #expect(login.stderr.contains("clients.yaml"))
    }

    @Test func clientsFileProvidesTheClientAndRefusesLiteralSecrets() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let config = env.state.url.appendingPathComponent("config/oauthflow")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("django:\n  client_id: \(Server.publicClientID)\n  variables:\n    port: '\(env.server.port)'\n".utf8)
            .write(to: config.appendingPathComponent("clients.yaml"))
        let login = try await env.run(["login", "django", "--timeout", "30"], browser: env.agent("--deliver"))
        #expect(login.status == 0, "\(login.stderr)")

        try Data("django:\n  client_id: x\n  client_secret: hunter2\n".utf8).write(to: config.appendingPathComponent("clients.yaml"))
        let refused = try await env.run(["login", "django"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("holds a secret in clear"))
        #expect(!refused.stderr.contains("hunter2"))

        try Data("django:\n  client_id: x\n  scopes: openid\n".utf8).write(to: config.appendingPathComponent("clients.yaml"))
        let misshapen = try await env.run(["login", "django"])
        #expect(misshapen.stderr.contains("clients.yaml:3:3: `scopes` under `django` must be a list"), "\(misshapen.stderr)")
        #expect(!misshapen.stderr.contains("Expected to decode"))
    }

    /// One descriptor for public and confidential clients: the secret in the environment makes this one confidential,
    /// and the session commands find it the same way.
    @Test func confidentialClientThroughTheEnvironment() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        var variables = env.variables(browser: env.agent("--deliver"))
        variables["OAUTHFLOW_DJANGO_CLIENT_SECRET"] = Server.confidentialSecret.value
        let login = try await runProduct("oauthflow", ["login", "django", "--client-id", Server.confidentialClientID, "--var", "port=\(env.server.port)",
                                                       "--timeout", "30"] + env.providers, environment: variables)
        #expect(login.status == 0, "\(login.stderr)")
        let refresh = try await runProduct("oauthflow", ["token", "refresh", "django"] + env.providers, environment: variables)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        // Without the secret, nothing is sent (a server may spend the refresh token on an unauthenticated request) ...
        variables["OAUTHFLOW_DJANGO_CLIENT_SECRET"] = nil
        let refused = try await runProduct("oauthflow", ["token", "refresh", "django"] + env.providers, environment: variables)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("confidential client (client_secret_basic)") && refused.stderr.contains("nothing was sent"),
                "\(refused.stderr)")
        // ... so the session refreshes as soon as the secret is given again.
        variables["OAUTHFLOW_DJANGO_CLIENT_SECRET"] = Server.confidentialSecret.value
        let again = try await runProduct("oauthflow", ["token", "refresh", "django"] + env.providers, environment: variables)
        #expect(again.status == 0, "\(again.stderr)")
    }

    // MARK: - Issue 21, items 4, 11 and 23

    /// clients.yaml names the confidential client and its secret; a sign-in with the public client id must not
    /// send that secret (DOT answered `invalid_client`), nor need its variable.
    @Test func anotherClientsSecretFromTheClientsFileIsNotSent() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let config = env.state.url.appendingPathComponent("config/oauthflow")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("django:\n  client_id: \(Server.confidentialClientID)\n  client_secret_env: CONFIDENTIAL_SECRET\n".utf8)
            .write(to: config.appendingPathComponent("clients.yaml"))
        var variables = env.variables(browser: env.agent("--deliver"))
        variables["CONFIDENTIAL_SECRET"] = Server.confidentialSecret.value
        let login = try await runProduct("oauthflow", ["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)",
                                                       "--timeout", "30"] + env.providers, environment: variables)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("client_secret_env under `django:` in "), "\(login.stderr)")
        #expect(login.stderr.contains("is for client \(Server.confidentialClientID), not \(Server.publicClientID); not used"), "\(login.stderr)")
        #expect(!login.stderr.contains("Client secret:"))
        // The file's own client gets its secret, and stderr says where it came from.
        let own = try await runProduct("oauthflow", ["login", "django", "--var", "port=\(env.server.port)", "--timeout", "30"] + env.providers,
                                       environment: variables)
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stderr.contains("Client secret: from $CONFIDENTIAL_SECRET, named by client_secret_env under `django:`"), "\(own.stderr)")
        #expect(!own.stderr.contains(Server.confidentialSecret.value))
    }

    @Test func aWrongSecretHintsToCheckIt() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        var variables = env.variables(browser: env.agent("--deliver"))
        variables["OAUTHFLOW_DJANGO_CLIENT_SECRET"] = "not-the-secret"
        let login = try await runProduct("oauthflow", ["login", "django", "--client-id", Server.confidentialClientID, "--var", "port=\(env.server.port)",
                                                       "--timeout", "30"] + env.providers, environment: variables)
        #expect(login.status == 1)
        #expect(login.stderr.contains("hint: the provider did not accept this client's credentials: check that the client secret (from $OAUTHFLOW_DJANGO_CLIENT_SECRET)"),
                "\(login.stderr)")
        #expect(!login.stderr.contains("not-the-secret"))
    }

    /// "getting tokens" only when tokens are fetched: not for a forged callback, not for a denial.
    @Test func callbackReceivedOnlyWhenTokensAreFetched() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let denied = try await env.login(browser: env.agent("--deny", "--deliver"))
        #expect(denied.status == 1)
        #expect(!denied.stderr.contains("getting tokens"), "\(denied.stderr)")
        let forged = try await env.login(browser: env.agent("--forge-first", "--deliver"))
        #expect(forged.status == 0, "\(forged.stderr)")
        #expect(forged.stderr.components(separatedBy: "Callback received; getting tokens").count == 2, "once, for the real callback: \(forged.stderr)")
    }

    @Test func timeoutAdviceKeepsTheAccountVariablesAndClient() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let login = try await env.run(["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)",
                                       "--account", "work", "--timeout", "1"], browser: "/bin/true")
        #expect(login.status == 2)
        #expect(login.stderr.contains("run `oauthflow login django --providers-dir Tests/OAuthFlowTests/Fixtures/providers --client-id \(Server.publicClientID) --var port=\(env.server.port) --account work --timeout 1` again"),
                "\(login.stderr)")
    }

    @Test func timeoutHelpSaysWhatItBounds() async throws {
        let help = try await runProduct("oauthflow", ["login", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")   // help wraps its lines
        #expect(text.contains("not a limit on the whole login"), "\(help.stdout)")
    }

    /// Item 13: `call`'s advice for a missing scope, run exactly as printed, adds the scope to the session:
    /// the same client, variables and scopes (the ID token stays), plus the new one.
    @Test func theAdvisedAddScopeCommandWorksAsPrinted() async throws {
        let env = try environment()
        defer { env.state.cleanUp() }
        let first = try await env.run(["login", "django", "--client-id", Server.publicClientID, "--var", "port=\(env.server.port)", "--account", "work",
                                       "--scope", "openid", "--scope", "profile", "--timeout", "30"], browser: env.agent("--deliver"))
        #expect(first.status == 0, "\(first.stderr)")
        let refused = try await env.run(["call", "django", "Userinfo", "--account", "work"])
        #expect(refused.status == 1)
        let advice = try #require(refused.stderr.range(of: #"`oauthflow login [^`]*--add-scope read`"#, options: .regularExpression),
                                  "\(refused.stderr)")
        let command = String(refused.stderr[advice].dropFirst().dropLast())
        #expect(command == "oauthflow login django --providers-dir Tests/OAuthFlowTests/Fixtures/providers --client-id \(Server.publicClientID) --var port=\(env.server.port) --account work --add-scope read")
        let words = shellWords(command, home: "")
        let added = try await env.run(Array(words.dropFirst()) + ["--timeout", "30"], browser: env.agent("--deliver"))
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("ID token subject: "), "the session keeps its ID token: \(added.stdout)")
        let call = try await env.run(["call", "django", "Userinfo", "--account", "work"])
        #expect(call.status == 0 && call.stderr.contains("HTTP 200"), "\(call.stderr)")
        let show = try await env.run(["token", "show", "django", "--account", "work"])
        #expect(show.stdout.contains("scopes: openid profile read"), "\(show.stdout)")
    }
}
