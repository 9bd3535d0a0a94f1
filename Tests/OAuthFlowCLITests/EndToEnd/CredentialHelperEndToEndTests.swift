import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// `oauthflow credential git` behind real git, against a repository served over HTTP that accepts
/// only tokens DOT's introspection calls active.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun && ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_GIT_URL"] != nil,
                             "needs the test servers: run `bash scripts/test.sh`"))
struct GitCredentialEndToEndTests {
    typealias Server = TestAuthorizationServer

    struct Setup {
        let state: TemporaryDirectory
        let server: Server
        let gitURL: String
        let environment: [String: String]

        init(browser: String? = nil) throws {
            server = try Server.require()
            state = try TemporaryDirectory()
            gitURL = try #require(ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_GIT_URL"])
            let config = state.url.appendingPathComponent("config/oauthflow")
            try FileManager.default.createDirectory(at: config.appendingPathComponent("providers"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"),
                                             to: config.appendingPathComponent("providers/django.yaml"))
            try """
                django:
                  client_id: \(Server.publicClientID)
                  variables:
                    port: '\(server.port)'
                credential_helpers:
                  git:
                    - url: \(gitURL)/repo.git
                      provider: django
                """.write(to: config.appendingPathComponent("clients.yaml"), atomically: true, encoding: .utf8)
            environment = [
                "XDG_CONFIG_HOME": state.url.appendingPathComponent("config").path,
                "XDG_STATE_HOME": state.url.appendingPathComponent("state").path,
                "BROWSER": browser ?? "\(server.python) \(server.agent) --deliver",
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": state.url.path,
                "PATH": try builtProduct("oauthflow").deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ]
        }

        /// The helper value Docs/cli.md tells users to configure, as written (`!oauthflow credential git`);
        /// the built `oauthflow` comes first on the PATH git hands to it.
        var helper: String {
            get throws {
                let cli = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/cli.md"), encoding: .utf8)
                let line = try #require(cli.components(separatedBy: "\n").first { $0.contains("git config --global credential.") && $0.contains(".helper ") })
                let value = try #require(line.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first)
                return String(value)
            }
        }

        /// git with only our helper, for the repository's URL, and `credential.useHttpPath` so the path prefix counts.
        func git(_ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
            let process = ["-c", "credential.helper=", "-c", "credential.helper=\(try helper)", "-c", "credential.useHttpPath=true",
                           "-c", "user.name=Alice", "-c", "user.email=alice@example.com"]
                + (directory.map { ["-C", $0.path] } ?? []) + arguments
            return try await runProcess(URL(fileURLWithPath: "/usr/bin/git"), process, environment: environment)
        }

        func helperCall(_ operation: String, input: String) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runWithInput(try builtProduct("oauthflow"), ["credential", "git", operation], input: input, environment: environment)
        }
    }

    @Test func cloneAndPushThroughTheHelperThenEraseAndSignInAgain() async throws {
        let setup = try Setup()
        defer { setup.state.cleanUp() }
        let checkout = setup.state.url.appendingPathComponent("checkout")
        // No session yet: the helper signs in through the (scripted) browser, then answers git.
        let clone = try await setup.git(["clone", "\(setup.gitURL)/repo.git", checkout.path])
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(FileManager.default.fileExists(atPath: setup.state.url.appendingPathComponent("state/oauthflow/django--default.json").path))

        try "hello \(UUID().uuidString)\n".write(to: checkout.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        #expect(try await setup.git(["add", "README"], in: checkout).status == 0)
        #expect(try await setup.git(["commit", "-q", "-m", "through the helper"], in: checkout).status == 0)
        let push = try await setup.git(["push", "-q", "origin", "HEAD:main"], in: checkout)
        #expect(push.status == 0, "\(push.stderr)")

        // The helper's own answer: the stored token, never a prompt on stdout.
        let request = "protocol=http\nhost=\(URL(string: setup.gitURL)!.host!):\(URL(string: setup.gitURL)!.port!)\npath=repo.git\n\n"
        let get = try await setup.helperCall("get", input: request)
        #expect(get.status == 0)
        #expect(get.stdout.hasPrefix("username=oauth2\npassword="), "\(get.stdout)")
        #expect(get.stdout.contains("password_expiry_utc="))
        #expect(get.stdout.split(separator: "\n").allSatisfy { $0.contains("=") })

        // erase forgets the session; the next git command signs in again.
        #expect(try await setup.helperCall("erase", input: request).status == 0)
        #expect(!FileManager.default.fileExists(atPath: setup.state.url.appendingPathComponent("state/oauthflow/django--default.json").path))
        let fetch = try await setup.git(["fetch", "-q", "origin"], in: checkout)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(FileManager.default.fileExists(atPath: setup.state.url.appendingPathComponent("state/oauthflow/django--default.json").path))
    }

    @Test func hostsTheMappingDoesNotKnowGetNoAnswer() async throws {
        let setup = try Setup(browser: "/bin/false")
        defer { setup.state.cleanUp() }
        let other = try await setup.helperCall("get", input: "protocol=https\nhost=github.com\npath=someone/else.git\n\n")
        #expect(other.status == 0)
        #expect(other.stdout.isEmpty && other.stderr.isEmpty)
        // git itself then finds no credentials (no prompt allowed) and fails; nothing was stored.
        let clone = try await setup.git(["clone", "\(setup.gitURL)/elsewhere.git", setup.state.url.appendingPathComponent("x").path])
        #expect(clone.status != 0)
        #expect(!FileManager.default.fileExists(atPath: setup.state.url.appendingPathComponent("state/oauthflow/django--default.json").path))
    }

    @Test func kubectlGetsAnExecCredentialWithTheIDToken() async throws {
        let setup = try Setup()
        defer { setup.state.cleanUp() }
        let result = try await runProduct("oauthflow", ["credential", "kubectl", "django"], environment: setup.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1" && object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        let token = try #require(status["token"] as? String)
        #expect(token.split(separator: ".").count == 3, "an ID token")
        let expiry = try #require(status["expirationTimestamp"] as? String)
        #expect(ISO8601DateFormatter().date(from: expiry).map { $0 > Date() } == true)
        let access = try await runProduct("oauthflow", ["credential", "kubectl", "django", "--access-token"], environment: setup.environment)
        #expect(access.status == 0)
        #expect(!access.stdout.contains(token))
    }
}
