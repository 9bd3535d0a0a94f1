import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The front door, `OAuth`, against a simulated provider described by a file in the host's directory: what a
/// host does by name, and what a hostile name, file or directory gets.
@Suite struct OAuthFrontDoorTests {
    let simulated: SimulatedProvider
    let directory: TemporaryDirectory

    init() throws {
        simulated = try SimulatedProvider()
        directory = try TemporaryDirectory()
        try Data(simulated.descriptorText().utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
    }

    /// The host's front door: the app's client, and with `serviceClient` the service's own.
    func oauth(store: any TokenStore = InMemoryTokenStore(), managerCapacity: Int = OAuth.managerCapacity, serviceClient: Bool = false) -> OAuth {
        OAuth(
            OAuth.Configuration(
                providerDirectories: [directory.url], includeBundledProviders: false,
                clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)],
                serviceClients: serviceClient
                    ? ["simulated": ClientSettings(clientID: SimulatedProvider.serviceClientID, secret: Secret(SimulatedProvider.serviceSecret))]
                    : [:],
                store: store, environment: simulated.environment),
            managerCapacity: managerCapacity)
    }

    /// Signs `account` in with a device code the simulated user approves at once.
    func signIn(_ oauth: OAuth, account: String = "default") async throws {
        await simulated.approveDevices(afterPolls: 1, subject: "user-\(account)")
        _ = try await oauth.signInWithDeviceCode(to: "simulated", account: account)
    }

    // MARK: - By name

    @Test func aSignedInUsersTokenComesByNameAndOneManagerServesEveryCaller() async throws {
        let oauth = oauth()
        try await signIn(oauth)
        let token = try await oauth.accessToken(for: "simulated")
        #expect(!token.value.isEmpty)
        let first = try await oauth.session("simulated")
        let second = try await oauth.session("simulated")
        #expect(first === second)
        try await oauth.signOut("simulated")
        let error = try await #require(throws: SessionError.self) { try await oauth.accessToken(for: "simulated") }
        #expect(error.code == .notSignedIn)
    }

    /// A manager the host kept (inside an authorizer) serves the new session as soon as a sign-in through the same
    /// `OAuth` replaced it (a step-up), not the old one until the store is read again 30 s later.
    @Test func aHeldManagerServesTheSessionOfTheNextSignInAtOnce() async throws {
        let oauth = oauth()
        try await signIn(oauth)
        let held = try await oauth.session("simulated")
        var before = try await held.validAccessToken()
        // Each sign-in, not only the first: the held manager is no longer the one the front door keeps after one.
        for _ in 0..<3 {
            try await signIn(oauth)
            let after = try await held.validAccessToken()
            #expect(after != before)
            #expect(after == (try await oauth.accessToken(for: "simulated")))
            before = after
        }
    }

    @Test func theManagersKeptAreBoundedAndADroppedOneIsMadeAgainFromTheStore() async throws {
        let oauth = oauth(managerCapacity: 4)
        for account in 0..<10 { try await signIn(oauth, account: "a\(account)") }
        for account in 0..<10 { _ = try await oauth.accessToken(for: "simulated", account: "a\(account)") }
        #expect(oauth.keptManagers <= 4)
        // The first account's manager was dropped long ago: it is made again, and its token is still there.
        #expect(!(try await oauth.accessToken(for: "simulated", account: "a0")).value.isEmpty)
    }

    /// The clients file's variables name the server even while the secret it names is not given yet: the provider is
    /// that server's, not one resolved without them.
    @Test func aProviderIsResolvedWithTheClientsVariablesWhenItsSecretIsMissing() throws {
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let config = home.url.appendingPathComponent("oauthflow")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "django:\n  client_id: confidential\n  client_secret_env: OAUTHFLOW_TEST_UNSET_SECRET\n  variables:\n    port: '8123'\n"
            .write(to: config.appendingPathComponent("clients.yaml"), atomically: true, encoding: .utf8)
        let oauth = OAuth(
            OAuth.Configuration(
                providerDirectories: [repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers")], includeBundledProviders: false,
                clientSettings: ClientSettingsResolver(environment: ["XDG_CONFIG_HOME": home.url.path, "HOME": home.url.path])))
        #expect(throws: ClientSettingsError.self) { try oauth.clientSettings(for: "django") }
        let provider = try oauth.provider("django")
        #expect(provider.variables["port"] == "8123" && provider.issuer?.port == 8123)
        #expect(try oauth.provider("django", variables: ["port": "9000"]).variables["port"] == "9000", "the caller's value wins")
        // An API trusting the provider reads the same variables, though the client it would introspect with is incomplete.
        let api = try oauth.protectedResource(
            trusting: ["django"], settings: .init(resource: try #require(URL(string: "https://api.example.com")), scopesSupported: ["read"]))
        #expect(api.metadata.authorizationServers == ["http://127.0.0.1:8123/o"], "\(api.metadata.authorizationServers)")
    }

    @Test func aMisspeltProviderIsUnknownNotAMissingSignIn() async throws {
        let error = try await #require(throws: ProviderError.self) { try await oauth().accessToken(for: "simulatd") }
        #expect(error.code == .unknownProvider && error.description.contains("simulated"))
    }

    @Test func theServicesOwnClientGetsServiceTokensWhileUsersSignInWithTheAppsClient() async throws {
        let oauth = oauth(serviceClient: true)
        try await signIn(oauth)
        #expect(!(try await oauth.accessToken(for: "simulated")).value.isEmpty)
        let token = try await oauth.serviceTokens(for: "simulated").accessToken()
        #expect(!token.value.isEmpty)
        #expect(try oauth.serviceClientSettings(for: "simulated").clientID == SimulatedProvider.serviceClientID)
        #expect(try oauth.clientSettings(for: "simulated").clientID == SimulatedProvider.appClientID)
    }

    // MARK: - Work done once

    @Test func eachDescriptorIsReadOnceAndEachProviderResolvedOnce() throws {
        let oauth = oauth()
        let first = try oauth.descriptor("simulated")
        let provider = try oauth.provider("simulated")
        // The file changes under the running host: this `OAuth` keeps what it read, a new one reads the file again.
        try Data("not: [a descriptor".utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        #expect(try oauth.descriptor("simulated") == first)
        #expect(try oauth.provider("simulated") == provider)
        #expect(throws: ProviderError.self) { try self.oauth().descriptor("simulated") }
    }

    @Test func everyClientOfAProviderSharesOneDiscoveryDocument() async throws {
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let oauth = oauth(serviceClient: true)
        try await signIn(oauth, account: "a")
        try await signIn(oauth, account: "b")
        _ = try await oauth.session("simulated", account: "a").refresh()
        _ = try await oauth.serviceTokens(for: "simulated").accessToken()
        // Two device sign-ins, a refresh and a service token: four clients, one document.
        #expect(await simulated.requestCount(.openIDConfiguration) == 1)
    }

    /// The discovery caches are kept for the providers most recently used: providers drafted from servers' metadata (MCP
    /// makes one per issuer a server names) do not grow a long-lived front door without end.
    @Test func theDiscoveryCachesKeptAreBoundedAndARecentOneStays() {
        let oauth = oauth()
        let kept = oauth.discovery(for: "kept")
        for index in 0..<2_000 {
            _ = oauth.discovery(for: "mcp-server-\(index)")
            if index.isMultiple(of: 50) { #expect(oauth.discovery(for: "kept") === kept) }
        }
        #expect(oauth.discoveryCacheCount <= 256)
        #expect(oauth.discovery(for: "kept") === kept, "a cache in use is not dropped")
    }

    // MARK: - Hostile names, files and directories

    @Test(arguments: [
        "../../../etc/passwd", "simulated/../simulated", "", " ", "SIMULATED", "simulated\u{1B}[31m", "simulated\n",
        String(repeating: "a", count: 10_000),
    ])
    func aNameThatIsNotAProviderIsUnknownAndItsTextIsEscaped(_ name: String) throws {
        let error = try #require(throws: ProviderError.self) { try oauth().descriptor(name) }
        #expect(error.code == .unknownProvider)
        #expect(!error.description.contains("\u{1B}"), "an escape sequence from the name reaches the terminal")
        #expect(error.description.count < 2_000, "the message repeats a huge name")
    }

    @Test(arguments: ["../escape", "a\u{0}b", "x/../../y", "a\u{1B}[2J"])
    func aHostileAccountNeverLeavesTheStoresDirectory(_ account: String) async throws {
        let sessions = directory.url.appendingPathComponent("sessions")
        let oauth = oauth(store: FileTokenStore(directory: sessions))
        try await signIn(oauth, account: account)
        #expect(!(try await oauth.accessToken(for: "simulated", account: account)).value.isEmpty)
        let outside = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(outside == ["sessions", "simulated.yaml"], "files written outside the store: \(outside)")
    }

    @Test func aDescriptorFileNamedForTheProviderButDeclaringAnotherIDIsNotTakenForIt() throws {
        let other = simulated.descriptorText().replacingOccurrences(of: "id: simulated", with: "id: impostor")
        try Data(other.utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let error = try #require(throws: ProviderError.self) { try oauth().descriptor("simulated") }
        #expect(error.code != .unknownProvider || error.description.contains("impostor") || error.description.contains("simulated"))
    }

    @Test func aBrokenDescriptorGivesItsPositionedProblemsNotACrash() throws {
        try Data("schema_version: 1\nid: simulated\nid: again\n\u{1B}[31m: x\n".utf8).write(
            to: directory.url.appendingPathComponent("simulated.yaml"))
        let error = try #require(throws: ProviderError.self) { try oauth().descriptor("simulated") }
        #expect(error.code == .invalidDescriptor)
        #expect(!error.problems.isEmpty)
        #expect(!error.description.contains("\u{1B}"))
    }

    @Test func aHugeDescriptorIsRefusedWithoutBeingRead() throws {
        let huge = "schema_version: 1\nid: simulated\n# " + String(repeating: "x", count: 8 * 1024 * 1024) + "\n"
        try Data(huge.utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
        let error = try #require(throws: ProviderError.self) { try oauth().descriptor("simulated") }
        #expect(error.code == .invalidDescriptor)
    }

    @Test func aProviderDirectoryThatIsMissingOrAFileIsAClearError() throws {
        for bad in [directory.url.appendingPathComponent("missing"), directory.url.appendingPathComponent("simulated.yaml")] {
            let oauth = OAuth(OAuth.Configuration(providerDirectories: [bad], includeBundledProviders: false, environment: simulated.environment))
            let error = try #require(throws: ProviderError.self) { try oauth.descriptor("simulated") }
            #expect(!error.description.isEmpty)
        }
    }

    @Test func aProviderWithoutAClientIsRefusedBeforeAnyRequest() async throws {
        let oauth = OAuth(
            OAuth.Configuration(providerDirectories: [directory.url], includeBundledProviders: false, environment: simulated.environment))
        let error = try #require(throws: ClientSettingsError.self) { try oauth.serviceTokens(for: "simulated") }
        #expect(error.code == .missingClientID)
        await #expect(throws: ClientSettingsError.self) { _ = try await oauth.signInWithDeviceCode(to: "simulated") }
        let tokenRequests = await simulated.requestCount(.token)
        let deviceRequests = await simulated.requestCount(.deviceAuthorization)
        #expect(tokenRequests == 0 && deviceRequests == 0)
    }

    @Test func aStoredSessionOfAnotherClientNeverGetsThisClientsSecret() async throws {
        let store = InMemoryTokenStore()
        try await signIn(oauth(store: store))
        // The host now configures another client, with a secret, for the same provider.
        let other = OAuth(
            OAuth.Configuration(
                providerDirectories: [directory.url], includeBundledProviders: false,
                clients: ["simulated": ClientSettings(clientID: SimulatedProvider.serviceClientID, secret: Secret(SimulatedProvider.serviceSecret))],
                store: store, environment: simulated.environment))
        let client = try other.client(for: try #require(await store.load(SessionKey(providerID: "simulated"))))
        #expect(client.configuration.clientID == SimulatedProvider.appClientID)
        #expect(client.configuration.clientSecret == nil)
    }
}
