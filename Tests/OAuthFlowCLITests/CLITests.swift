import Foundation
import Testing
import OAuthFlowTestSupport

/// Runs the built `oauthflow` binary as a user would and captures what it prints.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: URL? {
        var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(repositoryRoot.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("oauthflow") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func run(_ arguments: [String], environment extra: [String: String] = [:], in directory: URL = repositoryRoot) async throws -> Result {
        guard let binary = Self.binary else {
            Issue.record("cannot find the built oauthflow binary; run `swift build --build-tests`")
            throw CancellationError()
        }
        var environment = ["XDG_CONFIG_HOME": "/nonexistent-oauthflow-config"]
        for (key, value) in extra { environment[key] = value }
        let result = try await ChildProcess.run(binary, arguments, directory: directory, environment: environment)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

@Suite struct LintCommandTests {
    @Test func bundledProvidersPassStrictLint() async throws {
        let result = try await CLI.run(["lint", "--strict", "providers"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("0 errors, 0 warnings"))
    }

    @Test func lintWithoutPathsUsesTheProvidersFolder() async throws {
        let result = try await CLI.run(["lint"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func brokenFolderGivesPositionedErrorsAndExitOne() async throws {
        let result = try await CLI.run(["lint", "Tests/OAuthFlowLintTests/Fixtures/broken"])
        #expect(result.status == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: CLI.repositoryRoot.appendingPathComponent("Tests/OAuthFlowLintTests/Fixtures/broken").path)
        for file in files where file.hasSuffix(".yaml") {
            let pattern = "Tests/OAuthFlowLintTests/Fixtures/broken/\(file):"
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix(pattern) && $0.contains(": error: ") }
            #expect(line != nil, "no positioned error for \(file)")
        }
        let first = try #require(result.stdout.split(separator: "\n").first)
        #expect(first.range(of: #"^[^:]+:\d+:\d+: (error|warning): .+ \[[a-z_]+\]$"#, options: .regularExpression) != nil)
    }

    @Test func warningsFailOnlyUnderStrict() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = """
            schema_version: 1
            id: warn
            display_name: Warn
            protocol: oauth2
            issuer: https://auth.example.com
            endpoints:
              authorization: https://auth.example.com/authorize
              token: https://auth.example.com/token
            redirect:
              loopback:
                host: localhost
            """
        try Data(text.utf8).write(to: directory.appendingPathComponent("warn.yaml"))
        let relaxed = try await CLI.run(["lint", directory.path])
        #expect(relaxed.status == 0)
        #expect(relaxed.stdout.contains("warning:") && relaxed.stdout.contains("[localhost_loopback]"))
        let strict = try await CLI.run(["lint", "--strict", directory.path])
        #expect(strict.status == 1)
    }

    @Test func jsonAndGitHubFormats() async throws {
        let json = try await CLI.run(["lint", "--format", "json", "Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml"])
        #expect(json.status == 1)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first?["rule_id"] as? String == "wrong_type")
        #expect(entries.first?["line"] as? Int == 10)
        let github = try await CLI.run(["lint", "--format", "github", "Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml"])
        #expect(github.stdout.hasPrefix("::error file=Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml,line=10,col=12,title=wrong_type::"))
    }

    @Test func controlCharactersInADescriptorCannotForgeLines() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A quoted key holding a line break, a forged diagnostic, a screen-clearing escape and a bidi override.
        let text = """
            schema_version: 1
            id: evil
            display_name: Evil
            protocol: oauth2
            endpoints:
              authorization: https://auth.example.com/authorize
              token: https://auth.example.com/token
            "x\\nforged.yaml:1:1: error: all good\\e[2J\\u202E": 1
            """
        try Data(text.utf8).write(to: directory.appendingPathComponent("evil.yaml"))
        let result = try await CLI.run(["lint", directory.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stdout)")
        #expect(!lines.contains { $0.hasPrefix("forged.yaml") })
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
        #expect(result.stdout.contains("\\n") && result.stdout.contains("\\x1B") && result.stdout.contains("\\u{202E}"))
        // The machine formats keep the key exactly.
        let json = try await CLI.run(["lint", "--format", "json", directory.path])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.contains { ($0["message"] as? String)?.contains("\u{1B}[2J") == true })
    }

    @Test func anEmptyFolderIsNotAPass() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let relaxed = try await CLI.run(["lint", directory.path])
        #expect(relaxed.status == 0)
        #expect(relaxed.stderr.contains("nothing was checked"))
        let strict = try await CLI.run(["lint", "--strict", directory.path])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("nothing was checked"))
        let counted = try await CLI.run(["lint", "providers"])
        #expect(counted.stderr.contains(" files checked: 0 errors, 0 warnings"), "\(counted.stderr)")
    }

    @Test func missingPathIsAClearError() async throws {
        let result = try await CLI.run(["lint", "no/such/place"])
        #expect(result.status == 1)
        #expect((result.stdout + result.stderr).contains("no/such/place:1:1: error: cannot read the file: no such file or directory"))
    }

    /// A path that is not there is a finding at that path: the other paths are linted, and JSON stays one JSON array
    /// (a newcomer's `lint --format json nope.yaml good.yaml` printed nothing at all).
    @Test func aMissingPathLeavesTheOtherPathsLintedAndTheJSONWhole() async throws {
        let result = try await CLI.run(["lint", "--format", "json", "no/such/place.yaml", "Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml"])
        #expect(result.status == 1)
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let paths = Set(findings.compactMap { $0["path"] as? String })
        #expect(paths == ["no/such/place.yaml", "Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml"], "\(result.stdout)")
    }

    /// `lint PATH…` alone skips the argument parser (OAuthFlowCommand.main); written with `--format text`,
    /// the same lint goes through it. Both say the same, byte for byte, with the same exit status.
    @Test(arguments: [
        ["providers"], ["Tests/OAuthFlowLintTests/Fixtures/broken"], ["no/such/place"], [],
        ["providers/google.yaml", "Tests/OAuthFlowLintTests/Fixtures/broken/wrong-type.yaml", "./providers/google.yaml"],
    ])
    func pathsAloneAnswerAsTheParsedCommandDoes(_ paths: [String]) async throws {
        let quick = try await CLI.run(["lint"] + paths)
        let parsed = try await CLI.run(["lint", "--format", "text"] + paths)
        #expect(quick.status == parsed.status)
        #expect(quick.stdout == parsed.stdout)
        #expect(quick.stderr == parsed.stderr)
        #expect(!quick.stderr.isEmpty)
    }
}

@Suite struct ProvidersCommandTests {
    @Test func aWebOnlyProviderIsRefusedBeforeABrowserOpens() async throws {
        for command in ["login", "authorize-url"] {
            let result = try await CLI.run([command, "apple", "--client-id", "com.example.web", "--var", "team_id=ABCDE12345"], environment: ["BROWSER": "/bin/false"])
            #expect(result.status == 1 && result.stderr.contains("`redirect.web_only`"), "\(command): \(result.stderr)")
        }
    }

    @Test func listShowsEveryBundledProvider() async throws {
        let result = try await CLI.run(["providers", "list"])
        #expect(result.status == 0)
        for id in ["auth0", "cloudentity", "github", "gitlab", "google", "keycloak", "microsoft", "okta"] {
            #expect(result.stdout.contains("\n\(id) ") || result.stdout.hasPrefix("\(id) "), "missing \(id)")
        }
    }

    /// One huge display name does not pad every other row to its width.
    @Test func aHugeDisplayNameDoesNotWidenEveryRow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let name = String(repeating: "N", count: 200_000)
        _ = try directory.write(
            "long.yaml",
            "schema_version: 1\nid: long\ndisplay_name: \(name)\nprotocol: oauth2\ndiscovery:\n  mode: none\nendpoints:\n  authorization: https://a.example/authorize\n  token: https://a.example/token\n"
        )
        let result = try await CLI.run(["providers", "list", "--providers-dir", directory.url.path])
        #expect(result.status == 0 && result.stdout.contains(name))
        #expect(result.stdout.utf8.count < 2 * name.utf8.count, "\(result.stdout.utf8.count) bytes for one long name")
    }

    @Test func showSaysHowServicesAuthenticateAndNameTheirAPI() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write(
            "svc.yaml",
            TestDescriptor(
                id: "svc",
                extra: """
                    grant_types: [client_credentials]
                    client_auth:
                      methods: [private_key_jwt, client_secret_basic]
                      assertion_audience: token_endpoint
                      assertion_algs: [ES256]
                    service_tokens:
                      target: audience

                    """
            ).yaml)
        let text = try await CLI.run(["providers", "show", "svc", "--providers-dir", directory.url.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("  grants: client_credentials\n"))
        #expect(text.stdout.contains("  client assertions: aud the token endpoint, signed with ES256\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  service tokens: APIs named with `audience`\n"), "\(text.stdout)")
        let json = try await CLI.run(["providers", "show", "svc", "--providers-dir", directory.url.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["grant_types"] as? [String] == ["client_credentials"])
        #expect(object["assertion_audience"] as? String == "token_endpoint")
        #expect(object["service_target"] as? String == "audience")
    }

    /// A FAPI 2.0 Message Signing descriptor: `providers show` names the profile, the signed request objects and the
    /// JWT-secured responses, each with the algorithms the profile leaves (the defaults narrowed to PS256, ES256, EdDSA).
    @Test func showSaysWhatAMessageSigningProviderSigns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write(
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
              default: [openid, accounts]
            client_auth:
              methods: [private_key_jwt]
            authorization:
              request_object: always
              response_mode: jwt
            security:
              profile: fapi2_message_signing
              id_token_algs: [PS256, ES256]
              dpop: required

            """)
        let text = try await CLI.run(["providers", "show", "bank", "--providers-dir", directory.url.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("  security profile: FAPI 2.0 Message Signing (fapi2_message_signing): "), "\(text.stdout)")
        #expect(text.stdout.contains("  response mode: jwt, signed with PS256, ES256\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  request objects (RFC 9101): always, signed with PS256, ES256, EdDSA\n"), "\(text.stdout)")
        #expect(!text.stdout.contains("certificate-bound tokens"))

        // Tokens bound to the certificate of a private_key_jwt client, in place of DPoP.
        let bound = try directory.write(
            "bank.yaml",
            try String(contentsOf: directory.url.appendingPathComponent("bank.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "  dpop: required\n", with: "  tls_client_certificate_bound_access_tokens: true\n"))
        _ = bound
        let shown = try await CLI.run(["providers", "show", "bank", "--providers-dir", directory.url.path])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("  DPoP: never (Bearer tokens)\n  certificate-bound tokens (RFC 8705): token requests present the client certificate"), "\(shown.stdout)")
    }

    /// A C1 control (CSI, U+009B) in a descriptor's text reaches `--json` output as a JSON escape: the output
    /// parses, and the value reads back as written.
    @Test func jsonOutputWithControlsInItsValuesStaysJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write("csi.yaml", TestDescriptor(id: "csi", displayName: #""Evil\x9b31m\u202eName""#).yaml)
        for arguments in [["providers", "show", "csi", "--json"], ["providers", "list", "--json"]] {
            let result = try await CLI.run(arguments + ["--providers-dir", directory.url.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains("\\x9B") && !result.stdout.unicodeScalars.contains("\u{9B}"), "\(result.stdout)")
            #expect(result.stdout.contains("\\u009b"), "\(result.stdout)")
            let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            #expect("\(parsed)".contains("Name"))
        }
    }

    @Test func verifyTokenRefusesAnEmptyAudienceAsAUsageError() async throws {
        let result = try await CLI.run(["verify-token", "auth0", "--var", "domain=example.eu.auth0.com", "--audience", ""])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--audience is empty"), "\(result.stderr)")
    }

    @Test func showResolvesVariables() async throws {
        let result = try await CLI.run(["providers", "show", "auth0", "--var", "domain=example.eu.auth0.com", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["issuer"] as? String == "https://example.eu.auth0.com/")
        #expect((object["endpoints"] as? [String: String])?["token"] == "https://example.eu.auth0.com/oauth/token")
        #expect(object["token_body_encoding"] as? String == "json")
        #expect(object["token_response_format"] as? String == "json")
        // A provider whose token answer is form-encoded says so, in the text too.
        let github = try await CLI.run(["providers", "show", "github"])
        #expect(github.stdout.contains("answer read as"), "\(github.stdout)")
    }

    /// `providers show` and Docs/providers.md say the same of a provider: its catalog row, conditions included.
    @Test(arguments: [
        ("shopify", ["shop=johns-apparel"]), ("salesforce", []), ("curity", ["host=login.example.com"]), ("github", []), ("vk", []),
    ])
    func showAgreesWithTheCatalogPage(_ id: String, _ variables: [String]) async throws {
        let result = try await CLI.run(["providers", "show", id, "--json"] + variables.flatMap { ["--var", $0] })
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let catalog = try #require(object["catalog"] as? [String: Any])
        let page = try String(contentsOf: CLI.repositoryRoot.appendingPathComponent("Docs/providers.md"), encoding: .utf8)
        let row = try #require(page.split(separator: "\n").first { $0.contains("| `\(id)` |") }, "\(id) has a row")
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).replacing(/\[\^[^\]]*\]/, with: "") }
        #expect(cells[3] == catalog["pkce"] as? String && cells[4] == catalog["refresh"] as? String, "\(id): \(row)")
        #expect(cells[5] == ((catalog["device_flow"] as? Bool) == true ? "yes" : "no"), "\(id): \(row)")
        #expect(cells[6] == catalog["revocation"] as? String && cells[7] == catalog["logout"] as? String, "\(id): \(row)")
        for (key, note) in [("refresh_condition", "refresh"), ("revocation_condition", "revocation"), ("logout_condition", "logout")] {
            if let condition = catalog[key] as? String {
                #expect(page.contains("[^\(id)-\(note)]:") && page.contains(condition), "\(id): the page's footnote gives the \(note) condition")
            }
        }
        let text = try await CLI.run(["providers", "show", id] + variables.flatMap { ["--var", $0] })
        #expect(text.stdout.contains("  catalog: pkce \(catalog["pkce"] as? String ?? "?"), refresh \(catalog["refresh"] as? String ?? "?")"))
    }

    /// What a userinfo call needs beyond a Bearer GET, and a provider that sends no scope, are shown.
    @Test func showPrintsTheUserinfoRequestAndAbsentScopes() async throws {
        let linear = try await CLI.run(["providers", "show", "linear"])
        #expect(linear.stdout.contains("  userinfo request: POST, Authorization: Bearer <token>, body {\"query\": "), "\(linear.stdout)")
        let trakt = try await CLI.run(["providers", "show", "trakt"])
        #expect(trakt.stdout.contains("trakt-api-key={client_id} trakt-api-version=2"), "\(trakt.stdout)")
        let bungie = try await CLI.run(["providers", "show", "bungie"])
        #expect(bungie.stdout.contains("  scopes: none sent"), "\(bungie.stdout)")
        let asana = try await CLI.run(["providers", "show", "asana"])
        #expect(asana.status == 0 && !asana.stdout.contains("userinfo request:"), "a plain Bearer GET needs no line")
    }

    @Test func showListsGrantableResources() async throws {
        let result = try await CLI.run(["providers", "show", "cloudentity", "--var", "tenant=acme", "--var", "workspace=demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("resource: Balance [email] http://localhost:8080/banking/balance"))
    }

    @Test func missingVariableIsNamed() async throws {
        let result = try await CLI.run(["providers", "show", "auth0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs the variable `domain`"))
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownProviderSuggests() async throws {
        let result = try await CLI.run(["providers", "show", "githib"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("did you mean `github`?"))
    }

    @Test func malformedVarIsAUsageError() async throws {
        let result = try await CLI.run(["providers", "show", "auth0", "--var", "domain"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("name=value"))
    }

    @Test func extraDirectoryOverridesBundled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = """
            schema_version: 1
            id: github
            display_name: GitHub Enterprise
            protocol: oauth2
            issuer: https://ghe.example.com/login/oauth
            endpoints:
              authorization: https://ghe.example.com/login/oauth/authorize
              token: https://ghe.example.com/login/oauth/access_token
            """
        try Data(text.utf8).write(to: directory.appendingPathComponent("github.yaml"))
        let result = try await CLI.run(["providers", "show", "github", "--providers-dir", directory.path, "--verbose"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("GitHub Enterprise (github, oauth2)"))
        #expect(result.stderr.contains("provider overridden"))
    }

    @Test func schemaCommandPrintsTheSchema() async throws {
        let result = try await CLI.run(["schema"])
        let published = try String(contentsOf: CLI.repositoryRoot.appendingPathComponent("providers/schema.json"), encoding: .utf8)
        #expect(result.stdout == published)
    }
}

/// One rule for exit codes (Docs/cli.md): 64 only for a command line that is malformed, with the usage banner;
/// a state (no session, an unknown provider or resource, no client configured) exits 1 with one sentence.
@Suite struct ExitCodeTests {
    static let fixtures = ["--providers-dir", "Tests/OAuthFlowTests/Fixtures/providers"]

    func run(_ arguments: [String], in directory: URL = CLI.repositoryRoot) async throws -> CLI.Result {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cli-state-\(UUID().uuidString)").path
        return try await CLI.run(arguments, environment: ["XDG_STATE_HOME": state, "BROWSER": "/bin/false"], in: directory)
    }

    @Test(arguments: [
        ["userinfo", "unknownprovider"],
        ["call", "django", "Nonexistent"],
        ["token", "show", "nosuch"],
        ["token", "print", "nosuch", "--kind", "refresh"],
        ["token", "refresh", "nosuch"],
        ["logout", "nosuch"],
        ["resources", "nosuch"],
        ["providers", "show", "nosuch"],
        ["login", "nosuch", "--client-id", "x"],
        ["authorize-url", "nosuch", "--client-id", "x"],
        ["login", "google"],
        ["credential", "kubectl", "nosuch"],
        ["login", "django", "--callback-url", "http://127.0.0.1:1/callback?code=x&state=y"],
    ])
    func statesExitOneWithoutAUsageBanner(_ arguments: [String]) async throws {
        let result = try await run(arguments + Self.fixtures)
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        // The credential helpers mark their lines, which git and kubectl show among their own.
        let prefix = arguments.first == "credential" ? "oauthflow: error: " : "error: "
        #expect(result.stderr.hasPrefix(prefix), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
    }

    @Test(arguments: [
        ["login", "google", "--client-auth", "bogus"],
        ["token", "refresh", "django", "--client-auth", "bogus"],
        ["lint", "--online", "--var", "novalue"],
        ["credential", "kubectl", "django", "--var", "novalue"],
        ["jwt", "decode", "a.b.c", "--var", "novalue"],
        ["providers", "show", "auth0", "--var", "domain"],
        ["login", "django", "--timeout", "0"],
        ["login", "django", "--scope", "a", "--add-scope", "b"],
        ["credential", "kubectl", "django", "--client-id", "x"],
    ])
    func malformedCommandLinesExit64WithUsage(_ arguments: [String]) async throws {
        let result = try await run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
    }

    /// `call`'s service flags (declared once, with `token client`'s) go with `--service` only, each of them.
    @Test(arguments: [["--scope", "read"], ["--resource", "https://api.example.com"], ["--audience", "api"], ["--client-id", "x"]])
    func callsServiceFlagsNeedService(_ flag: [String]) async throws {
        let result = try await run(["call", "django", "https://api.example.com/x"] + flag)
        #expect(result.status == 64, "\(flag): \(result.stderr)")
        #expect(result.stderr.contains("go with --service"), "\(flag): \(result.stderr)")
    }

    /// The credential helper has no --client-id flag, so its advice must not offer one.
    @Test func kubectlAdviceOffersOnlyWhatItAccepts() async throws {
        let result = try await run(["credential", "kubectl", "nosuch"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("OAUTHFLOW_NOSUCH_CLIENT_ID") && result.stderr.contains("clients.yaml"), "\(result.stderr)")
        #expect(!result.stderr.contains("--client-id"), "\(result.stderr)")
    }

    @Test func lintWithNothingToLintIsAState() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("cli-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try await run(["lint"], in: empty)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"))
    }

    /// The docs hold one exit-code table, and the CLI's help states the same rule.
    @Test func oneExitCodeTable() async throws {
        let text = try String(contentsOf: CLI.repositoryRoot.appendingPathComponent("Docs/cli.md"), encoding: .utf8)
        #expect(text.components(separatedBy: "| Code | Meaning |").count == 2)
        #expect(!text.contains("usage error (exit 64) that says to sign in"))
        let help = try await CLI.run(["--help"])
        #expect(help.stdout.contains("64 a malformed command line"))
    }
}
