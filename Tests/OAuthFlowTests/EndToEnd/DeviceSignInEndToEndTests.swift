import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device grant against Django OAuth Toolkit: a person approves or denies the code on DOT's pages.
@Suite(.serialized, .enabled(if: TestAuthorizationServer.shouldRun, TestAuthorizationServer.skipReason))
struct DeviceSignInEndToEndTests {
    typealias Server = TestAuthorizationServer

    @Test func approvedOnTheOtherDevice() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let provider = try server.provider()
        let shown = Shown()
        let session = try await DeviceSignIn(store: store).signIn(to: provider, settings: ClientSettings(clientID: Server.deviceClientID)) { event in
            guard case let .showCode(authorization) = event else { return }
            shown.authorization = authorization
            Task.detached { try await decideDetached(server, authorization) }
        }.session
        let authorization = try #require(shown.authorization)
        #expect(authorization.verificationURI.absoluteString == "\(server.baseURL.absoluteString)/o/device/")
        #expect(authorization.expiresAt.timeIntervalSinceNow > 1700, "DOT gives 1800 s")
        #expect(session.tokens.refreshToken != nil)
        #expect(session.tokens.idToken == nil, "DOT issues no ID token in the device flow")
        #expect(try await store.load(session.key)?.tokens.accessToken == session.tokens.accessToken)
        // The tokens work.
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(clientID: Server.deviceClientID,
                                                                                        redirectURI: nil))
        #expect(try await client.userInfo(session.tokens)["email"]?.stringValue == "alice@example.com")
    }

    @Test func deniedOnTheOtherDevice() async throws {
        let server = try Server.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let store = FileTokenStore(directory: state.url.appendingPathComponent("oauthflow"))
        let error = try await #require(throws: AuthorizationServerError.self) {
            try await DeviceSignIn(store: store).signIn(to: try server.provider(), settings: ClientSettings(clientID: Server.deviceClientID)) { event in
                guard case let .showCode(authorization) = event else { return }
                Task.detached { try await decideDetached(server, authorization, deny: true) }
            }
        }
        #expect(error.error == "access_denied")
        #expect(try await store.load(SessionKey(providerID: "django")) == nil)
    }

    /// DOT keeps answering `authorization_pending` after the code's 1800 s: the client stops on its own clock.
    /// Time runs 300 times faster here, so the 1800 s pass in six real polls.
    @Test func expiresOnTheClientsClock() async throws {
        let server = try Server.require()
        let time = FastTime(Date(), factor: 300)
        let signIn = DeviceSignIn(store: InMemoryTokenStore(), environment: OAuthEnvironment(clock: time))
        let error = try await #require(throws: FlowError.self) {
            try await signIn.signIn(to: try server.provider(), settings: ClientSettings(clientID: Server.deviceClientID))
        }
        #expect(error.code == .deviceCodeExpired)
        #expect(time.polls >= 5 && time.polls <= 7)
    }

}

/// Plays the person on the other device: signs in on DOT and approves (or denies) the code.
private func decideDetached(_ server: TestAuthorizationServer, _ authorization: OAuthClient.DeviceAuthorization, deny: Bool = false) async throws {
    _ = try await runProcess(URL(fileURLWithPath: server.python),
                             [server.agent, "--user-code=\(authorization.userCode)"] + (deny ? ["--deny"] : []) + [authorization.verificationURI.absoluteString])
}

/// What the event handler saw.
private final class Shown: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: OAuthClient.DeviceAuthorization?
    var authorization: OAuthClient.DeviceAuthorization? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A clock that runs `factor` times faster than real time while sleeping (a short real sleep each time).
private final class FastTime: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var count = 0
    let factor: Double

    init(_ start: Date, factor: Double) {
        current = start
        self.factor = factor
    }

    func now() -> Date { lock.withLock { current } }
    var polls: Int { lock.withLock { count } }

    func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: 10_000_000)
        lock.withLock {
            count += 1
            current = current.addingTimeInterval(seconds * factor)
        }
    }
}
