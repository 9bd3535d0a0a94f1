import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

/// A clock that moves only when it sleeps: polling tests take no real time.
final class VirtualTime: DateClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var slept: [TimeInterval] = []

    init(_ start: Date) { current = start }

    func now() -> Date { lock.withLock { current } }
    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        lock.withLock {
            slept.append(seconds)
            current = current.addingTimeInterval(seconds)
        }
    }
    var sleeps: [TimeInterval] { lock.withLock { slept } }
}

/// The simulated provider's clock, recording each wait: the provider sees the seconds go by, the test sees the waits.
final class RecordedWaits: DateClock, Sendable {
    let base: MovableClock
    private let slept = Locked<[TimeInterval]>([])

    init(_ base: MovableClock) { self.base = base }

    func now() -> Date { base.now() }
    func sleep(seconds: TimeInterval) async throws {
        slept.withLock { $0.append(seconds) }
        try await base.sleep(seconds: seconds)
    }
    var sleeps: [TimeInterval] { slept.current }
}

/// Every polling outcome of RFC 8628 §3.5, against a simulated provider, and against a scripted endpoint and a
/// virtual clock for the answers it would never give or gives only on a poll the test cannot time.
@Suite struct DeviceFlowTests {
    let start = Date(timeIntervalSince1970: 1_900_000_000)

    /// A provider simulated on a clock stopped at `start`, with `settings`.
    private func simulated(_ settings: SimulatedProvider.Settings = .init()) throws -> SimulatedProvider {
        try SimulatedProvider(clock: MovableClock(startingAt: start), settings: settings)
    }

    /// The public app's client at `simulated`, on its clock (or `clock`).
    private func client(at simulated: SimulatedProvider, clock: (any DateClock)? = nil) throws -> OAuthClient {
        var environment = simulated.environment
        if let clock { environment.clock = clock }
        return try Simulated.appClient(simulated, environment: environment)
    }

    private func provider(_ extra: String = "", grant: Bool = true) throws -> Provider {
        let grants = grant ? "grant_types: [authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code]\n" : ""
        return try TestDescriptor(extra: grants + extra).with(endpoints: [("device_authorization", "https://auth.example.com/device")]).provider()
    }

    static let started = #"{"device_code":"dc-1","user_code":"WDJBMJHT","verification_uri":"https://auth.example.com/activate","expires_in":600,"interval":5}"#

    /// A client whose device endpoint answers `authorization` and whose token endpoint answers `polls` in turn (the last repeats).
    private func client(_ time: VirtualTime, authorization: String = started, polls: [(Int, String)], extra: String = "",
                        grant: Bool = true) throws -> (OAuthClient, ScriptedTransport) {
        let transport = ScriptedTransport { request, n in
            if request.url.path == "/device" {
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(authorization.utf8))
            }
            let (status, body) = polls[min(n, polls.count) - 1]
            return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let client = OAuthClient(provider: try provider(extra, grant: grant), configuration: ClientConfiguration(
            clientID: "tv", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport, clock: time))
        return (client, transport)
    }

    static let pending = (400, #"{"error":"authorization_pending"}"#)
    static let slowDown = (400, #"{"error":"slow_down"}"#)
    static let granted = (200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#)

    @Test func approvedAfterPendingPolls() async throws {
        // User codes go out as eight letters, which the engine shows in two groups.
        var settings = SimulatedProvider.Settings()
        settings.hyphenatesUserCodes = false
        let simulated = try simulated(settings)
        // The user approves on the third poll: the first two are answered authorization_pending.
        await simulated.approveDevices(afterPolls: 3, subject: "tv-user")
        let time = RecordedWaits(simulated.clock)
        let client = try client(at: simulated, clock: time)
        let authorization = try await client.startDeviceAuthorization()
        let userCode = try #require(await simulated.pendingUserCodes.first)
        #expect(authorization.userCode == userCode && userCode.count == 8 && !userCode.contains("-"))
        #expect(authorization.displayUserCode == "\(userCode.prefix(4))-\(userCode.suffix(4))")
        #expect(authorization.verificationURI == simulated.issuer.appendingPathComponent("device"))
        #expect(authorization.expiresAt == start.addingTimeInterval(600))
        let tokens = try await client.pollDeviceAuthorization(authorization)
        // The tokens are the ones the provider granted the approving user.
        #expect(try await Simulated.introspect(tokens.accessToken, at: simulated)["sub"] == .string("tv-user"))
        #expect(try await Simulated.introspect(try #require(tokens.refreshToken), at: simulated)["sub"] == .string("tv-user"))
        #expect(await simulated.requestCount(.token) == 3)
        #expect(time.sleeps == [5, 5, 5])
    }

    @Test func slowDownAddsFiveSecondsEachTime() async throws {
        let time = VirtualTime(start)
        let (client, _) = try client(time, polls: [Self.slowDown, Self.slowDown, Self.pending, Self.granted])
        let authorization = try await client.startDeviceAuthorization()
        _ = try await client.pollDeviceAuthorization(authorization)
        #expect(time.sleeps == [5, 10, 15, 15])
    }

    @Test(arguments: ["access_denied", "expired_token"])
    func theServersVerdictEndsThePolling(_ code: String) async throws {
        let time = VirtualTime(start)
        let (client, transport) = try client(time, polls: [Self.pending, (400, #"{"error":"\#(code)"}"#)])
        let authorization = try await client.startDeviceAuthorization()
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.pollDeviceAuthorization(authorization) }
        #expect(error.error == code)
        #expect(transport.count("/token") == 2)
    }

    @Test func theClientStopsOnItsOwnClockWhenTheServerKeepsSayingPending() async throws {
        // The user never answers: the provider says authorization_pending to every poll.
        let simulated = try simulated()
        let client = try client(at: simulated)
        let authorization = try await client.startDeviceAuthorization()
        let error = try await #require(throws: FlowError.self) { try await client.pollDeviceAuthorization(authorization) }
        #expect(error.code == .deviceCodeExpired)
        #expect(await simulated.requestCount(.token) == 119)   // 600 s at 5 s: the last wait ends at expiry, and nothing is sent then
        #expect(simulated.clock.now() == start.addingTimeInterval(600))
    }

    @Test func cancellingStopsPollingAtOnce() async throws {
        let simulated = try simulated()
        let client = try client(at: simulated)
        let authorization = try await client.startDeviceAuthorization()
        let task = Task { try await client.pollDeviceAuthorization(authorization) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await simulated.requestCount(.token) == 0)
    }

    @Test func aliasesForTheVerificationURIComeFromTheDescriptor() async throws {
        let google = #"{"device_code":"dc","user_code":"ABCD-EFGH","verification_url":"https://www.google.com/device","expires_in":1800,"interval":5}"#
        let time = VirtualTime(start)
        let (plain, _) = try client(time, authorization: google, polls: [Self.granted])
        let error = try await #require(throws: FlowError.self) { try await plain.startDeviceAuthorization() }
        #expect(error.message.contains("device.verification_uri_aliases"))
        let (aliased, _) = try client(time, authorization: google, polls: [Self.granted], extra: "device:\n  verification_uri_aliases: [verification_url]\n")
        let authorization = try await aliased.startDeviceAuthorization()
        #expect(authorization.verificationURI.absoluteString == "https://www.google.com/device")
        #expect(authorization.displayUserCode == "ABCD-EFGH")
    }

    @Test func theDescriptorsIntervalStandsInForAMissingOne() async throws {
        let time = VirtualTime(start)
        let answer = #"{"device_code":"dc","user_code":"BCDFGH","verification_uri":"https://a.example/d","expires_in":60}"#
        let (client, _) = try client(time, authorization: answer, polls: [Self.granted], extra: "device:\n  interval: 2\n")
        let authorization = try await client.startDeviceAuthorization()
        #expect(authorization.interval == 2)
    }

    @Test(arguments: [
        #"{"user_code":"X","verification_uri":"https://a.example/d","expires_in":60}"#,
        #"{"device_code":"d","user_code":"\u001b[2J","verification_uri":"https://a.example/d","expires_in":60}"#,
        #"{"device_code":"d","user_code":"ABCD","verification_uri":"javascript:alert(1)","expires_in":60}"#,
        #"{"device_code":"d","user_code":"ABCD","verification_uri":"https://a.example/d","expires_in":-1}"#,
        #"{"device_code":"d","user_code":"ABCD","verification_uri":"httpx://a.example/d","expires_in":60}"#,
        #"{"device_code":"d","user_code":"ABCD","verification_uri":"http://a.example/d","expires_in":60}"#,
        #"{"device_code":"d","user_code":"ABCD","verification_uri":"https:///d","expires_in":60}"#,
    ])
    func unusableAnswersAreRefused(_ answer: String) async throws {
        let (client, _) = try client(VirtualTime(start), authorization: answer, polls: [Self.granted])
        let error = try await #require(throws: FlowError.self) { try await client.startDeviceAuthorization() }
        #expect(error.code == .invalidTokenResponse)
    }

    @Test func httpIsAcceptedOnlyOnLoopbackAndAnUnsafeCompleteURIIsDropped() async throws {
        let answer = #"{"device_code":"d","user_code":"ABCD","verification_uri":"http://127.0.0.1:8000/d","verification_uri_complete":"httpx://evil.example/d?c=ABCD","expires_in":60}"#
        let (client, _) = try client(VirtualTime(start), authorization: answer, polls: [Self.granted])
        let authorization = try await client.startDeviceAuthorization()
        #expect(authorization.verificationURI.absoluteString == "http://127.0.0.1:8000/d")
        #expect(authorization.verificationURIComplete == nil)
    }

    /// Hostile intervals: never faster than once a second, a string only when it is a whole number of seconds.
    @Test(arguments: [
        (#"0.001"#, 1.0), (#""0.001""#, 5.0), (#""NaN""#, 5.0), (#""5s""#, 5.0), (#"-3"#, 5.0), (#"0"#, 5.0),
        (#"1e308"#, 300.0), (#""2""#, 2.0), (#"true"#, 5.0), (#"7"#, 7.0),
    ])
    func pollingIntervalsAreFlooredAndTyped(_ interval: String, _ expected: Double) async throws {
        let answer = #"{"device_code":"d","user_code":"ABCD","verification_uri":"https://a.example/d","expires_in":60,"interval":\#(interval)}"#
        let (client, _) = try client(VirtualTime(start), authorization: answer, polls: [Self.granted])
        #expect(try await client.startDeviceAuthorization().interval == expected)
    }

    @Test func aSlowDownStormPollsNoFasterAndNoLaterThanTheCap() async throws {
        let time = VirtualTime(start)
        let answer = #"{"device_code":"d","user_code":"ABCD","verification_uri":"https://a.example/d","expires_in":86400,"interval":0.001}"#
        let (client, transport) = try client(time, authorization: answer, polls: [Self.slowDown])
        let authorization = try await client.startDeviceAuthorization()
        await #expect(throws: FlowError.self) { _ = try await client.pollDeviceAuthorization(authorization) }
        #expect(time.sleeps.first == 1, "the first poll waits the 1 s floor, not 1 ms")
        #expect(time.sleeps.allSatisfy { $0 >= 1 && $0 <= 300 })
        // A day of slow_down at most every 5 minutes, not a poll per millisecond.
        #expect(transport.count("/token") < 400, "\(transport.count("/token")) polls")
    }

    @Test func aBadAnswerIsBlamedOnTheDeviceEndpoint() async throws {
        let (client, _) = try client(VirtualTime(start), authorization: "<html>maintenance</html>", polls: [Self.granted])
        let error = try await #require(throws: FlowError.self) { try await client.startDeviceAuthorization() }
        #expect(error.message.contains("the device authorization endpoint answered HTTP 200"), "\(error.message)")
        #expect(!error.message.contains("token endpoint"))
    }

    @Test func anInvalidClientOnAJSONBodyProviderHintsAtTheEncoding() async throws {
        let refusal = #"{"error":"invalid_client","error_description":"client authentication failed"}"#
        let transport = ScriptedTransport { _, _ in
            TransportResponse(status: 401, headers: ["Content-Type": "application/json"], body: Data(refusal.utf8))
        }
        let text = descriptorText(id: "example", extra: """
              device_authorization: https://auth.example.com/device
            grant_types: [authorization_code, urn:ietf:params:oauth:grant-type:device_code]
            token_request:
              body_encoding: json
            """)
        let provider = try #require(DescriptorDocument.parse(Data(text.utf8), path: "example.yaml").descriptor).resolve()
        let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
            clientID: "tv", redirectURI: URL(string: "http://127.0.0.1/callback")!), environment: OAuthEnvironment(transport: transport))
        let error = try await #require(throws: AuthorizationServerError.self) { try await client.startDeviceAuthorization() }
        #expect(error.error == "invalid_client")
        #expect("\(error)".contains("body_encoding: form"), "\(error)")
    }

    @Test func theExpiryMessageGivesNoAdviceOfItsOwn() async throws {
        // A device code that lives 30 s, which the user lets expire.
        var settings = SimulatedProvider.Settings()
        settings.deviceCodeLifetime = 30
        let simulated = try simulated(settings)
        let client = try client(at: simulated)
        let authorization = try await client.startDeviceAuthorization()
        let error = try await #require(throws: FlowError.self) { try await client.pollDeviceAuthorization(authorization) }
        #expect(error.code == .deviceCodeExpired)
        #expect(!error.message.contains("start again"), "the caller says how to start again: \(error.message)")
    }

    @Test func aProviderWithoutTheGrantIsRefusedBeforeSending() async throws {
        let (client, transport) = try client(VirtualTime(start), polls: [Self.granted], grant: false)
        let error = try await #require(throws: FlowError.self) { try await client.startDeviceAuthorization() }
        #expect(error.code == .grantNotSupported)
        #expect(transport.count("/device") == 0)
    }
}
