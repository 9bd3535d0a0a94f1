import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

extension Protection {
    /// `ProtectedResource.keepKeysFresh()`: the JWKS is fetched before the first request and again before it
    /// ages out, failures keep the cached set, and cancellation ends it.
    @Suite struct KeyRefreshTests {
        let server = InProcessAuthorizationServer()

        /// A clock whose sleeps move it forward at once and are recorded; the `limit`-th sleep is cancelled.
        final class SteppingClock: DateClock, @unchecked Sendable {
            private let lock = NSLock()
            private var date = Date(timeIntervalSince1970: 1_900_000_000)
            private var recorded: [TimeInterval] = []
            let limit: Int
            /// Runs before each sleep returns: what the test does while the refresher waits.
            let during: @Sendable (Int) -> Void

            init(limit: Int, during: @escaping @Sendable (Int) -> Void = { _ in }) {
                self.limit = limit
                self.during = during
            }

            func now() -> Date { lock.withLock { date } }
            var sleeps: [TimeInterval] { lock.withLock { recorded } }

            func sleep(seconds: TimeInterval) async throws {
                let count = lock.withLock {
                    recorded.append(seconds)
                    date = date.addingTimeInterval(seconds)
                    return recorded.count
                }
                guard count < limit else { throw CancellationError() }
                during(count)
            }
        }

        func api(_ clock: SteppingClock, accessTokens: [String: String] = ["profile": "rfc9068"]) throws -> ProtectedResource {
            try ProtectedResource(
                providers: [ProtectionSetup.provider(accessTokens: accessTokens)],
                settings: ProtectionSetup.settings(keysRefetchInterval: 30, keysMaximumAge: 900),
                environment: OAuthEnvironment(transport: server, clock: clock))
        }

        @Test func theKeysAreFetchedAtOnceAndAgainAtEightyPercentOfTheirMaximumAge() async throws {
            let key = try await ProtectionKey.es256("es-1")
            server.serveKeys([key])
            let clock = SteppingClock(limit: 3)
            let api = try api(clock)
            await api.keepKeysFresh()
            // A fetch before the first sleep, one after each of the two sleeps that returned; the third was cancelled.
            #expect(server.jwksFetches == 3)
            #expect(clock.sleeps == [720, 720, 720])
        }

        @Test func aRequestAfterTheRefresherStartedFindsTheKeysWithoutAFetch() async throws {
            let key = try await ProtectionKey.es256("es-1")
            server.serveKeys([key])
            let clock = SteppingClock(limit: 1)
            let api = try api(clock)
            await api.keepKeysFresh()
            #expect(server.jwksFetches == 1)
            let token = try key.sign(ProtectionToken.claims(now: clock.now()))
            _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
            #expect(server.jwksFetches == 1, "the request used the keys the refresher fetched")
        }

        @Test func aKeyTheProviderAddedIsAcceptedAfterTheNextRefreshWithoutARequestCausingAFetch() async throws {
            let old = try await ProtectionKey.es256("old")
            let new = try await ProtectionKey.es256("new")
            server.serveKeys([old])
            let server = server
            let clock = SteppingClock(limit: 2) { _ in server.serveKeys([old, new]) }
            let api = try api(clock)
            await api.keepKeysFresh()
            #expect(server.jwksFetches == 2)
            let token = try new.sign(ProtectionToken.claims(now: clock.now()))
            _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
            #expect(server.jwksFetches == 2)
        }

        @Test func aFailedFetchIsTriedAgainAfterTheRefetchIntervalAndTheCachedSetStays() async throws {
            let key = try await ProtectionKey.es256("es-1")
            server.serveKeys([key])
            let server = server
            // After the first fetch the JWKS answers 404: the refresher tries again every 30 s.
            let clock = SteppingClock(limit: 3) { _ in server.stopServing(ProtectionToken.issuer + "/jwks") }
            let api = try api(clock)
            await api.keepKeysFresh()
            #expect(clock.sleeps == [720, 30, 30])
            #expect(server.jwksFetches == 3)
            let token = try key.sign(ProtectionToken.claims(now: clock.now()))
            _ = try await api.authenticate(ProtectedResource.Request(authorization: "Bearer \(token)"))
        }

        @Test func anIntrospectingOnlyAPIHasNoKeysToKeepAndReturnsAtOnce() async throws {
            let clock = SteppingClock(limit: 10)
            let api = try ProtectedResource(
                providers: [
                    ProtectionSetup.provider(
                        introspection: ProtectionToken.issuer + "/introspect", accessTokens: ["format": "opaque"],
                        more: "client_auth:\n  methods: [client_secret_basic]\n")
                ],
                settings: ProtectionSetup.settings(), introspectionClients: ["example": ProtectionSetup.introspectionClient],
                environment: OAuthEnvironment(transport: server, clock: clock))
            await api.keepKeysFresh()
            #expect(clock.sleeps.isEmpty && server.jwksFetches == 0)
        }

        @Test func cancellingTheTaskEndsIt() async throws {
            let key = try await ProtectionKey.es256("es-1")
            server.serveKeys([key])
            let api = try ProtectedResource(
                providers: [ProtectionSetup.provider(accessTokens: ["profile": "rfc9068"])], settings: ProtectionSetup.settings(),
                environment: OAuthEnvironment(transport: server))
            let task = Task { await api.keepKeysFresh() }
            while server.jwksFetches == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
            task.cancel()
            await task.value
            #expect(server.jwksFetches == 1)
        }
    }
}
