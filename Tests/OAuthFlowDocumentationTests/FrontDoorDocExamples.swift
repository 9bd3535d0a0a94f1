import Foundation
import Hummingbird
import Logging
import OAuthFlow
import OAuthFlowHummingbird
import OAuthFlowLint
import OAuthFlowLoopback
import OAuthFlowTestSupport
import OAuthFlowWeb
import Testing

/// The front door (`OAuth`) as Docs/host-code.md shows it: every Swift line of those blocks is compiled here
/// (`DocExampleTests.swiftExamplesAreCompiledByTests` checks that), and `FrontDoorExampleTests` runs the same calls,
/// against the Django and Authlib test servers where a real server is needed.
enum FrontDoorDocExamples {
    /// Docs/host-code.md, "One configuration, then one call per task".
    static func configuration() -> OAuth {
        let env = ProcessInfo.processInfo.environment   // read by your code: the library reads no environment itself
        let oauth = OAuth(OAuth.Configuration(
            providerDirectories: [URL(fileURLWithPath: "/etc/myapp/providers")],   // read after the bundled descriptors
            clients: [
                "google": ClientSettings(clientID: "1234-abc.apps.googleusercontent.com", secret: Secret(env["GOOGLE_CLIENT_SECRET"]!)),
                "auth0": ClientSettings(clientID: "AbCdEf", variables: ["domain": "example.us.auth0.com"]),
                "keycloak": ClientSettings(clientID: "orders-worker", secret: Secret(env["ORDERS_WORKER_SECRET"]!),
                                           variables: ["host": "sso.example.com", "realm": "ops"]),
            ],
            store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/sessions"))))
        return oauth
    }

    /// Docs/host-code.md, what the CLI uses.
    static func commandLine() -> OAuth {
        let cli = OAuth(.commandLine(environment: ProcessInfo.processInfo.environment))
        return cli
    }

    /// Docs/host-code.md, one call per task.
    static func tasks(oauth: OAuth, authorizationHeader: String, browser: any BrowserOpener) async throws {
        let token = try await oauth.accessToken(for: "google")
        let serviceToken = try await oauth.serviceTokens(for: "keycloak").accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        let api = try oauth.protectedResource(trusting: ["auth0"], settings: .init(resource: URL(string: "https://api.example.com")!))
        let principal = try await api.authenticate(ProtectedResource.Request(authorization: authorizationHeader), requiring: ["read:notes"])
        let signedOut = try await oauth.signOut("auth0", endingProviderSession: .init(postLogoutRedirectURI: URL(string: "myapp://signed-out")))
        if let request = signedOut.endSession { try await browser.open(request.url) }   // it holds the ID token: open it, never print it; then request.acceptsReturn(query:)
        let problems = try oauth.lint().filter { $0.severity == .error }
        _ = (token, serviceToken, principal, problems)
    }

    /// Calls Docs/host-code.md shows inside its prose, compiled here; `FrontDoorExampleTests.inlineCallsAreShown` checks the guide still shows them.
    static let inlineCalls = [
        #"oauth.signInWithDeviceCode(to: "google")"#,
        #"oauth.signIn(to: "google", browser: browser, timeout: .seconds(120))"#,
        #"oauth.accessToken(for: "google", account: user.id)"#,
        #"oauth.signOut("auth0", providerSession: .endInBrowser, browser: browser)"#,
        #"try SessionKeyring(current: .init(id: "2026-11", base64: key))"#,
        #"environment: OAuthEnvironment(logger: Logger(label: "myapp.oauth"))"#,
    ]

    struct ExampleUser { let id: String }

    static func inlineExamples(oauth: OAuth, browser: any BrowserOpener, user: ExampleUser, key: String) async throws {
        _ = try await oauth.signInWithDeviceCode(to: "google")
        _ = try await oauth.signIn(to: "google", browser: browser, timeout: .seconds(120))
        _ = try await oauth.accessToken(for: "google", account: user.id)
        _ = try await oauth.signOut("auth0", providerSession: .endInBrowser, browser: browser)
        _ = try SessionKeyring(current: .init(id: "2026-11", base64: key))
        _ = OAuth.Configuration(environment: OAuthEnvironment(logger: Logger(label: "myapp.oauth")))
    }

    /// Docs/host-code.md, web sign-in on Hummingbird (the host's context and user are DocWebExample's stand-ins).
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func web(oauth: OAuth, keyring: SessionKeyring, router: Router<DocWebExample.Context>) throws {
        typealias User = DocWebExample.User
        let web = try oauth.webSignIn(enabling: ["google", "auth0"], origin: URL(string: "https://app.example.com")!, keyring: keyring)

        router.addSignInRoutes(web) { result, request, context in
            // Your idea of a signed-in user: `context.sessions` and `User` are your app's (HummingbirdAuth's sessions, a cookie, a JWT).
            context.sessions.setSession(User(provider: result.providerID, subject: result.subject!, email: result.claims["email"]?.stringValue))
            return .redirect(to: result.returnTo)
        }
    }

    /// Docs/oidc.md, an API's step-up challenge answered by signing in again.
    static func stepUp(oauth: OAuth, browser: any BrowserOpener, wwwAuthenticate: [String]) async throws {
        if let stepUp = ProtectedResource.StepUp(challenges: wwwAuthenticate) {
            _ = try await oauth.signIn(to: "keycloak", browser: browser, stepUp: stepUp)
        }
    }

    /// Docs/host-code.md, "The types underneath": the sign-in `oauth.signIn(to:browser:)` runs.
    static func underneath(store: any TokenStore, browser: any BrowserOpener, clientID: String) async throws -> TokenManager {
        let provider = try ProviderRegistry.load().descriptor(named: "google").resolve([:])
        let result = try await LoopbackSignIn(store: store, browser: browser).signIn(to: provider, settings: ClientSettings(clientID: clientID))
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: clientID, redirectURI: result.session.redirectURI))
        let manager = TokenManager(client: client, store: store, key: result.session.key)   // refreshes when needed, once
        return manager
    }
}

/// The front door's calls, run: sign-in by name, a session's token and sign-out against Django OAuth Toolkit; a
/// service token and an API's check of it against Authlib; web sign-in and lint offline; and what the library
/// reads when the host passes nothing (nothing) and when it passes the CLI's environment.
@Suite struct FrontDoorExampleTests {
    @Test func inlineCallsAreShown() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/host-code.md"), encoding: .utf8)
        let source = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowDocumentationTests/FrontDoorDocExamples.swift"), encoding: .utf8)
        for call in FrontDoorDocExamples.inlineCalls {
            #expect(guide.contains("`\(call)`") || guide.contains("(`\(call)`)"), "Docs/host-code.md no longer shows `\(call)`")
            #expect(source.components(separatedBy: call).count >= 3, "`\(call)` is not compiled here")
        }
    }

    @Test(.enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
    func signInATokenAndSignOutByNameAgainstTheTestServer() async throws {
        let server = try TestAuthorizationServer.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let oauth = OAuth(ReadmeExampleTests.configuration(for: server, store: store))
        await #expect(throws: SessionError.self, "no session before the sign-in") { _ = try await oauth.accessToken(for: "django") }

        let browser = WatchedAgent(server: server)
        let result = try await withThrowingTaskGroup(of: SignInResult?.self) { group in
            group.addTask { try await oauth.signIn(to: "django", browser: browser) }
            group.addTask {
                try await browser.failure()
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw WatchedAgent.Failure(message: "the sign-in ended without a result")
        }
        #expect(result.session.key == SessionKey(providerID: "django"))

        // A usable session's access token: the stored one while it is valid, from one shared token manager.
        let token = try await oauth.accessToken(for: "django")
        #expect(token == result.session.tokens.accessToken)
        #expect(try await oauth.session("django") === (try await oauth.session("django")), "one token manager per session")
        #expect(try await oauth.session("django").userInfo()["email"]?.stringValue == "alice@example.com")

        // Sign-out revokes and forgets: the token no longer works at the provider, and nothing is stored.
        let signedOut = try await oauth.signOut("django")
        #expect(signedOut.endSession == nil)
        #expect(try await store.load(SessionKey(providerID: "django")) == nil)
        let error = await #expect(throws: SessionError.self) { _ = try await oauth.accessToken(for: "django") }
        #expect(error?.code == .notSignedIn)
        let introspected = try await OAuthClient(
            provider: try oauth.provider("django"),
            configuration: .service(clientID: "oauthflow-service", clientSecret: Secret("service-test-secret-0123456789abcdef"))
        ).introspect(token)
        #expect(introspected["active"] == .bool(false), "the revoked access token is inactive")
    }

    /// A service token by name, and an API trusting the same provider that checks it (a JWT, RFC 9068).
    @Test(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
    func aServiceTokenAndTheAPIsCheckOfItByName() async throws {
        let server = try TestServiceServer.require()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write(
            "providers/service.yaml", server.descriptor(methods: ["client_secret_basic"], extra: "access_tokens:\n  profile: rfc9068\n").yaml)
        let registered = try server.client("jwt-es256")
        let oauth = OAuth(OAuth.Configuration(
            providerDirectories: [directory.url.appendingPathComponent("providers")],
            clients: ["service": ClientSettings(clientID: registered.clientID, secret: registered.clientSecret.map(Secret.init))],
            store: FileTokenStore(directory: directory.url.appendingPathComponent("state"))))

        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.example.com"])
        let serviceToken = try await oauth.serviceTokens(for: "service").accessToken(request)
        #expect(try await oauth.serviceTokens(for: "service").accessToken(request) == serviceToken, "cached, and one cache per provider")
        #expect(try await server.whoami(serviceToken).status == 200)

        let api = try oauth.protectedResource(trusting: ["service"], settings: .init(resource: URL(string: "https://api.example.com")!))
        let principal = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(serviceToken.value)"), requiring: ["read"])
        #expect(principal.clientID == registered.clientID)
        await #expect(throws: ProtectedResource.Denial.self) {
            _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(serviceToken.value)"), requiring: ["write"])
        }
    }

    /// `oauth.webSignIn(...)` enables providers by name with their clients from the configuration: the routes send
    /// the browser to the provider with this client, and finished sign-ins are kept in the configuration's store.
    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func webSignInEnablesProvidersByName() async throws {
        let oauth = OAuth(OAuth.Configuration(
            clients: ["auth0": ClientSettings(clientID: "AbCdEf", variables: ["domain": "example.us.auth0.com"])], store: InMemoryTokenStore()))
        let keyring = try SessionKeyring(current: .init(id: "2026-11", base64: Data(repeating: 7, count: 32).base64EncodedString()))
        let web = try oauth.webSignIn(enabling: ["auth0"], origin: URL(string: "https://app.example.com")!, keyring: keyring)
        #expect(web.redirectURI(for: "auth0")?.absoluteString == "https://app.example.com/auth/auth0/callback")
        #expect(web.sessions != nil, "finished sign-ins are kept in the configuration's store")
        let started = await web.start("auth0")
        let location = try #require(started.headers.first { $0.name == "Location" }?.value).flatMap(URLComponents.init(string:))
        #expect(started.status == 302 || started.status == 303)
        #expect(location?.host == "example.us.auth0.com")
        #expect(location?.queryItems?.first { $0.name == "client_id" }?.value == "AbCdEf")

        let unconfigured = #expect(throws: ClientSettingsError.self) {
            _ = try oauth.webSignIn(enabling: ["google"], origin: URL(string: "https://app.example.com")!, keyring: keyring)
        }
        #expect(unconfigured?.code == .missingClientID)
        let router = Router(context: DocWebExample.Context.self)
        try FrontDoorDocExamples.web(oauth: OAuth(OAuth.Configuration(clients: [
            "google": ClientSettings(clientID: "1234-abc.apps.googleusercontent.com", secret: Secret("test-secret")),
            "auth0": ClientSettings(clientID: "AbCdEf", variables: ["domain": "example.us.auth0.com"]),
        ])), keyring: keyring, router: router)
    }

    /// `oauth.lint()` checks the host's own descriptors, as `oauthflow lint` does.
    @Test func lintChecksTheHostsDescriptors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [directory.url]))
        _ = try directory.write("keycloak.yaml", try String(contentsOf: repositoryRoot.appendingPathComponent("providers/keycloak.yaml"), encoding: .utf8))
        #expect(try oauth.lint().filter { $0.severity == .error }.isEmpty)
        _ = try directory.write("broken.yaml", "schema_version: 1\nid: broken\nprotocol: oauth2\nissuer: http://auth.example.com\n")
        let problems = try oauth.lint().filter { $0.severity == .error }
        #expect(!problems.isEmpty && problems.allSatisfy { $0.description.contains("broken.yaml") }, "\(problems)")
        #expect(try OAuth(OAuth.Configuration()).lint().isEmpty, "no directory of the host's own, nothing to check")
    }

    /// Docs/descriptor-format.md, "Self-hosted providers": one call reads an issuer's metadata and writes a descriptor
    /// that lints clean, which the registry then resolves (here against the simulated provider's document).
    @Test func addProviderWritesADescriptorFromAnIssuer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let simulated = try SimulatedProvider(issuer: try #require(URL(string: "https://sso.example.com/realms/ops")))
        let oauth = OAuth(OAuth.Configuration(providerDirectories: [directory.url], environment: simulated.environment))
        let added = try await oauth.addProvider(issuer: "https://sso.example.com/realms/ops", id: "ops-sso")
        print("wrote", added.file.path, added.draft.notes)
        #expect(added.file.lastPathComponent == "ops-sso.yaml")
        #expect(try oauth.lint().filter { $0.severity != .info }.isEmpty)
        let provider = try await oauth.provider("ops-sso").discovered(environment: simulated.environment)
        #expect(provider.endpoints.token?.absoluteString.hasPrefix("https://sso.example.com/realms/ops") == true)
    }

    /// A configuration reads nothing the host did not pass; `.commandLine(environment:)` reads what it is given, as the CLI does.
    @Test func theLibraryReadsOnlyWhatTheHostPasses() throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        _ = try home.write("config/oauthflow/clients.yaml", "google:\n  client_id: from-the-clients-file\n")
        _ = try home.write(
            "config/oauthflow/providers/mine.yaml", try String(contentsOf: repositoryRoot.appendingPathComponent("providers/keycloak.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "id: keycloak", with: "id: mine"))
        let environment = [
            "HOME": home.url.path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path, "OAUTHFLOW_AUTH0_CLIENT_ID": "from-the-environment",
        ]

        let plain = OAuth.Configuration()
        #expect(plain.environmentVariables.isEmpty && plain.clientSettings == nil && !plain.includeUserProviders)
        let host = OAuth(plain)
        #expect(throws: ClientSettingsError.self) { _ = try host.clientSettings(for: "auth0") }
        #expect(throws: ProviderError.self) { _ = try host.descriptor("mine") }

        let cli = OAuth(.commandLine(environment: environment))
        #expect(try cli.clientSettings(for: "auth0").clientID == "from-the-environment")
        #expect(try cli.clientSettings(for: "google").clientID == "from-the-clients-file")
        #expect(try cli.descriptor("mine").id == "mine")
        let store = try #require(cli.store as? FileTokenStore)
        #expect(store.path(for: SessionKey(providerID: "google")).hasPrefix(home.url.appendingPathComponent("state/oauthflow").path))
    }
}
