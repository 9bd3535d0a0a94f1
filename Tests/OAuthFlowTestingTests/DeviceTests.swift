import Foundation
import OAuthFlow
import OAuthFlowTesting
import Testing

/// The device authorization grant (RFC 8628) through `DeviceSignIn` and `OAuthClient`.
@Suite struct DeviceTests {
    @Test func theSignInPollsUntilTheUserApproves() async throws {
        let simulated = try SimulatedProvider()
        await simulated.approveDevices(afterPolls: 3, subject: "tv-user")
        let events = Locked<[String]>([])
        let result = try await DeviceSignIn(store: InMemoryTokenStore(), environment: simulated.environment).signIn(
            to: try simulated.provider(), settings: ClientSettings(clientID: SimulatedProvider.appClientID)
        ) { event in
            switch event {
            case .showCode(let authorization): events.withLock { $0.append("code \(authorization.userCode.count)") }
            case .pending: events.withLock { $0.append("pending") }
            case .slowDown: events.withLock { $0.append("slow down") }
            }
        }
        #expect(result.idToken?.subject == "tv-user")
        #expect(events.current == ["code 9", "pending", "pending"])
        #expect(await simulated.requestCount(.token) == 3)
    }

    /// A provider that sends user codes without the hyphen takes them typed either way.
    @Test func userCodesMayGoOutWithoutTheHyphen() async throws {
        var settings = SimulatedProvider.Settings()
        settings.hyphenatesUserCodes = false
        let simulated = try SimulatedProvider(settings: settings)
        let client = try Simulation.appClient(simulated)
        let authorization = try await client.startDeviceAuthorization()
        #expect(authorization.userCode.count == 8 && authorization.userCode.allSatisfy(\.isLetter))
        #expect(await simulated.pendingUserCodes == [authorization.userCode])
        try await simulated.approveDevice(userCode: authorization.displayUserCode.lowercased())
        #expect(try await client.pollDeviceAuthorization(authorization).refreshToken != nil)
    }

    @Test func slowDownWidensTheInterval() async throws {
        let simulated = try SimulatedProvider()
        await simulated.approveDevices(afterPolls: 2)
        await simulated.failNext(.token, error: "slow_down")
        let events = Locked<[String]>([])
        let start = simulated.clock.now()
        _ = try await DeviceSignIn(store: InMemoryTokenStore(), environment: simulated.environment).signIn(
            to: try simulated.provider(), settings: ClientSettings(clientID: SimulatedProvider.appClientID)
        ) { event in
            if case .slowDown(let interval) = event { events.withLock { $0.append("slow down \(Int(interval))") } }
        }
        #expect(events.current == ["slow down 10"])
        #expect(simulated.clock.now().timeIntervalSince(start) >= 15, "5 s, then 10 s")
    }

    /// The device authorization and the answers to polls the test times itself.
    @Test func pollingTooSoonIsSlowDownAndADeniedOrExpiredCodeEnds() async throws {
        let simulated = try SimulatedProvider()
        let client = OAuthClient(
            provider: try simulated.provider(), configuration: .service(clientID: SimulatedProvider.appClientID), environment: simulated.environment)
        let authorization = try await client.startDeviceAuthorization()
        func poll() async throws -> String? {
            Simulation.error(
                try await Simulation.post(
                    simulated, "token",
                    [
                        ("grant_type", GrantType.deviceCode.rawValue), ("device_code", authorization.deviceCode.value),
                        ("client_id", SimulatedProvider.appClientID),
                    ]))
        }
        #expect(try await poll() == "authorization_pending")
        #expect(try await poll() == "slow_down")
        simulated.clock.advance(10)
        #expect(try await poll() == "authorization_pending")
        #expect(await simulated.pendingUserCodes == [authorization.userCode])
        try await simulated.denyDevice(userCode: authorization.userCode)
        simulated.clock.advance(10)
        #expect(try await poll() == "access_denied")
        simulated.clock.advance(600)
        #expect(try await poll() == "expired_token")
    }
}
