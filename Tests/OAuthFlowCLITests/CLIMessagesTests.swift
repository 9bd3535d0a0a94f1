import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// What strangers read on the terminal when they sign in and out (issue 55, items 3, 13 and 14), run as they run it.
@Suite(.serialized) struct CLIMessagesTests {
    /// A directory with a providers folder, the state and config homes, and a browser stand-in that follows redirects.
    struct Home {
        let directory: TemporaryDirectory

        init() throws { directory = try TemporaryDirectory() }

        var providers: String { directory.url.appendingPathComponent("providers").path }

        func environment(browser: String = "/bin/false") -> [String: String] {
            [
                "XDG_STATE_HOME": directory.url.appendingPathComponent("state").path,
                "XDG_CONFIG_HOME": directory.url.appendingPathComponent("config").path, "BROWSER": browser,
            ]
        }

        func run(_ arguments: [String], browser: String = "/bin/false", environment extra: [String: String] = [:]) async throws -> CLI.Result {
            try await CLI.run(arguments + ["--providers-dir", providers], environment: environment(browser: browser).merging(extra) { $1 })
        }

        /// An OAuth 2.0 descriptor whose endpoints no server answers (port 9 on the loopback), for what the CLI says
        /// before anything is sent: `methods` its client authentication, `extra` further top-level sections.
        func describeUnreachable(_ id: String, displayName: String? = nil, methods: [String]? = nil, extra: String = "") throws {
            var text = """
                schema_version: 1
                id: \(id)
                display_name: \(displayName ?? id.capitalized)
                protocol: oauth2
                endpoints:
                  authorization: http://127.0.0.1:9/authorize
                  token: http://127.0.0.1:9/token

                """
            if let methods { text += "client_auth:\n  methods: [\(methods.joined(separator: ", "))]\n" }
            try directory.write("providers/\(id).yaml", text + extra)
        }

        /// A descriptor reading everything from the simulated server's metadata; `extra`, further top-level sections.
        func describe(_ server: SimulatedProviderServer, id: String = "sim", extra: String = "") throws {
            try directory.write(
                "providers/\(id).yaml",
                """
                schema_version: 1
                id: \(id)
                display_name: Simulated
                protocol: oidc
                issuer: \(server.provider.issuer.absoluteString)
                discovery:
                  mode: oidc
                scopes:
                  default: [openid, profile, email]

                """ + extra)
        }
    }

    // MARK: - Item 3: the ID token is never printed by logout

    static let idToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLW9mLXRoZS1pZC10b2tlbi0\(UUID().uuidString.prefix(8))"

    /// A session of an OpenID provider with an end-session endpoint and no revocation endpoint, holding an ID token.
    func storeSessionWithIDToken(_ home: Home) async throws {
        try home.directory.write(
            "providers/ender.yaml",
            """
            schema_version: 1
            id: ender
            display_name: Ender
            protocol: oidc
            issuer: http://127.0.0.1:9
            endpoints:
              authorization: http://127.0.0.1:9/authorize
              token: http://127.0.0.1:9/token
              jwks: http://127.0.0.1:9/jwks
              end_session: http://127.0.0.1:9/logout
            """)
        let store = FileTokenStore(directory: home.directory.url.appendingPathComponent("state/oauthflow"))
        try await store.save(
            StoredSession(
                key: SessionKey(providerID: "ender"), variables: [:], clientID: "ender-cli", redirectURI: nil,
                tokens: TokenSet(
                    accessToken: Secret("access-\(UUID())"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600), refreshToken: nil,
                    idToken: Secret(Self.idToken), scopes: ["openid"], issuedAt: Date()),
                updatedAt: Date()))
    }

    @Test func logoutPrintsTheEndSessionURLWithoutTheIDToken() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try await storeSessionWithIDToken(home)
        let printed = try await home.run(["logout", "ender", "--end-session", "--no-browser"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let url = try #require(URLComponents(string: printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(url.path == "/logout" && url.queryItems?.contains { $0.name == "client_id" && $0.value == "ender-cli" } == true, "\(printed.stdout)")
        #expect(url.queryItems?.contains { $0.name == "id_token_hint" } == false, "\(printed.stdout)")
        #expect(printed.stderr.contains("it carries no ID token"), "\(printed.stderr)")
        for output in [printed.stdout, printed.stderr] { #expect(!output.contains(Self.idToken) && !output.contains("eyJ"), "\(output)") }

        try await storeSessionWithIDToken(home)
        let opened = try await home.run(["logout", "ender", "--end-session", "--timeout", "1"], browser: "/bin/true")
        #expect(opened.status == 2, "\(opened.stderr)")
        #expect(opened.stderr.contains("Opening the browser to end the session at 127.0.0.1; the end-session URL, without the ID token:"), "\(opened.stderr)")
        #expect(opened.stderr.contains("post_logout_redirect_uri=http"), "the URL shown keeps its other parameters: \(opened.stderr)")
        for output in [opened.stdout, opened.stderr] { #expect(!output.contains(Self.idToken) && !output.contains("eyJ"), "\(output)") }
        // Item 14: a provider that ends the session and stays on its own page is not the same as one that kept it.
        #expect(opened.stderr.contains("some providers end the session without sending the browser back"), "\(opened.stderr)")
    }

    // MARK: - Item 14: messages

    /// The URL comes first; the wait for the browser after it.
    @Test func theWaitIsAnnouncedAfterTheURL() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("quiet")
        let result = try await home.run(["login", "quiet", "--client-id", "c", "--timeout", "1", "--no-browser"])
        #expect(result.status == 2, "\(result.stderr)")
        let url = try #require(result.stderr.range(of: "http://127.0.0.1:9/authorize?"), "\(result.stderr)")
        let waiting = try #require(result.stderr.range(of: "Waiting for the browser to return to"), "\(result.stderr)")
        #expect(url.lowerBound < waiting.lowerBound, "\(result.stderr)")
    }

    /// `invalid_scope` for a token of the client itself: which scopes were asked for, and where they come from.
    @Test func aRefusedScopeForClientCredentialsGetsAHint() async throws {
        let body = #"{"error":"invalid_scope","error_description":"scope not allowed"}"#
        let server = try HostileServer(
            .fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)))
        defer { server.stop() }
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.directory.write(
            "providers/svc.yaml",
            """
            schema_version: 1
            id: svc
            display_name: Service
            protocol: oauth2
            grant_types: [client_credentials]
            endpoints:
              token: http://127.0.0.1:\(server.port)/token
            client_auth:
              methods: [client_secret_post]
            """)
        let secret = ["SVC_SECRET": "svc-secret-value"]
        let asked = try await home.run(
            ["token", "client", "svc", "--client-id", "worker", "--client-secret-env", "SVC_SECRET", "--scope", "notes.read"], environment: secret)
        #expect(asked.status == 1)
        #expect(asked.stderr.contains("invalid_scope"), "\(asked.stderr)")
        #expect(
            asked.stderr.contains("hint: the provider refused the scopes asked for (`notes.read`)")
                && asked.stderr.contains("scopes the provider lets client `worker` have"), "\(asked.stderr)")
        let none = try await home.run(["token", "client", "svc", "--client-id", "worker", "--client-secret-env", "SVC_SECRET"], environment: secret)
        #expect(none.stderr.contains("hint: no scope was asked for, and the provider wants one"), "\(none.stderr)")
        #expect(!asked.stderr.contains("svc-secret-value") && !none.stderr.contains("svc-secret-value"))
    }

    /// A public client's sign-in that the provider answers `server_error`: the hint says a provider signing ID tokens
    /// with a secret has none for a public client.
    @Test func aServerErrorForAPublicClientNamesTheSecretSignedIDToken() async throws {
        let server = try await SimulatedProviderServer.start()
        let home = try Home()
        defer { home.directory.cleanUp() }
        do {
            try home.describe(server)
            await server.provider.failNext(.token, error: "server_error", description: "Unable to sign ID token", status: 500)
            let result = try await home.run(
                ["login", "sim", "--client-id", SimulatedProvider.appClientID, "--timeout", "60"], browser: try ProvidersAddSignInTests.browser(in: home.directory))
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("server_error"), "\(result.stderr)")
            #expect(
                result.stderr.contains("hint: the provider failed while issuing this public client's tokens. A provider that signs ID tokens with the client's secret (HS256, HS384 or HS512"),
                "\(result.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A session signed in with `--no-offline` whose refresh is refused: signing in again asks as it did.
    @Test func theHintAfterARefusedRefreshKeepsNoOffline() async throws {
        let server = try HostileServer(.fixed(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)))
        defer { server.stop() }
        let setup = try CLIAdviceTests.Setup(port: server.port)
        defer { setup.directory.cleanUp() }
        let store = FileTokenStore(directory: setup.directory.url.appendingPathComponent("state/oauthflow"))
        for (account, asked) in [("plain", false), ("offline", true)] {
            try await store.save(
                StoredSession(
                    key: SessionKey(providerID: "refuser", account: account), variables: ["port": "\(server.port)"], clientID: "cli-public",
                    redirectURI: URL(string: "http://127.0.0.1:8765/callback"),
                    tokens: TokenSet(
                        accessToken: Secret("access-\(UUID())"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(-60),
                        refreshToken: Secret("refresh-\(UUID())"), idToken: nil, scopes: ["profile"], issuedAt: Date()),
                    updatedAt: Date(), clientAuthentication: ProviderDescriptor.ClientAuthMethod.none, offlineAccessRequested: !asked ? false : true))
        }
        let plain = try await setup.run(["token", "refresh", "refuser", "--account", "plain"])
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("`\(CLIAdviceTests.signInAgain(setup))\(server.port) --account plain --no-offline`"), "\(plain.stderr)")
        let offline = try await setup.run(["token", "refresh", "refuser", "--account", "offline"])
        #expect(offline.stderr.contains("`\(CLIAdviceTests.signInAgain(setup))\(server.port) --account offline`"), "\(offline.stderr)")
        #expect(!offline.stderr.contains("--no-offline"), "\(offline.stderr)")
    }

    /// `login --no-offline` records that it asked for no refresh token.
    @Test func aSignInRecordsWhetherItAskedForARefreshToken() async throws {
        let server = try await SimulatedProviderServer.start()
        let home = try Home()
        defer { home.directory.cleanUp() }
        do {
            try home.describe(server)
            let browser = try ProvidersAddSignInTests.browser(in: home.directory)
            for (account, flags, asked) in [("plain", ["--no-offline"], false), ("offline", [], true)] {
                let result = try await home.run(
                    ["login", "sim", "--client-id", SimulatedProvider.appClientID, "--timeout", "60", "--account", account] + flags, browser: browser)
                #expect(result.status == 0, "\(result.stderr)")
                let stored = try await FileTokenStore(directory: home.directory.url.appendingPathComponent("state/oauthflow"))
                    .load(SessionKey(providerID: "sim", account: account))
                #expect(stored?.offlineAccessRequested == asked, "\(account)")
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    // MARK: - Item 13: the profile from userinfo when the ID token names only the subject

    @Test func loginShowsTheUserFromUserinfoWhenTheIDTokenHasOnlyTheSubject() async throws {
        var settings = SimulatedProvider.Settings()
        settings.userClaimsInIDTokens = false
        settings.users = ["user-1": ["name": .string("Ada Lovelace"), "email": .string("ada@simulated.example"), "email_verified": .bool(true)]]
        let server = try await SimulatedProviderServer.start(settings: settings)
        let home = try Home()
        defer { home.directory.cleanUp() }
        do {
            try home.describe(server)
            let result = try await home.run(
                ["login", "sim", "--client-id", SimulatedProvider.appClientID, "--timeout", "60"], browser: try ProvidersAddSignInTests.browser(in: home.directory))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("  user: Ada Lovelace <ada@simulated.example> (verified)\n"), "\(result.stdout)")
            let json = try await home.run(
                ["login", "sim", "--client-id", SimulatedProvider.appClientID, "--timeout", "60", "--json"],
                browser: try ProvidersAddSignInTests.browser(in: home.directory))
            #expect(json.stdout.contains(#""email" : "ada@simulated.example""#), "\(json.stdout)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
