import Foundation
import OAuthFlow
import OAuthFlowPostgres
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// Security events through PostgreSQL (issue 64): two instances share the sessions and the replay registry; an event
/// received by one ends or marks the user's sessions on both, and its replay, received by the other, ends nothing.
@Suite(.enabled(if: TestPostgres.shouldRun, TestPostgres.skipReason))
struct PostgresSecurityEventTests {
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"

    static func transmitting() -> SimulatedProvider.DescriptorOptions {
        var options = SimulatedProvider.DescriptorOptions()
        options.extra = "security_events:\n  format: ssf\n"
        return options
    }

    @Test func aRevokedSessionIsGoneOnEveryInstanceAndItsReplayEndsNothing() async throws {
        let shared = try await SharedPostgresInstances(Self.transmitting())
        defer { shared.stop() }
        let (simulated, instances) = (shared.simulated, shared.instances)
        let table = "replays_" + TestPostgres.freshTable().suffix(16)
        let replays = try shared.stores.map { try PostgresReplayRegistry(store: $0, table: table) }
        try await replays[0].migrate()
        let receivers = try instances.indices.map { try instances[$0].securityEventReceiver(for: "simulated", replays: replays[$0]) }
        let phone = try await shared.signIn("user-ada", as: "phone", on: 0)
        let laptop = try await shared.signIn("user-ada", as: "laptop", on: 1)
        try await shared.signIn("user-bob", as: "bob", on: 1)
        // The second instance holds the laptop's manager in memory.
        _ = try await instances[1].accessToken(for: "simulated", account: "laptop")

        let user: [String: JSONValue] = ["format": .string("iss_sub"), "iss": .string(simulated.issuer.absoluteString), "sub": .string("user-ada")]
        let token = try await simulated.securityEventToken(Self.caep + "session-revoked", subject: user)
        let answer = await receivers[0].receive(body: Data(token.utf8), contentType: "application/secevent+jwt")
        #expect(answer.status == 202)
        #expect(
            Set(answer.outcome?.ended ?? []) == [
                SessionKey(providerID: "simulated", account: "phone"), SessionKey(providerID: "simulated", account: "laptop"),
            ])
        for tokens in [phone, laptop] { #expect(try await !Simulated.isActive(tokens.refreshToken, at: simulated)) }
        simulated.clock.advance(TokenManager.storeRereadInterval + 1)
        let gone = try await #require(throws: SessionError.self) { try await instances[1].accessToken(for: "simulated", account: "laptop") }
        #expect(gone.code == .notSignedIn)

        // The user signs in again; the replay, delivered to the other instance seconds later, is acknowledged as a
        // duplicate (RFC 8935 §2.2), and ends nothing.
        try await shared.signIn("user-ada", as: "laptop", on: 1)
        let replayed = await receivers[1].receive(body: Data(token.utf8), contentType: "application/secevent+jwt")
        #expect(replayed.status == 202 && replayed.isDuplicate && replayed.outcome == nil)
        #expect(!(try await instances[1].accessToken(for: "simulated", account: "laptop")).value.isEmpty)
        #expect(!(try await instances[0].accessToken(for: "simulated", account: "bob")).value.isEmpty, "another user's session stays")
    }

    @Test func aCredentialChangeMarksTheSessionsOnEveryInstance() async throws {
        let shared = try await SharedPostgresInstances(Self.transmitting())
        defer { shared.stop() }
        let (simulated, instances) = (shared.simulated, shared.instances)
        try await shared.signIn("user-ada", as: "laptop", on: 1)
        _ = try await instances[1].accessToken(for: "simulated", account: "laptop")   // its manager, in memory
        simulated.clock.advance(1)
        let user: [String: JSONValue] = ["format": .string("iss_sub"), "iss": .string(simulated.issuer.absoluteString), "sub": .string("user-ada")]
        let token = try await simulated.securityEventToken(Self.caep + "credential-change", subject: user)
        let answer = await (try instances[0].securityEventReceiver(for: "simulated")).receive(
            body: Data(token.utf8), contentType: "application/secevent+jwt")
        #expect(answer.outcome?.marked == [SessionKey(providerID: "simulated", account: "laptop")])
        simulated.clock.advance(TokenManager.storeRereadInterval + 1)
        let refused = try await #require(throws: SessionError.self) { try await instances[1].accessToken(for: "simulated", account: "laptop") }
        #expect(refused.code == .reauthenticationRequired)
    }
}
