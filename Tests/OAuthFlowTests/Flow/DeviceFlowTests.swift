import Foundation
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

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

/// Every polling outcome of RFC 8628 §3.5, against a scripted endpoint and a virtual clock.
@Suite struct DeviceFlowTests {
    let start = Date(timeIntervalSince1970: 1_900_000_000)

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
        let time = VirtualTime(start)
        let (client, transport) = try client(time, polls: [Self.pending, Self.pending, Self.granted])
        let authorization = try await client.startDeviceAuthorization()
        #expect(authorization.userCode == "WDJBMJHT" && authorization.displayUserCode == "WDJB-MJHT")
        #expect(authorization.verificationURI.absoluteString == "https://auth.example.com/activate")
        #expect(authorization.expiresAt == start.addingTimeInterval(600))
        let tokens = try await client.pollDeviceAuthorization(authorization)
        #expect(tokens.accessToken.value == "at" && tokens.refreshToken?.value == "rt")
        #expect(transport.count("/token") == 3)
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
        let time = VirtualTime(start)
        let (client, transport) = try client(time, polls: [Self.pending])
        let authorization = try await client.startDeviceAuthorization()
        let error = try await #require(throws: FlowError.self) { try await client.pollDeviceAuthorization(authorization) }
        #expect(error.code == .deviceCodeExpired)
        #expect(transport.count("/token") == 119)   // 600 s at 5 s: the last wait ends at expiry, and nothing is sent then
        #expect(time.now() == start.addingTimeInterval(600))
    }

    @Test func cancellingStopsPollingAtOnce() async throws {
        let time = VirtualTime(start)
        let (client, transport) = try client(time, polls: [Self.pending])
        let authorization = try await client.startDeviceAuthorization()
        let task = Task { try await client.pollDeviceAuthorization(authorization) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.count("/token") == 0)
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
        let time = VirtualTime(start)
        let answer = #"{"device_code":"d","user_code":"ABCD","verification_uri":"https://a.example/d","expires_in":30,"interval":5}"#
        let (client, _) = try client(time, authorization: answer, polls: [Self.pending])
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
