import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// A newcomer against a LemonLDAP::NG-like server (issue 61, item 12): `providers add` names every address to register
/// and every flag, and the commands after it say what went wrong in words that name the flags.
@Suite(.serialized) struct NewcomerCLITests {
    typealias Home = CLIMessagesTests.Home

    /// A server whose metadata lists `client_secret_basic` alone, no `offline_access` and no revocation endpoint, and
    /// publishes an end-session and an introspection endpoint, as LemonLDAP::NG 2.16's does.
    static func lemon() async throws -> SimulatedProviderServer {
        var settings = SimulatedProvider.Settings()
        settings.offersDPoP = false
        settings.metadataOverrides = [
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_basic")]),
            "scopes_supported": .array(["openid", "profile", "email"].map(JSONValue.string)),
            "pushed_authorization_request_endpoint": .null, "revocation_endpoint": .null,
            "end_session_endpoint": .string("http://127.0.0.1:9/logout"),
        ]
        return try await SimulatedProviderServer.start(settings: settings)
    }

    @Test func providersAddNamesTheAddressesTheFlagsAndTheAudience() async throws {
        let server = try await Self.lemon()
        let home = try Home()
        defer { home.directory.cleanUp() }
        do {
            let issuer = server.provider.issuer
            let port = try #require(issuer.port)
            let environment = home.environment()
            let added = try await CLI.run(["providers", "add", issuer.absoluteString, "--port", "8800"], environment: environment)
            #expect(added.status == 0, "\(added.stderr)")
            // The default id keeps the issuer's port.
            let file = try #require(added.stdout.split(separator: "\n").first.map(String.init))
            #expect(URL(fileURLWithPath: file).lastPathComponent.hasPrefix("127-0-0-1-\(port)"), "\(file)")
            let text = try String(contentsOfFile: file, encoding: .utf8)

            // The post-logout redirect URI, beside the redirect URI, in the advice and the file's notes.
            #expect(
                added.stderr.contains(
                    "Register http://127.0.0.1:8800/callback as a redirect URI of your client at the server, and http://127.0.0.1:8800/logged-out as its post-logout redirect URI"
                ), "\(added.stderr)")
            #expect(text.contains("sends the post-logout redirect URI http://127.0.0.1:8800/logged-out"), "\(text)")

            // The notes name the flags.
            #expect(!added.stderr.contains("assuming so") && !text.contains("assuming so"), "\(added.stderr)")
            #expect(added.stderr.contains("write this file again with `oauthflow providers add \(issuer.absoluteString) --public-client --force`"), "\(added.stderr)")
            #expect(added.stderr.contains("`oauthflow providers add \(issuer.absoluteString) --offline-access --force`"), "\(added.stderr)")
            // One command that keeps both flags, so that the second step does not undo the first.
            #expect(
                added.stderr.contains(
                    "keep its flag: `oauthflow providers add \(issuer.absoluteString) --id 127-0-0-1-\(port) --port 8800 --public-client --offline-access --force`"),
                "\(added.stderr)")

            // Introspection is published: an access_tokens section, the audience left to the API.
            #expect(text.contains("access_tokens:\n  format: opaque\n  # audience: "), "\(text)")
            let lint = try await CLI.run(["lint", "--strict", file], environment: environment)
            #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")

            // Written again without --force: the error names the flag, not the library's parameter.
            let again = try await CLI.run(["providers", "add", issuer.absoluteString, "--port", "8800"], environment: environment)
            #expect(again.status == 1)
            #expect(again.stderr.contains("already exists"), "\(again.stderr)")
            #expect(again.stderr.contains("--port 8800 --force`") && !again.stderr.contains("replacing"), "\(again.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A public client signing in where the descriptor lists no `none`: the hint names the flag that lists it.
    @Test func aPublicClientRefusedForWantOfNoneIsToldOfPublicClient() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("secretive", methods: ["client_secret_basic"])
        let result = try await home.run(["login", "secretive", "--client-id", "cli", "--no-browser", "--timeout", "1"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("hint: name the client's secret with --client-secret-env VAR"), "\(result.stderr)")
        #expect(result.stderr.contains("write it again with --public-client and --force"), "\(result.stderr)")
    }

    /// `logout --end-session` that waits in vain: the return address to register, and that the tokens stay valid.
    @Test func aLogoutThatTimesOutNamesTheAddressAndTheTokensThatStayValid() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        let port = try unusedPort()
        try await CLIMessagesTests().storeSessionWithIDToken(home)
        let fixed = try await home.run(["logout", "ender", "--end-session", "--timeout", "1", "--port", "\(port)"], browser: "/bin/true")
        #expect(fixed.status == 2, "\(fixed.stderr)")
        #expect(fixed.stderr.contains("register http://127.0.0.1:\(port)/logged-out as a post-logout redirect URI of this client"), "\(fixed.stderr)")
        // The likelier cause first: a provider that shows its own page (LemonLDAP::NG after its consent page) and never
        // sends the browser back (seen failing with the registration named first).
        let consent = try #require(fixed.stderr.range(of: "consent page"), "\(fixed.stderr)")
        #expect(consent.lowerBound < (fixed.stderr.range(of: "register http")?.lowerBound ?? consent.lowerBound), "\(fixed.stderr)")
        #expect(!fixed.stderr.contains("one the caller fixes,"), "\(fixed.stderr)")
        #expect(fixed.stderr.contains("the provider has no revocation endpoint, so they stay valid until they expire"), "\(fixed.stderr)")
        #expect(!fixed.stderr.contains("--port PORT fixes it"), "\(fixed.stderr)")

        try await CLIMessagesTests().storeSessionWithIDToken(home)
        let ephemeral = try await home.run(["logout", "ender", "--end-session", "--timeout", "1"], browser: "/bin/true")
        #expect(ephemeral.status == 2, "\(ephemeral.stderr)")
        #expect(ephemeral.stderr.contains("hint: the port was chosen for this sign-out; --port PORT fixes it"), "\(ephemeral.stderr)")
    }

    /// `token revoke` at a provider whose descriptor records `lacks: [revocation]`: it lacks one, nothing to set.
    @Test(arguments: [true, false]) func tokenRevokeSaysTheProviderLacksRevocation(recorded: Bool) async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("lacker", methods: ["none"], extra: recorded ? "discovery:\n  lacks: [revocation]\n" : "")
        try await FileTokenStore(directory: home.directory.url.appendingPathComponent("state/oauthflow")).save(
            StoredSession(
                key: SessionKey(providerID: "lacker"), variables: [:], clientID: "cli", redirectURI: nil,
                tokens: TokenSet(
                    accessToken: Secret("access-\(UUID())"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600), refreshToken: nil,
                    idToken: nil, scopes: [], issuedAt: Date()),
                updatedAt: Date(), clientAuthentication: ProviderDescriptor.ClientAuthMethod.none))
        let result = try await home.run(["token", "revoke", "lacker"])
        #expect(result.status == 1)
        if recorded {
            #expect(result.stderr.contains("the provider lacks one (its descriptor records `discovery.lacks: [revocation]`)"), "\(result.stderr)")
            #expect(!result.stderr.contains("set `endpoints.revocation`"), "\(result.stderr)")
        } else {
            #expect(result.stderr.contains("set `endpoints.revocation` if the provider has one"), "\(result.stderr)")
        }
    }

    /// A refresh refused before anything is sent, for want of the secret: the hint names the flag.
    @Test func aRefreshWithoutItsSecretNamesTheFlag() async throws {
        let home = try Home()
        defer { home.directory.cleanUp() }
        try home.describeUnreachable("confidential", methods: ["client_secret_basic"])
        try await FileTokenStore(directory: home.directory.url.appendingPathComponent("state/oauthflow")).save(
            StoredSession(
                key: SessionKey(providerID: "confidential"), variables: [:], clientID: "app", redirectURI: nil,
                tokens: TokenSet(
                    accessToken: Secret("access-\(UUID())"), tokenType: "Bearer", expiresAt: Date().addingTimeInterval(-60),
                    refreshToken: Secret("refresh-\(UUID())"), idToken: nil, scopes: [], issuedAt: Date()),
                updatedAt: Date(), clientAuthentication: .clientSecretBasic))
        let result = try await home.run(["token", "refresh", "confidential"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("hint: name the client's secret with --client-secret-env VAR"), "\(result.stderr)")
        #expect(!result.stderr.contains("--public-client"), "a stored confidential session is not a public client: \(result.stderr)")
    }
}
