import Foundation
import OAuthFlowTestSupport
import Testing
import Tracing

import OAuthFlow

/// Refreshes as an operator sees them: performed, joined by the callers that waited, failed by code, and the token
/// endpoint's latency and spans; never a token, the code or the subject in a label or an attribute.
@Suite struct RefreshMetricsTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    @Test func aRefreshIsCountedOnceAndItsWaitersAsJoined() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: now))
        let observed = Observed()
        // A refresh waits at the provider until the test lets it through: every caller arrives while it is out.
        let held = Locked(false)
        let released = Locked(false)
        var environment = observed.environment(simulated.environment)
        environment.transport = ScriptedTransport { request, _ in
            if request.body.map({ String(decoding: $0, as: UTF8.self) })?.contains("grant_type=refresh_token") == true {
                held.withLock { $0 = true }
                while !released.current { try await Task.sleep(nanoseconds: 1_000_000) }
            }
            return try await simulated.transport.send(request)
        }
        let client = try Simulated.appClient(simulated, environment: environment)
        let pending = try await client.startAuthorization()
        let callback = try await simulated.approve(pending.url, subject: "subject-alice-7")
        let code = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
        let outcome = try await client.finishSignIn(.callback(callback), pending: pending)
        let store = InMemoryTokenStore()
        let session = try await SignInResult.store(
            outcome, client: client, redirectURI: Simulated.redirect, in: store, at: simulated.clock.now()
        ).session
        let manager = TokenManager(client: client, store: store, key: session.key)

        simulated.clock.advance(3600)
        let tokens = try await withThrowingTaskGroup(of: Secret.self) { group in
            for _ in 0..<8 { group.addTask { try await manager.validAccessToken() } }
            let deadline = ContinuousClock.now + .seconds(20)
            while !(held.current && observed.count(.refreshes, ["outcome": "joined"]) == 7), ContinuousClock.now < deadline {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            released.withLock { $0 = true }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(await simulated.requestCount(.token) == 2, "the code exchange and one refresh")
        #expect(observed.count(.refreshes, ["provider": "simulated", "outcome": "performed", "code": "none"]) == 1)
        #expect(observed.count(.refreshes, ["outcome": "joined"]) == 7, "the seven callers that waited for it")
        #expect(observed.count(.refreshes, ["outcome": "failed"]) == 0)
        #expect(observed.timings(.requestDuration, ["provider": "simulated", "endpoint": "token", "status": "2xx"]) == 2)
        let spans = observed.spans("POST token")
        #expect(spans.count == 2)
        #expect(spans.allSatisfy { $0.kind == .client })
        #expect(spans.allSatisfy { Observed.text($0.attributes.get("http.request.method")) == "POST" })
        #expect(spans.allSatisfy { Observed.text($0.attributes.get("http.response.status_code")) == "200" })
        #expect(spans.allSatisfy { Observed.text($0.attributes.get("server.address")) == "simulated.example" })
        #expect(spans.allSatisfy { Observed.text($0.attributes.get("url.full")) == "https://simulated.example/token" })

        // The provider revokes the grant: the next refresh fails with `signed_out`.
        await simulated.failNext(.token, error: "invalid_grant")
        simulated.clock.advance(3600)
        await #expect(throws: SessionError.self) { _ = try await manager.validAccessToken() }
        #expect(observed.count(.refreshes, ["provider": "simulated", "outcome": "failed", "code": "signed_out"]) == 1)
        #expect(observed.timings(.requestDuration, ["endpoint": "token", "status": "4xx"]) == 1)
        #expect(Observed.text(observed.spans("POST token").last?.attributes.get("error.type")) == "400")

        let secrets = [
            outcome.tokens.accessToken.value, outcome.tokens.refreshToken?.value, outcome.tokens.idToken?.value, code,
            "subject-alice-7", pending.state.value,
        ] + tokens.map(\.value)
        observed.expectNothingLeaks(secrets.compactMap { $0 })
    }

    @Test func theTraceContextGoesOutWithEveryRequest() async throws {
        let simulated = try SimulatedProvider(clock: MovableClock(startingAt: now))
        let observed = Observed()
        let headers = Locked<[[String: String]]>([])
        var environment = observed.environment(simulated.environment)
        let provider = simulated.transport
        environment.transport = ScriptedTransport { request, _ in
            headers.withLock { $0.append(request.headers) }
            return try await provider.send(request)
        }
        let client = try Simulated.appClient(simulated, environment: environment)
        _ = try await Simulated.signIn(client, at: simulated)
        let sent = headers.current
        #expect(!sent.isEmpty)
        // The in-memory tracer injects its own keys where a W3C tracer writes `traceparent`.
        for request in sent {
            #expect(request["in-memory-trace-id"] != nil && request["in-memory-span-id"] != nil, "\(request.keys.sorted())")
        }
        #expect(observed.tracer.performedContextInjections.count == sent.count)
    }
}
