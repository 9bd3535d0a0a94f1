import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
@testable import OAuthFlowLoopback

/// A browser that the user answers at once: it sends the loopback receiver the callback the
/// authorization server would, with a code and the request's `state`.
struct ApprovingBrowser: BrowserOpener {
    func open(_ url: URL) async throws {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard let redirect = items.first(where: { $0.name == "redirect_uri" })?.value,
              let state = items.first(where: { $0.name == "state" })?.value,
              var callback = URLComponents(string: redirect) else { throw BrowserError(message: "not an authorization URL") }
        callback.queryItems = [URLQueryItem(name: "code", value: "the-code"), URLQueryItem(name: "state", value: state)]
        guard let callbackURL = callback.url else { throw BrowserError(message: "no callback URL") }
        // After open returns the receiver starts reading callbacks: answer from another task.
        Task { _ = await TestBrowser.get(callbackURL) }
    }
}

/// The real time, polling without waiting.
struct InstantSleeper: DateClock {
    func now() -> Date { Date() }
    func sleep(seconds: TimeInterval) async throws { try Task.checkCancellation() }
}

/// Collects the events a host would show.
final class SessionEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func record(_ event: OAuth.SignInEvent) {
        let name: String
        switch event {
        case let .sessionUnusable(error): name = "unusable \(error.code)"
        case let .signingIn(provider, .browser, settings): name = "signing in to \(provider.id) as \(settings.clientID) through the browser"
        case let .signingIn(provider, .deviceCode(reason), settings):
            name = "signing in to \(provider.id) as \(settings.clientID) with a device code (\(reason.map(\.description) ?? "asked"))"
        case let .browser(.openURL(url)): name = "open \(url.host ?? "")"
        case .browser: return
        case let .device(.showCode(authorization)): name = "code \(authorization.displayUserCode)"
        case .device: return
        }
        lock.withLock { recorded.append(name) }
    }

    var events: [String] { lock.withLock { recorded } }
}

/// One call for a usable session (`OAuth.usableSession`): the stored one, refreshed, or a sign-in by the route the
/// machine allows.
@Suite struct UsableSessionTests {
    static let deviceGrant = "grant_types: [authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code]\n"

    /// A provider at auth.example.com whose token endpoint answers `token` (by how many token requests came before).
    struct Setup {
        let directory: TemporaryDirectory
        let store = InMemoryTokenStore()
        let transport: ScriptedTransport
        let log = SessionEventLog()
        let oauth: OAuth

        init(environment: [String: String] = ["BROWSER": "approve"], device: Bool = false,
             token: @escaping @Sendable (Int) -> TransportResponse = { _ in tokenResponse("fresh", refresh: "refresh-2") }) throws {
            directory = try TemporaryDirectory()
            transport = ScriptedTransport { request, count in
                if request.url.path == "/device" {
                    let body = #"{"device_code":"dc","user_code":"WDJBMJHT","verification_uri":"https://auth.example.com/activate","expires_in":600,"interval":5}"#
                    return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
                }
                return token(count)
            }
            var descriptor = TestDescriptor(extra: device ? UsableSessionTests.deviceGrant : "")
            if device { descriptor = descriptor.with(endpoints: [("device_authorization", "https://auth.example.com/device")]) }
            oauth = try UsableSessionTests.oauth(
                descriptor, in: directory, store: store, transport: transport,
                environment: environment.merging(["OAUTHFLOW_EXAMPLE_CLIENT_ID": "client"]) { given, _ in given })
        }

        func session() async throws -> StoredSession {
            let log = self.log
            return try await oauth.usableSession("example", browser: ApprovingBrowser()) { log.record($0) }
        }
    }

    @Test func aValidStoredSessionIsReturnedWithoutARequest() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let stored = Self.session(expiresAt: Date().addingTimeInterval(3600))
        await setup.store.save(stored)
        let session = try await setup.session()
        #expect(session == stored)
        #expect(setup.transport.count("/token") == 0 && setup.log.events.isEmpty)
    }

    @Test func aCertificateBoundSessionIsNotHandedToATool() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        var stored = Self.session(expiresAt: Date().addingTimeInterval(3600))
        stored.tokens.certificateThumbprint = "x5t"
        await setup.store.save(stored)
        let error = await #expect(throws: FlowError.self) {
            _ = try await setup.oauth.bearerSession("example", tool: "git", browser: ApprovingBrowser())
        }
        #expect(error?.code == .certificateBinding)
        #expect(error?.message.contains("access-1") == false)
    }

    @Test func anExpiredSessionIsRefreshed() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        await setup.store.save(Self.session(expiresAt: Date().addingTimeInterval(-10)))
        let session = try await setup.session()
        #expect(session.tokens.accessToken.value == "fresh" && session.tokens.refreshToken?.value == "refresh-2")
        #expect(await setup.store.load(SessionKey(providerID: "example"))?.tokens.accessToken.value == "fresh")
        #expect(setup.transport.count("/token") == 1 && setup.log.events.isEmpty)
    }

    @Test func noSessionSignsInThroughTheBrowser() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let session = try await setup.session()
        #expect(session.tokens.accessToken.value == "fresh" && session.clientID == "client")
        #expect(session.redirectURI?.host == "127.0.0.1")
        #expect(setup.log.events == ["signing in to example as client through the browser", "open auth.example.com"])
        #expect(await setup.store.load(SessionKey(providerID: "example")) == session)
    }

    @Test func aSessionTheServerSignedOutIsReplacedByASignIn() async throws {
        let setup = try Setup { count in
            count == 1 ? TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"invalid_grant"}"#.utf8))
                : tokenResponse("signed-in-again")
        }
        defer { setup.directory.cleanUp() }
        await setup.store.save(Self.session(expiresAt: Date().addingTimeInterval(-10)))
        let session = try await setup.session()
        #expect(session.tokens.accessToken.value == "signed-in-again")
        #expect(setup.log.events == ["unusable signed_out", "signing in to example as client through the browser", "open auth.example.com"])
    }

    @Test func aRefreshThatFailsOtherwiseIsThrownAndTheSessionKept() async throws {
        let setup = try Setup { _ in TransportResponse(status: 503, headers: [:], body: Data()) }
        defer { setup.directory.cleanUp() }
        let stored = Self.session(expiresAt: Date().addingTimeInterval(-10))
        await setup.store.save(stored)
        await #expect(throws: (any Error).self) { try await setup.session() }
        #expect(await setup.store.load(stored.key) == stored)
        #expect(setup.log.events.isEmpty)
    }

    @Test func whereNoBrowserCanOpenTheDeviceGrantSignsIn() async throws {
        let setup = try Setup(environment: ["SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22", "PATH": "/nonexistent"], device: true)
        defer { setup.directory.cleanUp() }
        let session = try await setup.session()
        #expect(session.tokens.accessToken.value == "fresh" && session.redirectURI == nil)
        #expect(setup.log.events == ["signing in to example as client with a device code (an SSH session)", "code WDJB-MJHT"])
    }

    @Test func withoutTheDeviceGrantTheBrowserIsTriedAnyway() async throws {
        let setup = try Setup(environment: ["SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22", "PATH": "/nonexistent"])
        defer { setup.directory.cleanUp() }
        _ = try await setup.session()
        #expect(setup.log.events.first == "signing in to example as client through the browser")
    }

    @Test func noClientConfiguredIsTheResolversError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let oauth = try Self.oauth(TestDescriptor(), in: directory, store: InMemoryTokenStore(), transport: ScriptedTransport { _, _ in
            TransportResponse(status: 500, headers: [:], body: Data())
        }, environment: [:])
        let error = try await #require(throws: ClientSettingsError.self) { try await oauth.usableSession("example", browser: ApprovingBrowser()) }
        #expect(error.code == .missingClientID)
    }

    @Test func refreshedRefreshesAValidSessionNow() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let stored = Self.session(expiresAt: Date().addingTimeInterval(3600))
        await setup.store.save(stored)
        let refreshed = try await setup.oauth.session("example").refresh()
        #expect(refreshed.tokens.accessToken.value == "fresh" && setup.transport.count("/token") == 1)
    }

    /// A descriptor re-pointed at another authorization server after the sign-in (what `providers add --force` does):
    /// every way a stored token leaves refuses the old server's session with `session_mismatch`, sending nothing and
    /// keeping the session, where the fast path once handed its access token out as the new server's.
    @Test func aSessionOfTheServerADescriptorNoLongerNamesIsHandedOutByNoPath() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let stored = try await Self.storeSessionOfAuthExample(in: setup)
        #expect(try await setup.oauth.storedSession("example") == stored, "its own server's session passes the gate")
        let repointed = try Self.repointed(setup)
        let paths: [(String, @Sendable () async throws -> Void)] = [
            ("storedSession", { _ = try await repointed.storedSession("example") }),
            ("usableSession", { _ = try await repointed.usableSession("example", browser: ApprovingBrowser()) }),
            ("bearerSession", { _ = try await repointed.bearerSession("example", tool: "git", browser: ApprovingBrowser()) }),
            ("accessToken", { _ = try await repointed.accessToken(for: "example") }),
            ("session", { _ = try await repointed.session("example").validTokens() }),
        ]
        for (name, path) in paths {
            let error = await #expect(throws: SessionError.self, "\(name)") { try await path() }
            #expect(error?.code == .sessionMismatch, "\(name)")
            #expect(error?.message.contains("access-1") == false, "\(name)")
        }
        #expect(setup.transport.count("/token") == 0 && setup.transport.count("/authorize") == 0, "nothing was sent to either server")
        #expect(await setup.store.load(stored.key) == stored, "the session is kept")
    }

    /// Signing out through the front door still removes a session the origin check refuses (its tokens revoked nowhere):
    /// the user asked to be signed out, and the check must not keep the session against them.
    @Test func signingOutASessionOfAServerTheDescriptorNoLongerNamesRemovesIt() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let stored = try await Self.storeSessionOfAuthExample(in: setup)
        let repointed = try Self.repointed(setup)
        let result = try await repointed.signOut("example")
        #expect((result.revocationError as? SessionError)?.code == .sessionMismatch)
        #expect(await setup.store.load(stored.key) == nil)
        #expect(setup.transport.count("/revoke") == 0 && setup.transport.count("/token") == 0)
    }

    /// A valid session issued by https://auth.example.com, stored in `setup`'s store.
    static func storeSessionOfAuthExample(in setup: Setup) async throws -> StoredSession {
        var stored = session(expiresAt: Date().addingTimeInterval(3600))
        stored.authorizationServer = "https://auth.example.com"
        await setup.store.save(stored)
        return stored
    }

    /// The front door over `setup`'s store, with the provider's descriptor re-pointed at https://other.example.com.
    static func repointed(_ setup: Setup) throws -> OAuth {
        try oauth(
            TestDescriptor(issuer: "https://other.example.com"), in: setup.directory, store: setup.store, transport: setup.transport,
            environment: ["BROWSER": "approve", "OAUTHFLOW_EXAMPLE_CLIENT_ID": "client"])
    }

    /// A stored session of the test provider, which takes no variables.
    static func session(expiresAt: Date) -> StoredSession {
        var session = sampleSession(expiresAt: expiresAt)
        session.variables = [:]
        return session
    }

    /// The front door as the command line builds it, with `descriptor` the only provider (in `directory`), the
    /// client settings from `environment` and a clients file that does not exist.
    static func oauth(
        _ descriptor: TestDescriptor, in directory: TemporaryDirectory, store: any TokenStore, transport: ScriptedTransport,
        environment: [String: String]
    ) throws -> OAuth {
        let providers = directory.url.appendingPathComponent("providers")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        try descriptor.yaml.write(to: providers.appendingPathComponent("\(descriptor.id).yaml"), atomically: true, encoding: .utf8)
        let variables = environment.merging(["XDG_CONFIG_HOME": directory.url.path]) { given, _ in given }
        var configuration = OAuth.Configuration.commandLine(environment: variables, transport: transport)
        configuration.providerDirectories = [providers]
        configuration.includeBundledProviders = false
        configuration.store = store
        configuration.environment = OAuthEnvironment(transport: transport, clock: InstantSleeper())
        return OAuth(configuration)
    }
}
