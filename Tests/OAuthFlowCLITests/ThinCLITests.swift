import Foundation
import Testing
import OAuthFlowTestSupport

/// The thin CLI: a state of the files exits 1 with one `error:` line (never 64 with a usage banner), and
/// where the library's sentence cannot name a flag, the CLI adds a `hint:` that does.
@Suite struct ThinCLITests {
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CLI.Result {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-state-\(UUID().uuidString)").path
        return try await CLI.run(arguments, environment: ["XDG_STATE_HOME": state, "BROWSER": "/bin/false"].merging(environment) { $1 })
    }

    /// `generate-docs` with a root whose descriptor-format.md has no markers: it exited 64 with the usage banner
    /// (a ValidationError thrown from `run()`), after writing the other two files; now it checks first and writes nothing.
    @Test func generateDocsAtAWrongRootIsAStateAndWritesNothing() async throws {
        let root = try TemporaryDirectory()
        defer { root.cleanUp() }
        _ = try root.write("Docs/descriptor-format.md", "# No markers here\n")
        let result = try await run(["generate-docs", "--root", root.url.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains("lacks the reference markers"), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"))
        #expect(!FileManager.default.fileExists(atPath: root.url.appendingPathComponent("Docs/lint-rules.md").path))
    }

    /// The library names the environment and the clients file; `login` adds its own flag as a hint.
    @Test func aMissingClientIDHintsAtTheFlagOnlyWhereThereIsOne() async throws {
        let login = try await run(["login", "google"])
        #expect(login.status == 1)
        #expect(login.stderr.hasPrefix("error: no client id for google: set OAUTHFLOW_GOOGLE_CLIENT_ID, or add `client_id` under `google:` in "),
                "\(login.stderr)")
        #expect(login.stderr.contains("\nhint: or name the client on the command line with --client-id ID\n"), "\(login.stderr)")
        let kubectl = try await run(["credential", "kubectl", "google"])
        #expect(kubectl.status == 1 && kubectl.stderr.hasPrefix("oauthflow: error: no client id for google"), "\(kubectl.stderr)")
        #expect(!kubectl.stderr.contains("hint:") && !kubectl.stderr.contains("--client-id"), "\(kubectl.stderr)")
    }

    /// A provider that takes confidential clients only: the hint names the flag that gives the secret.
    @Test func aMissingClientSecretHintsAtTheFlag() async throws {
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let result = try await run(
            ["authorize-url", "trakt", "--client-id", "app-1"], environment: ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\nhint: name the client's secret with --client-secret-env VAR"), "\(result.stderr)")
    }

    /// A provider that takes `private_key_jwt` only: the hint names where the private key goes, never a secret (which
    /// the provider does not take).
    @Test func aMissingPrivateKeyHintsAtTheKeyNotASecret() async throws {
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        _ = try state.write(
            "bank.yaml",
            """
            schema_version: 1
            id: bank
            display_name: Bank
            protocol: oidc
            issuer: https://bank.example.com
            discovery:
              mode: oidc
            scopes:
              default: [openid]
            client_auth:
              methods: [private_key_jwt]

            """)
        let result = try await run(
            ["authorize-url", "bank", "--client-id", "app-1", "--providers-dir", state.url.path],
            environment: ["XDG_STATE_HOME": state.url.path, "XDG_CONFIG_HOME": state.url.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\nhint: name the client's private key with private_key_file or private_key_env"), "\(result.stderr)")
        #expect(!result.stderr.contains("client-secret-env"), "\(result.stderr)")
    }

    /// A bad clients file is a state: exit 1, its place in the file, no usage banner.
    @Test func aBrokenClientsFileIsAState() async throws {
        let config = try TemporaryDirectory()
        defer { config.cleanUp() }
        _ = try config.write("oauthflow/clients.yaml", "google:\n  client_id: x\n  client_auth: client_secret_magic\n")
        for arguments in [["login", "google"], ["authorize-url", "google"], ["credential", "kubectl", "google"]] {
            let result = try await run(arguments, environment: ["XDG_CONFIG_HOME": config.url.path])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let prefix = arguments.first == "credential" ? "oauthflow: error: " : "error: "
            #expect(result.stderr.hasPrefix(prefix) && result.stderr.contains("the entry for google cannot be read"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "\(arguments)")
        }
    }

    /// The credential helper's words go to stderr: stdout is git's, and a mapping of a remote is read from the library.
    @Test func gitHelperAnswersNothingForARemoteItDoesNotMap() async throws {
        let config = try TemporaryDirectory()
        defer { config.cleanUp() }
        _ = try config.write("oauthflow/clients.yaml", "credential_helpers:\n  git:\n    - url: https://git.example.com\n      provider: gitlab\n")
        guard let binary = CLI.binary else { return }
        let result = try await runWithInput(binary, ["credential", "git", "get"], input: "protocol=https\nhost=other.example.com\n\n",
                                            environment: ["XDG_CONFIG_HOME": config.url.path])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stderr)")
        _ = try config.write("oauthflow/clients.yaml", "credential_helpers:\n  git: {url: x}\n")
        let broken = try await runWithInput(binary, ["credential", "git", "get"], input: "protocol=https\nhost=git.example.com\n\n",
                                            environment: ["XDG_CONFIG_HOME": config.url.path])
        #expect(broken.status == 1 && broken.stderr.contains("`credential_helpers.git` must be a list"), "\(broken.stderr)")
        #expect(broken.stdout.isEmpty)
    }
}
