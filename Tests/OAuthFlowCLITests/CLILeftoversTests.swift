import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// What was left for later (issue 61, items 12 and 14): `verify-token`'s refusals, stored sessions that are not what
/// they should be, and messages that did not say enough, each run as a user runs the command.
@Suite(.serialized) struct CLILeftoversTests {
    typealias Home = CLIMessagesTests.Home

    /// `oauthflow verify-token ARGS` with `token` on standard input.
    static func verify(_ home: Home, _ arguments: [String], token: String, environment extra: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await ChildProcess.run(
            try builtProduct("oauthflow"), ["verify-token"] + arguments + ["--providers-dir", home.providers], directory: repositoryRoot,
            environment: home.environment().merging(extra) { $1 }, input: token)
    }

    /// A provider whose tokens are JWTs and whose descriptor states no audience.
    static func describeJWTProvider(_ home: Home) throws {
        try home.directory.write(
            "providers/plain.yaml",
            """
            schema_version: 1
            id: plain
            display_name: Plain
            protocol: oauth2
            issuer: http://127.0.0.1:9
            endpoints:
              authorization: http://127.0.0.1:9/authorize
              token: http://127.0.0.1:9/token
              jwks: http://127.0.0.1:9/jwks
            """)
    }

    // MARK: - secrets on the command line

    /// `--client-secret VALUE` is told where a secret goes, and a secret given as `--client-secret-env`'s variable name
    /// is not repeated: neither reaches standard output or standard error.
    @Test func aSecretGivenOnTheCommandLineIsNeverRepeated() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("unreachable", methods: ["client_secret_post"])
        let secret = "Xk9-q.Zr~7pL/AB+cd="
        let literal = try await home.run(["token", "client", "unreachable", "--client-id", "c", "--client-secret", secret])
        #expect(literal.status != 0)
        #expect(literal.stderr.contains("--client-secret is not an option") && literal.stderr.contains("--client-secret-env NAME"), "\(literal.stderr)")
        let named = try await home.run(["token", "client", "unreachable", "--client-id", "c", "--client-secret-env", secret])
        #expect(named.status != 0)
        #expect(named.stderr.contains("is not a variable name"), "\(named.stderr)")
        for result in [literal, named] {
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(result.stderr)")
        }
    }

    // MARK: - no stored session

    /// A misspelt provider is an unknown provider, with the nearest name, not a missing sign-in; the sign-in advised for
    /// a provider that needs a variable nothing gives carries it (`--var NAME=VALUE`), so that it runs as printed.
    @Test func theSignInAdvisedForNoSessionNamesTheProviderAndItsVariables() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("unreachable")
        let typo = try await home.run(["userinfo", "cloudentiti"])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("no provider named `cloudentiti`; did you mean `cloudentity`?"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("no stored session"), "\(typo.stderr)")
        let variable = try await home.run(["resources", "cloudentity"])
        #expect(variable.status == 1)
        #expect(variable.stderr.contains("--client-id CLIENT_ID --var tenant=VALUE` first"), "\(variable.stderr)")
    }

    // MARK: - lint

    /// A file that cannot be read as a descriptor gets its structural errors only: the summary says the other rules did
    /// not run on it, so a second round of findings after the fix is no surprise; a readable file gets no such note.
    @Test func lintSaysWhichFilesTheOtherRulesDidNotRunOn() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.directory.write(
            "lint/broken.yaml", "schema_version: 1\nid: broken\ndisplay_name: B\nprotocol: oauth2\nendpoints:\n  authorize: https://a.example/a\n")
        let broken = try await CLI.run(["lint", home.directory.url.appendingPathComponent("lint/broken.yaml").path], environment: home.environment())
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("note: 1 file could not be read as a descriptor (the errors above)"), "\(broken.stderr)")
        let clean = try await CLI.run(["lint", repositoryRoot.appendingPathComponent("providers/github.yaml").path], environment: home.environment())
        #expect(clean.status == 0 && !clean.stderr.contains("note:"), "\(clean.stderr)")
        let json = try await CLI.run(
            ["lint", "--format", "json", home.directory.url.appendingPathComponent("lint/broken.yaml").path], environment: home.environment())
        #expect(!json.stderr.contains("note:") && !json.stdout.contains("note:"), "JSON output stays the diagnostics alone")
    }

    // MARK: - verify-token

    @Test func verifyTokenSaysTheAudienceIsRequiredAndHowToGiveIt() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeJWTProvider(home)
        let result = try await Self.verify(home, ["plain"], token: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
        #expect(result.status == 1)
        #expect(result.stderr.contains("states no audience for its access tokens (`access_tokens.audience`), so the API's audience is required"), "\(result.stderr)")
        #expect(result.stderr.contains("`--audience AUD` for `oauthflow verify-token`"), "\(result.stderr)")
        // No descriptor key is called `audience:` (seen failing with that quoted).
        #expect(!result.stderr.contains("`audience:`") && result.stderr.contains("the `audience` argument"), "\(result.stderr)")
    }

    @Test func aPastedBearerHeaderIsToldToGiveTheTokenAlone() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeJWTProvider(home)
        let result = try await Self.verify(home, ["plain", "--audience", "api"], token: "Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("the token starts with `Bearer `, the scheme of an Authorization header: give the token alone"), "\(result.stderr)")
    }

    @Test func anOversizedTokenIsCalledTheToken() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeJWTProvider(home)
        let result = try await Self.verify(home, ["plain", "--audience", "api"], token: String(repeating: "a", count: 17 * 1024))
        #expect(result.status == 1)
        #expect(result.stderr.contains("the token is longer than 16384 bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("Authorization header"), "\(result.stderr)")
    }

    /// An introspection client the provider refuses: the server's own error and the flags, not a 503 of the API's.
    @Test func aRefusedIntrospectionClientIsShownAsTheServerSaidIt() async throws {
        let server = try await SimulatedProviderServer.start()
        let home = try Home()
        defer { home.directory.cleanUp() }
        do {
            try home.directory.write(
                "providers/sim.yaml",
                """
                schema_version: 1
                id: sim
                display_name: Simulated
                protocol: oidc
                issuer: \(server.provider.issuer.absoluteString)
                discovery:
                  mode: oidc
                access_tokens:
                  format: opaque
                  audience: api
                client_auth:
                  methods: [client_secret_basic]
                """)
            let missing = try await Self.verify(home, ["sim"], token: "opaque-token")
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("hint: this provider's tokens are introspected") && missing.stderr.contains("--client-id ID"), "\(missing.stderr)")

            let refused = try await Self.verify(
                home, ["sim", "--client-id", "nobody", "--client-secret-env", "NOBODY_SECRET"], token: "opaque-token",
                environment: ["NOBODY_SECRET": "not-the-secret-0123456789"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("error: the authorization server returned `invalid_client`"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("temporarily_unavailable") && !refused.stderr.contains("503"), "\(refused.stderr)")
            #expect(refused.stderr.contains("hint: the provider refused the API's client at its introspection endpoint"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("not-the-secret"), "\(refused.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    // MARK: - Stored sessions

    /// Writes `text` as the stored session of `quiet` (account `default`).
    static func storeRaw(_ home: Home, _ text: String) throws {
        // As the store makes them (a 700 directory, a 600 file), so that only the file's text is under test.
        let store = FileTokenStore(directory: home.directory.url.appendingPathComponent("state/oauthflow"))
        try FileManager.default.createDirectory(
            at: store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = store.path(for: SessionKey(providerID: "quiet"))
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    static func describeQuiet(_ home: Home) throws {
        try home.describeUnreachable("quiet", methods: ["none"], extra: "security:\n  iss_parameter: absent\n")
    }

    @Test func aStoredTokenWithControlCharactersIsACorruptSession() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        let session = StoredSession(
            key: SessionKey(providerID: "quiet"), variables: [:], clientID: "cli", redirectURI: nil,
            tokens: TokenSet(
                accessToken: Secret("plain-\u{1B}]0;owned\u{07}-\u{1B}[2J"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600),
                refreshToken: nil, idToken: nil, scopes: [], issuedAt: Date()),
            updatedAt: Date(), clientAuthentication: ProviderDescriptor.ClientAuthMethod.none)
        try Self.storeRaw(home, String(decoding: try session.encoded(), as: UTF8.self))
        let printed = try await home.run(["token", "print", "quiet"])
        #expect(printed.status == 1)
        #expect(printed.stdout.isEmpty, "\(printed.stdout.debugDescription)")
        #expect(!printed.stderr.contains("\u{1B}") && !printed.stderr.contains("\u{07}"), "\(printed.stderr.debugDescription)")
        #expect(printed.stderr.contains("`tokens.accessToken` holds characters other than printable ASCII (RFC 6749 Appendix A)"), "\(printed.stderr)")
    }

    @Test func aSessionOfTheWrongShapeIsNotASession() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        try Self.storeRaw(home, #"{"hello": "world"}"#)
        let shape = try await home.run(["token", "show", "quiet"])
        #expect(shape.status == 1)
        #expect(shape.stderr.contains("(not a session: expected a JSON object with `formatVersion`"), "\(shape.stderr)")
        #expect(!shape.stderr.contains("invalid JSON"), "\(shape.stderr)")
        try Self.storeRaw(home, "{not json")
        let garbage = try await home.run(["token", "show", "quiet"])
        #expect(garbage.stderr.contains("(invalid JSON)"), "\(garbage.stderr)")
    }

    /// No session stored: the sign-in the hint gives names the client when nothing else does.
    @Test func theSignInHintNamesTheClientIDWhenTheLoginNeedsIt() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        let bare = try await home.run(["token", "show", "quiet"])
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("sign in with `oauthflow login quiet --providers-dir \(home.providers) --client-id CLIENT_ID` first"), "\(bare.stderr)")
        let named = try await home.run(["token", "show", "quiet"], environment: ["OAUTHFLOW_QUIET_CLIENT_ID": "cli"])
        #expect(named.stderr.contains("sign in with `oauthflow login quiet --providers-dir \(home.providers)` first"), "\(named.stderr)")
    }

    // MARK: - Messages

    @Test func authorizeURLSaysItPutPort8765ForAnEphemeralDescriptor() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        let ephemeral = try await home.run(["authorize-url", "quiet", "--client-id", "cli"])
        #expect(ephemeral.status == 0, "\(ephemeral.stderr)")
        #expect(ephemeral.stderr.contains("the descriptor's port is ephemeral, so port 8765 was put in it"), "\(ephemeral.stderr)")
        let given = try await home.run(["authorize-url", "quiet", "--client-id", "cli", "--port", "9100"])
        #expect(!given.stderr.contains("port 8765 was put"), "\(given.stderr)")
    }

    @Test func providersShowSaysWhatIfSupportedComesTo() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        try home.directory.write(
            "providers/found.yaml",
            """
            schema_version: 1
            id: found
            display_name: Found
            protocol: oidc
            issuer: https://sso.example.com
            discovery:
              mode: oidc
            """)
        let quiet = try await home.run(["providers", "show", "quiet"])
        #expect(quiet.stdout.contains("pushed authorization requests: if_supported (not pushed: no endpoint, and no discovery to find one)"), "\(quiet.stdout)")
        let found = try await home.run(["providers", "show", "found"])
        #expect(found.stdout.contains("pushed authorization requests: if_supported (unknown until discovery:"), "\(found.stdout)")
    }

    @Test func providersListWarnsOfADescriptorThatFailsLint() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try Self.describeQuiet(home)
        try home.directory.write("providers/flawed.yaml", Self.flawed)
        let listed = try await home.run(["providers", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("flawed"), "it is still listed: \(listed.stdout)")
        #expect(listed.stderr.contains("warning: \(home.providers)/flawed.yaml fails lint (1 error; line"), "\(listed.stderr)")
        #expect(!listed.stderr.contains("quiet.yaml"), "\(listed.stderr)")
    }

    /// A descriptor the registry loads and `lint` fails: no issuer, and nothing said of the callback's `iss`.
    static let flawed = """
        schema_version: 1
        id: flawed
        display_name: Flawed
        protocol: oauth2
        endpoints:
          authorization: http://127.0.0.1:9/authorize
          token: http://127.0.0.1:9/token
        scopes:
          default: [read, read]
        """

    /// A discovery document that answers with a redirect: where it pointed, escaped.
    @Test func aRefusedDiscoveryRedirectSaysWhereItPointed() async throws {
        let head = "HTTP/1.1 302 Found\r\nLocation: https://elsewhere.example/\u{202E}metadata\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let server = try HostileServer(.fixed(Data(head.utf8)))
        defer { server.stop() }
        let home = try Home()
        defer { home.directory.cleanUp() }
        let result = try await CLI.run(["providers", "add", "http://127.0.0.1:\(server.port)"], environment: home.environment())
        #expect(result.status == 1)
        #expect(result.stderr.contains("answered HTTP 302, a redirect to `https://elsewhere.example/\\u{202E}metadata` that is not followed"), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{202E}"), "\(result.stderr.debugDescription)")
    }
}
