import Foundation
import OAuthFlowTestSupport
import Testing
import Tracing

import OAuthFlow

/// Sign-ins, service tokens, provider logouts and DPoP nonce retries as an operator sees them, through in-memory
/// metrics and tracing backends; every label and attribute value is scanned for the tokens, secrets, codes and
/// subjects the flow handled.
@Suite struct FlowMetricsTests {
    /// The `code` of a callback URL.
    static func code(of callback: URL) -> String? {
        URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
    }

    @Test func signInsAreCountedByOutcomeAndCode() async throws {
        let simulated = try SimulatedProvider()
        let observed = Observed()
        var options = SimulatedProvider.DescriptorOptions()
        options.usesDiscovery = true
        let client = try Simulated.appClient(simulated, options, environment: observed.environment(simulated.environment))

        // A sign-in: discovery, the code exchange, the JWKS for the ID token.
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url, subject: "subject-bob-42")
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        #expect(observed.count(.signIns, ["provider": "simulated", "outcome": "success", "code": "none"]) == 1)
        for endpoint in ["discovery", "token", "jwks"] {
            #expect(observed.timings(.requestDuration, ["provider": "simulated", "endpoint": endpoint, "status": "2xx"]) == 1, "\(endpoint)")
        }
        #expect(observed.spans("GET discovery").count == 1 && observed.spans("GET jwks").count == 1)

        // The user declines; the same callback again is refused by the client.
        let declined = try await client.startAuthorization()
        await #expect(throws: AuthorizationServerError.self) { try await client.finishSignIn(.callback(try await simulated.deny(declined.url)), pending: declined) }
        await #expect(throws: FlowError.self) { try await client.finishSignIn(.callback(callback), pending: pending) }
        #expect(observed.count(.signIns, ["provider": "simulated", "outcome": "failure", "code": "access_denied"]) == 1)
        #expect(observed.count(.signIns, ["provider": "simulated", "outcome": "failure", "code": "already_completed"]) == 1)

        // A device sign-in, approved on the second poll.
        await simulated.approveDevices(afterPolls: 2, subject: "subject-bob-42")
        let device = try await client.startDeviceAuthorization()
        let deviceTokens = try await client.pollDeviceSignIn(device).tokens
        #expect(observed.count(.signIns, ["provider": "simulated", "outcome": "success"]) == 2)
        #expect(observed.timings(.requestDuration, ["endpoint": "device_authorization", "status": "2xx"]) == 1)
        #expect(observed.timings(.requestDuration, ["endpoint": "token", "status": "4xx"]) == 1, "the authorization_pending poll")

        observed.expectNothingLeaks(
            [
                outcome.tokens.accessToken.value, outcome.tokens.refreshToken?.value, outcome.tokens.idToken?.value, Self.code(of: callback),
                "subject-bob-42", pending.state.value, pending.pkce?.verifier.value, device.deviceCode.value, device.userCode,
                deviceTokens.accessToken.value, deviceTokens.refreshToken?.value,
            ].compactMap { $0 })
    }

    @Test func serviceTokensAreCountedFetchedCachedJoinedAndRenewedEarly() async throws {
        let simulated = try SimulatedProvider()
        let observed = Observed()
        // The token request waits at the provider until four callers wait for it.
        let released = Locked(false)
        var environment = observed.environment(simulated.environment)
        environment.transport = ScriptedTransport { request, _ in
            while !released.current { try await Task.sleep(nanoseconds: 1_000_000) }
            return try await simulated.transport.send(request)
        }
        let tokens = ServiceTokens(client: try Simulated.serviceClient(simulated, environment: environment))
        let request = OAuthClient.ServiceTokenRequest(scopes: ["reports.read"])
        let issued = try await withThrowingTaskGroup(of: Secret.self) { group in
            for _ in 0..<4 { group.addTask { try await tokens.accessToken(request) } }
            let deadline = ContinuousClock.now + .seconds(20)
            while observed.count(.serviceTokens, ["outcome": "joined"]) < 3, ContinuousClock.now < deadline {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            released.withLock { $0 = true }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
        #expect(issued.count == 1)
        _ = try await tokens.accessToken(request)
        #expect(observed.count(.serviceTokens, ["provider": "simulated", "outcome": "fetched"]) == 1)
        #expect(observed.count(.serviceTokens, ["provider": "simulated", "outcome": "joined"]) == 3)
        #expect(observed.count(.serviceTokens, ["provider": "simulated", "outcome": "cached"]) == 1)
        // 30 s before it expires the token is within the skew: the next call renews it early.
        simulated.clock.advance(3600 - 30)
        let renewed = try await tokens.accessToken(request)
        #expect(!issued.contains(renewed))
        #expect(observed.count(.serviceTokens, ["provider": "simulated", "outcome": "renewed_early"]) == 1)
        // A refused request is counted as failed.
        await simulated.failNext(.token, error: "invalid_client")
        await #expect(throws: AuthorizationServerError.self) { _ = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["other"])) }
        #expect(observed.count(.serviceTokens, ["provider": "simulated", "outcome": "failed"]) == 1)
        observed.expectNothingLeaks([SimulatedProvider.serviceSecret, renewed.value] + issued.map(\.value))
    }

    /// The token request a service token cache makes for its callers is a child of the span of the caller that started
    /// it, as every other outbound request is (a newcomer found it a root span of its own).
    @Test func aServiceTokenRequestIsAChildOfTheCallersSpan() async throws {
        let simulated = try SimulatedProvider()
        let observed = Observed()
        let tokens = ServiceTokens(client: try Simulated.serviceClient(simulated, environment: observed.environment(simulated.environment)))
        let caller = observed.tracer.startSpan("caller", context: .topLevel)
        _ = try await InstrumentationContext.$current.withValue(caller.context) {
            try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["reports.read"]))
        }
        caller.end()
        let parent = try #require(observed.spans("caller").first)
        let request = try #require(observed.spans("POST token").first)
        #expect(request.parentSpanID == parent.spanID && request.traceID == parent.traceID, "\(request)")
    }

    @Test func backChannelLogoutsAreCountedByOutcome() async throws {
        let simulated = try SimulatedProvider()
        let observed = Observed()
        let store = InMemoryTokenStore()
        let client = try Simulated.appClient(simulated, environment: observed.environment(simulated.environment))
        let session = try await Simulated.session(client, at: simulated, subject: "subject-carol-9", account: "a", in: store)
        let receiver = ProviderLogoutReceiver(client: client, sessions: store)
        let token = try await simulated.logoutToken(subject: "subject-carol-9", sessionID: try #require(session.providerSession?.sessionID))
        let body = Data("logout_token=\(token)".utf8)
        let first = await receiver.receiveBackChannel(body: body, contentType: "application/x-www-form-urlencoded")
        let replayed = await receiver.receiveBackChannel(body: body, contentType: "application/x-www-form-urlencoded")
        #expect(first.status == 200 && replayed.status == 400)
        #expect(observed.count(.providerLogouts, ["provider": "simulated", "channel": "back", "outcome": "ended"]) == 1)
        #expect(observed.count(.providerLogouts, ["provider": "simulated", "channel": "back", "outcome": "refused"]) == 1)
        #expect(observed.timings(.requestDuration, ["endpoint": "revocation", "status": "2xx"]) == 1, "the ended session's refresh token")
        observed.expectNothingLeaks([token, "subject-carol-9", session.tokens.accessToken.value, session.tokens.refreshToken?.value].compactMap { $0 })
    }

    @Test func dpopNonceRetriesAreCountedByServer() async throws {
        var settings = SimulatedProvider.Settings()
        settings.requiresDPoPNonce = true
        let simulated = try SimulatedProvider(settings: settings)
        let observed = Observed()
        var options = SimulatedProvider.DescriptorOptions()
        options.bindsTokensWithDPoP = true
        var environment = observed.environment(simulated.environment)
        environment.nonces = DPoPNonces()
        let client = try Simulated.appClient(simulated, options, environment: environment)
        let outcome = try await Simulated.signIn(client, at: simulated, subject: "subject-dave-3")
        #expect(observed.count(.dpopNonceRetries, ["provider": "simulated", "server": "authorization"]) == 1, "the code exchange's 400")
        // The tokens sent alone, with nonces of their own: the provider's resource demands one with a 401.
        var alone = environment
        alone.nonces = DPoPNonces()
        let answer = try await outcome.tokens.send(
            TransportRequest(method: .get, url: simulated.issuer.appendingPathComponent("userinfo")), environment: alone)
        #expect(answer.status == 200)
        #expect(observed.count(.dpopNonceRetries, ["provider": "none", "server": "resource"]) == 1, "userinfo's 401")
        observed.expectNothingLeaks([outcome.tokens.accessToken.value, outcome.tokens.refreshToken?.value, "subject-dave-3"].compactMap { $0 })
    }
}

extension FlowMetricsTests {
    /// A refresh answer recorded by a process that died before it committed is counted when the next one recovers it.
    @Test func aRecoveredRefreshAnswerIsCounted() async throws {
        let (directory, store, session) = try await InterruptedRefreshTests.diedOnArrival(
            of: #"{"access_token":"access-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2"}"#)
        defer { directory.cleanUp() }
        let observed = Observed()
        let next = FileTokenStore(directory: store.directory, metrics: observed.metrics)
        #expect(try await next.load(session.key)?.tokens.refreshToken?.value == "refresh-2")
        _ = try await next.load(session.key)
        #expect(observed.count(.refreshes, ["provider": session.key.providerID, "outcome": "recovered", "code": "none"]) == 1, "once")
        observed.expectNothingLeaks(["access-2", "refresh-2", session.tokens.refreshToken?.value].compactMap { $0 })
    }
}
