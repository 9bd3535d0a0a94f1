import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing
@testable import OAuthFlowLoopback

/// Every time a loopback sign-in records comes from the injected clock: the stored session's `updatedAt` too, which
/// was the one timestamp taken from the wall clock.
@Suite struct LoopbackSignInClockTests {
    @Test func theStoredSessionIsTimedByTheInjectedClock() async throws {
        let then = Date(timeIntervalSince1970: 2_000_000_000)
        let transport = ScriptedTransport { _, _ in tokenResponse("fresh", refresh: "refresh-2") }
        let store = InMemoryTokenStore()
        let signIn = LoopbackSignIn(store: store, browser: ApprovingBrowser(), environment: OAuthEnvironment(transport: transport, clock: FixedClock(date: then)))
        let result = try await signIn.signIn(to: try TestDescriptor().provider(), settings: ClientSettings(clientID: "client"))
        #expect(result.session.updatedAt == then)
        #expect(await store.load(result.session.key)?.updatedAt == then)
        #expect(result.session.tokens.issuedAt == then)
    }
}
