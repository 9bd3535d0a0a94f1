import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// What the CLI says after a failure, with a stored session and a scripted server instead of a real one:
/// exit codes for states (1, no usage banner), and advice that names the exact command that works.
@Suite(.serialized) struct CLIAdviceTests {
    struct Setup {
        let directory: TemporaryDirectory
        let port: Int

        init(port: Int = 9) throws {
            directory = try TemporaryDirectory()
            self.port = port
            // A plain OAuth provider whose every endpoint is the scripted server.
            try directory.write("providers/refuser.yaml", """
                schema_version: 1
                id: refuser
                display_name: Refuser
                protocol: oauth2
                variables:
                  port:
                    description: The scripted server's port
                    pattern: '^[0-9]{1,5}$'
                endpoints:
                  authorization: http://127.0.0.1:{port}/authorize
                  token: http://127.0.0.1:{port}/token
                  revocation: http://127.0.0.1:{port}/revoke
                client_auth:
                  methods: [none, client_secret_post]
                resources:
                  - scope: notes.read
                    title: Notes
                    url: http://127.0.0.1:{port}/notes
                """)
        }

        var environment: [String: String] {
            ["XDG_STATE_HOME": directory.url.appendingPathComponent("state").path,
             "XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path, "BROWSER": "/bin/false"]
        }

        var providers: String { directory.url.appendingPathComponent("providers").path }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runProduct("oauthflow", arguments + ["--providers-dir", providers],
                                 environment: environment.merging(extra) { _, new in new })
        }

        /// Stores a session for `refuser` under account `work`, its access token expired unless `valid`.
        func storeSession(provider: String = "refuser", scopes: [String] = ["profile"], valid: Bool = false, refreshToken: Bool = true,
                          clientAuthentication: ProviderDescriptor.ClientAuthMethod? = ProviderDescriptor.ClientAuthMethod.none) async throws {
            let store = FileTokenStore(directory: directory.url.appendingPathComponent("state/oauthflow"))
            try await store.save(StoredSession(
                key: SessionKey(providerID: provider, account: "work"), variables: ["port": "\(port)"], clientID: "cli-public",
                redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
                tokens: TokenSet(accessToken: Secret("access-\(UUID())"), tokenType: "Bearer",
                                 expiresAt: Date().addingTimeInterval(valid ? 3600 : -60),
                                 refreshToken: refreshToken ? Secret("refresh-\(UUID())") : nil, idToken: nil, scopes: scopes, issuedAt: Date()),
                updatedAt: Date(), clientAuthentication: clientAuthentication))
        }

        func writeClients(_ text: String) throws {
            try directory.write("config/oauthflow/clients.yaml", text)
        }
    }

    /// How the advice names the sign-in again: with the `--providers-dir` the command was given, which it needs.
    static func signInAgain(_ setup: Setup) -> String {
        "oauthflow login refuser --providers-dir \(setup.providers) --client-id cli-public --var port="
    }

    // MARK: - States exit 1, without a usage banner

    @Test func unknownResourceIsAStateNotAUsageError() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(valid: true)
        let result = try await setup.run(["call", "refuser", "Nonexistent", "--account", "work"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("`Nonexistent` is neither a resource of refuser nor a URL"))
        #expect(!result.stderr.contains("Usage:"))
    }

    @Test func missingTokenOfAKindIsAState() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(valid: true, refreshToken: false)
        for arguments in [["token", "print", "refuser", "--kind", "refresh"], ["token", "revoke", "refuser", "--refresh-token"]] {
            let result = try await setup.run(arguments + ["--account", "work"])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("the session has no refresh token"))
            #expect(!result.stderr.contains("Usage:"))
        }
    }

    @Test func missingSessionNamesTheAccountInItsAdvice() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let result = try await setup.run(["userinfo", "refuser", "--account", "work"])
        #expect(result.status == 1)
        // The provider needs `port`, which nothing gives: the command carries it, so that it runs as printed.
        #expect(
            result.stderr.contains("`oauthflow login refuser --providers-dir \(setup.providers) --client-id CLIENT_ID --var port=VALUE --account work`"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"))
    }

    // MARK: - Item 13: a missing scope is added to the session, with the command that works

    @Test func missingScopeAdvisesAddingItToThisSession() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(scopes: ["profile"], valid: true)
        let result = try await setup.run(["call", "refuser", "Notes", "--account", "work"])
        #expect(result.status == 1)
        let advice = "`\(Self.signInAgain(setup))\(setup.port) --account work --add-scope notes.read`"
        #expect(result.stderr.contains(advice), "\(result.stderr)")
        #expect(!result.stderr.contains("--scope notes.read"), "`--scope` alone would replace the session's scopes")
    }

    /// RFC 9470: an API's step-up challenge is said with the `login` flags that ask for it, and those flags put
    /// `acr_values` and `max_age` in the authorization request (seen in the URL printed; nobody signs in).
    @Test func aStepUpChallengeNamesTheLoginFlagsThatAskForIt() async throws {
        let api = try HostileServer(
            .fixedForPort { _ in
                Data(
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer error=\"insufficient_user_authentication\", acr_values=\"urn:example:mfa\", max_age=300\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .utf8)
            })
        defer { api.stop() }
        let setup = try Setup(port: api.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(scopes: ["notes.read"], valid: true)
        let refused = try await setup.run(["call", "refuser", "Notes", "--account", "work"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("insufficient_user_authentication") && refused.stderr.contains("step-up"), "\(refused.stderr)")
        // The session's own sign-in again (its client, variables and account), with the step-up's flags.
        let again = "`\(Self.signInAgain(setup))\(api.port) --account work --acr-values urn:example:mfa --max-age 300`"
        #expect(refused.stderr.contains(again), "\(refused.stderr)")

        // The step-up is checked in the ID token: an OpenID Connect provider signs in with it.
        let issuer = "http://127.0.0.1:\(api.port)"
        try setup.directory.write(
            "providers/stepper.yaml",
            "schema_version: 1\nid: stepper\ndisplay_name: Stepper\nprotocol: oidc\nissuer: \(issuer)\nendpoints:\n  authorization: \(issuer)/authorize\n"
                + "  token: \(issuer)/token\n  jwks: \(issuer)/jwks\nclient_auth:\n  methods: [none]\nscopes:\n  default: [openid]\n")
        let login = try await setup.run([
            "login", "stepper", "--client-id", "cli-public", "--no-browser", "--timeout", "1", "--acr-values", "urn:example:mfa", "--max-age", "300",
        ])
        #expect(login.status == 2, "\(login.stderr)")
        #expect(login.stderr.contains("--acr-values urn:example:mfa --max-age 300` again"), "the command to run again keeps the step-up")
        let line = try #require(login.stderr.split(separator: "\n").first { $0.contains("/authorize?") }, "\(login.stderr)")
        let url = try #require(URLComponents(string: String(line[line.range(of: "http://")!.lowerBound...])))
        #expect(url.queryItems?.first { $0.name == "acr_values" }?.value == "urn:example:mfa")
        #expect(url.queryItems?.first { $0.name == "max_age" }?.value == "300")
        let negative = try await setup.run(["login", "refuser", "--max-age", "-1"])
        #expect(negative.status == 64)
    }

    /// A step-up only adds to what the descriptor asks of every sign-in (RFC 9470 §4, §6.1): a challenge naming the
    /// descriptor's class among weaker ones is advised with the descriptor's class alone, one naming only weaker classes
    /// is said to be unmeetable, and `login --acr-values` with a weaker class is refused before any URL is printed
    /// (seen failing with the challenge's classes replacing the descriptor's).
    @Test func aStepUpChallengeCannotLowerTheDescriptorsClasses() async throws {
        let challenge = Locked("urn:example:password urn:example:mfa")
        let api = try HostileServer(
            .fixedForPort { _ in
                Data(
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer error=\"insufficient_user_authentication\", acr_values=\"\(challenge.value)\", max_age=3600\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .utf8)
            })
        defer { api.stop() }
        let setup = try Setup(port: api.port)
        defer { setup.directory.cleanUp() }
        let issuer = "http://127.0.0.1:\(api.port)"
        try setup.directory.write(
            "providers/guarded.yaml",
            "schema_version: 1\nid: guarded\ndisplay_name: Guarded\nprotocol: oidc\nvariables:\n  port:\n    description: The port\n"
                + "issuer: http://127.0.0.1:{port}\nendpoints:\n  authorization: http://127.0.0.1:{port}/authorize\n"
                + "  token: http://127.0.0.1:{port}/token\n  jwks: http://127.0.0.1:{port}/jwks\nclient_auth:\n  methods: [none]\nscopes:\n  default: [openid]\n"
                + "authorization:\n  acr_values: [urn:example:mfa]\n  max_age: 300\n")
        try await setup.storeSession(provider: "guarded", scopes: ["openid"], valid: true)
        let narrowed = try await setup.run(["call", "guarded", "\(issuer)/notes", "--account", "work"])
        #expect(narrowed.status == 1)
        #expect(narrowed.stderr.contains("--account work --acr-values urn:example:mfa --max-age 3600`"), "\(narrowed.stderr)")

        challenge.value = "urn:example:password"
        let weaker = try await setup.run(["call", "guarded", "\(issuer)/notes", "--account", "work"])
        #expect(weaker.status == 1)
        #expect(!weaker.stderr.contains("--acr-values"), "\(weaker.stderr)")
        #expect(weaker.stderr.contains("none of which `guarded` accepts") && weaker.stderr.contains("urn:example:mfa"), "\(weaker.stderr)")

        let login = try await setup.run([
            "login", "guarded", "--client-id", "cli-public", "--var", "port=\(api.port)", "--no-browser", "--timeout", "1", "--acr-values",
            "urn:example:password",
        ])
        #expect(login.status == 1, "\(login.stderr)")
        #expect(login.stderr.contains("`authorization.acr_values`") && !login.stderr.contains("/authorize?"), "\(login.stderr)")

        let asked = try await setup.run([
            "login", "guarded", "--client-id", "cli-public", "--var", "port=\(api.port)", "--no-browser", "--timeout", "1", "--acr-values",
            "urn:example:password urn:example:mfa",
            "--max-age", "3600",
        ])
        let line = try #require(asked.stderr.split(separator: "\n").first { $0.contains("/authorize?") }, "\(asked.stderr)")
        let url = try #require(URLComponents(string: String(line[line.range(of: "http://")!.lowerBound...])))
        #expect(url.queryItems?.first { $0.name == "acr_values" }?.value == "urn:example:mfa")
        #expect(url.queryItems?.first { $0.name == "max_age" }?.value == "300")
    }

    /// `--add-scope` asks for the session's scopes plus the new one, with the session's client and variables:
    /// seen in the authorization URL `authorize-url` prints (nothing is sent anywhere).
    @Test func addScopeKeepsTheSessionsClientVariablesAndScopes() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(scopes: ["profile", "email"], valid: true)
        let result = try await setup.run(["authorize-url", "refuser", "--account", "work", "--add-scope", "notes.read"])
        #expect(result.status == 0, "\(result.stderr)")
        let url = try #require(URLComponents(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(url.port == setup.port, "the session's variables")
        #expect(url.queryItems?.first { $0.name == "client_id" }?.value == "cli-public")
        #expect(url.queryItems?.first { $0.name == "scope" }?.value == "profile email notes.read")

        let other = try await setup.run(["authorize-url", "refuser", "--account", "work", "--add-scope", "x", "--client-id", "someone-else"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("--add-scope keeps the session's client cli-public"))

        let none = try await setup.run(["authorize-url", "refuser", "--add-scope", "x"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no stored session for refuser to add scopes to"))
    }

    // MARK: - Item 23: advice after refusals

    @Test func refreshRefusedWithAnEmptyBodyAdvisesSigningInAgain() async throws {
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession()
        for command in [["token", "refresh", "refuser"], ["userinfo", "refuser"], ["call", "refuser", "Notes"], ["token", "print", "refuser"]] {
            let result = try await setup.run(command + ["--account", "work"])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("HTTP 400 with an empty body"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("hint: the provider refused the refresh"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("`\(Self.signInAgain(setup))\(server.port) --account work`"), "\(command): \(result.stderr)")
        }
    }

    /// `call` refreshes after a 401 from the resource; when that refresh is refused, the same advice.
    @Test func callsRefreshAfterA401IsRefusedWithAdvice() async throws {
        // Every request gets 401 with an empty body: the resource, then the token endpoint.
        let server = try HostileServer(.fixed(Data("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(scopes: ["notes.read"], valid: true)
        let result = try await setup.run(["call", "refuser", "Notes", "--account", "work"])
        #expect(result.status == 1)
        #expect(server.received.count == 2, "the resource, then the refresh")
        #expect(result.stderr.contains("hint: the provider refused the refresh"), "\(result.stderr)")
        #expect(result.stderr.contains("`\(Self.signInAgain(setup))\(server.port) --account work`"), "\(result.stderr)")
    }

    /// An API's 403 says which scope it asks for: `call` prints it beside the status (from the RFC 6750 challenge).
    @Test func aForbiddenCallSaysTheScopeTheAPIAsksFor() async throws {
        let head = "HTTP/1.1 403 Forbidden\r\nWWW-Authenticate: Bearer realm=\"notes\", error=\"insufficient_scope\", scope=\"notes.write\"\r\n"
        let server = try HostileServer(.fixed(Data((head + "Content-Length: 0\r\nConnection: close\r\n\r\n").utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(scopes: ["notes.read"], valid: true)
        let result = try await setup.run(["call", "refuser", "Notes", "--account", "work"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("HTTP 403: the API answered `insufficient_scope`; it asks for the scope `notes.write`"), "\(result.stderr)")
    }

    /// A refusal the library already explains ("cannot be refreshed; sign in again") gets the command once, not the sentence twice.
    @Test func aRefusalTheLibraryExplainsIsAdvisedOnce() async throws {
        let body = #"{"error":"invalid_request","error_description":"refresh token inactive"}"#
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession()
        let result = try await setup.run(["token", "refresh", "refuser", "--account", "work"])
        #expect(result.status == 1)
        #expect(result.stderr.components(separatedBy: "cannot be refreshed").count == 2, "said once: \(result.stderr)")
        #expect(result.stderr.contains("`\(Self.signInAgain(setup))\(server.port) --account work`"), "\(result.stderr)")
        #expect(!result.stderr.contains("body_encoding"), "\(result.stderr)")
    }

    @Test func aNetworkFailureDoesNotAdviseSigningInAgain() async throws {
        let setup = try Setup(port: 9)   // discard: nothing listens
        defer { setup.directory.cleanUp() }
        try await setup.storeSession()
        let result = try await setup.run(["token", "refresh", "refuser", "--account", "work"])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("sign in again with"), "\(result.stderr)")
    }

    /// `client_secret_jwt` without a secret: the hint names only what gives a secret, in the entry of the client in use.
    @Test func aMissingSecretForAnAssertionAsksForASecretOnly() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try setup.directory.write("providers/signer.yaml", """
            schema_version: 1
            id: signer
            display_name: Signer
            protocol: oauth2
            grant_types: [client_credentials]
            endpoints:
              authorization: http://127.0.0.1:9/authorize
              token: http://127.0.0.1:9/token
            client_auth:
              methods: [client_secret_jwt, private_key_jwt]
              assertion_audience: token_endpoint
            """)
        let result = try await setup.run(["token", "client", "signer", "--client-id", "svc", "--client-auth", "client_secret_jwt"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs a client secret"), "\(result.stderr)")
        #expect(result.stderr.contains("give the client's secret") && result.stderr.contains("client `svc`"), "\(result.stderr)")
        #expect(!result.stderr.contains("PRIVATE_KEY") && !result.stderr.contains("certificate_file"), "\(result.stderr)")
    }

    @Test func refusedClientCredentialsNameWhereTheSecretCameFrom() async throws {
        let body = #"{"error":"invalid_client","error_description":"Client authentication failed"}"#
        let server = try HostileServer(.fixed(Data("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(clientAuthentication: .clientSecretPost)
        let result = try await setup.run(["token", "refresh", "refuser", "--account", "work", "--client-secret-env", "WRONG_SECRET"],
                                         environment: ["WRONG_SECRET": "not-the-secret"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalid_client"))
        #expect(result.stderr.contains("check that the client secret (from $WRONG_SECRET, named by --client-secret-env) belongs to this client id"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("not-the-secret"))
    }

    @Test func refusedRevocationSaysTheTokensStayValid() async throws {
        let body = #"{"error":"unauthorized_client"}"#
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try await setup.storeSession(valid: true)
        let revoke = try await setup.run(["token", "revoke", "refuser", "--account", "work"])
        #expect(revoke.status == 1)
        #expect(revoke.stderr.contains("the tokens stay valid until they expire"), "\(revoke.stderr)")
        let logout = try await setup.run(["logout", "refuser", "--account", "work"])
        #expect(logout.status == 1)
        #expect(logout.stderr.contains("revocation failed") && logout.stderr.contains("the tokens stay valid until they expire"), "\(logout.stderr)")
    }

    @Test func revokingWithoutARevocationEndpointSaysTheTokensStayValid() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try setup.directory.write("providers/quiet.yaml", """
            schema_version: 1
            id: quiet
            display_name: Quiet
            protocol: oauth2
            variables:
              port:
                description: Unused
                pattern: '^[0-9]{1,5}$'
            endpoints:
              authorization: http://127.0.0.1:{port}/authorize
              token: http://127.0.0.1:{port}/token
            """)
        try await setup.storeSession(provider: "quiet", valid: true)
        let revoke = try await setup.run(["token", "revoke", "quiet", "--account", "work"])
        #expect(revoke.status == 1)
        #expect(revoke.stderr.contains("hint: the provider has no revocation endpoint, so the tokens stay valid until they expire"), "\(revoke.stderr)")
        #expect(!revoke.stderr.contains("refused"), "\(revoke.stderr)")
    }

    // MARK: - Item 4: a clients.yaml secret belongs to its client id

    @Test func anotherClientsSecretIsNeitherRequiredNorSent() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        try setup.writeClients("refuser:\n  client_id: cli-confidential\n  client_secret_env: CONFIDENTIAL_SECRET\n  client_auth: client_secret_post\n")
        // The confidential client's variable is unset: that used to stop a public sign-in with another id (exit 64).
        let other = try await setup.run(["authorize-url", "refuser", "--client-id", "cli-public", "--var", "port=9"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stderr.contains("client_secret_env and client_auth under `refuser:` in "), "\(other.stderr)")
        #expect(other.stderr.contains("are for client cli-confidential, not cli-public; not used"), "\(other.stderr)")
        #expect(!other.stderr.contains("Client secret:"))

        // The file's own client: its secret, and where it came from.
        let own = try await setup.run(["authorize-url", "refuser", "--var", "port=9"], environment: ["CONFIDENTIAL_SECRET": "s3cret-value"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stderr.contains("Client secret: from $CONFIDENTIAL_SECRET, named by client_secret_env under `refuser:`"), "\(own.stderr)")
        #expect(!own.stderr.contains("s3cret-value"))

        // A public sign-in with the file's own client id: --client-auth none leaves the file's secret out.
        let publicSignIn = try await setup.run(["authorize-url", "refuser", "--var", "port=9", "--client-auth", "none"],
                                               environment: ["CONFIDENTIAL_SECRET": "s3cret-value"])
        #expect(publicSignIn.status == 0, "\(publicSignIn.stderr)")
        #expect(publicSignIn.stderr.contains("the client secret configured for cli-confidential is not sent"), "\(publicSignIn.stderr)")
    }

    /// The session commands apply the same rule: the file's secret goes only with the file's client id.
    @Test func sessionCommandsSendTheFilesSecretOnlyForItsClient() async throws {
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        let setup = try Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        try setup.writeClients("refuser:\n  client_id: cli-confidential\n  client_secret_env: CONFIDENTIAL_SECRET\n  client_auth: client_secret_post\n")
        try await setup.storeSession()
        _ = try await setup.run(["token", "refresh", "refuser", "--account", "work"], environment: ["CONFIDENTIAL_SECRET": "s3cret-value"])
        let request = try #require(server.received.first)
        #expect(request.contains("client_id=cli-public"))
        #expect(!request.contains("s3cret-value"), "the confidential client's secret went out with the public client's id")
    }

    // MARK: - Items 23 and 27: lint --online

    /// A descriptor checked against a discovery document served on 127.0.0.1 (`discovery.url`), so the
    /// issuer need not name the scripted server's port.
    static func onlineDescriptor(discovery: String, extra: String = "") -> String {
        """
        schema_version: 1
        id: online
        display_name: Online
        protocol: oidc
        issuer: https://{tenant}.example.test
        discovery:
          mode: oidc
          url: \(discovery)
        variables:
          tenant:
            description: The tenant
            pattern: '^[a-z]+$'
            example: acme
        endpoints:
          authorization: https://acme.example.test/authorize
          token: https://acme.example.test/token
        \(extra)
        """
    }

    @Test func onlineLintNamesTheValuesItUsed() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let file = try setup.directory.write("online.yaml", Self.onlineDescriptor(discovery: "http://127.0.0.1:9/.well-known/openid-configuration"))
        let result = try await runProduct("oauthflow", ["lint", "--online", file.path], environment: setup.environment)
        #expect(result.stderr.contains("online.yaml: checked online with tenant=acme (its example); pass --var NAME=VALUE"), "\(result.stderr)")
        let given = try await runProduct("oauthflow", ["lint", "--online", file.path, "--var", "tenant=mine"], environment: setup.environment)
        #expect(!given.stderr.contains("checked online with"), "\(given.stderr)")
    }

    @Test func onlineLintComparesScopesAndGrantTypesWithDiscovery() async throws {
        let document = """
            {"issuer": "https://acme.example.test", "authorization_endpoint": "https://acme.example.test/authorize",
             "token_endpoint": "https://acme.example.test/token", "code_challenge_methods_supported": ["S256"],
             "scopes_supported": ["openid", "profile", "email"], "grant_types_supported": ["authorization_code"]}
            """
        let server = try HostileServer(.fixed(Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(document.utf8.count)\r\nConnection: close\r\n\r\n\(document)".utf8)))
        defer { server.stop() }
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let file = try setup.directory.write("online.yaml", Self.onlineDescriptor(
            discovery: "http://127.0.0.1:\(server.port)/.well-known/openid-configuration",
            extra: "scopes:\n  default: [openid, email]\n  offline:\n    scopes: [offline_access]\n    params: {prompt: consent}\ngrant_types: [authorization_code, refresh_token]"))
        let result = try await runProduct("oauthflow", ["lint", "--online", file.path, "--var", "tenant=acme"], environment: setup.environment)
        #expect(result.stdout.contains("the descriptor asks for the scope `offline_access`, which the server's scopes_supported (openid, profile, email) does not list; if the provider takes it all the same, record that with `- scopes_supported: [offline_access]` under `discovery.lacks` [online_scopes]"),
                "\(result.stdout)")
        #expect(!result.stdout.contains("scope `email`"))
        #expect(result.stdout.contains("the descriptor declares the grant `refresh_token`, which the server's grant_types_supported (authorization_code) does not list; if the provider takes it all the same, record that with `- grant_types_supported: [refresh_token]` under `discovery.lacks` [online_grant_types]"),
                "\(result.stdout)")
        #expect(!result.stdout.contains("grant `authorization_code`"))
    }
}

/// A value a scripted server's answer reads and a test changes between requests.
final class Locked: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String

    init(_ value: String) { stored = value }

    var value: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
