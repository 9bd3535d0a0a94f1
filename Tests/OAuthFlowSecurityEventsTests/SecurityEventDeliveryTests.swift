import Foundation
import OAuthFlow
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// How deliveries of one event are told apart (RFC 8417 §2.2, RFC 8935 §2.2, RFC 8936 §2.4): a `jti` received before is
/// recognised before anything acts, at any time up to `max_age`; only an event being handled right now is sent back (503);
/// a failed attempt leaves the event to the next delivery. And how the transmitter's keys are read: a key published
/// after the last read is never a refusal while it could not be looked up, and a failing key endpoint is asked a
/// bounded number of times.
@Suite struct SecurityEventDeliveryTests {
    typealias World = SecurityEventReceiverTests.World
    static let caep = SecurityEventReceiverTests.caep

    // MARK: - Duplicates

    /// The usual retry after a lost answer: the same SET again within seconds, to another instance sharing the registry,
    /// is a duplicate (202, not 503), reaches no handler, and changes nothing, not even the session the user signed in
    /// with in between. On a poll stream it is acknowledged again, not left for redelivery.
    @Test func theSameEventAgainWithinAMinuteIsADuplicateNotRefused() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let replays = InMemoryReplayRegistry(clock: world.simulated.clock)
        try await world.signIn("user-ada", as: "phone")
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let first = try await world.receiver(on: 0, replays: replays).receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(first.status == 202 && first.outcome?.ended.map(\.account) == ["phone"])

        world.simulated.clock.advance(5)
        try await world.signIn("user-ada", as: "phone", on: 1)
        let again = await (try world.receiver(on: 1, replays: replays)).receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(again.status == 202 && again.isDuplicate && again.error == nil && again.body.isEmpty)
        #expect(try await world.stored("phone") != nil)
        #expect(world.handled.current.count == 1)

        // Polled: delivered again after the first poll's acknowledgement was lost.
        let receiver = try world.receiver(on: 0, replays: replays)
        let stream = try await receiver.createStream(delivery: .poll)
        let event = try await world.simulated.securityEventToken(Self.caep + "credential-change", subject: world.user("user-bob"))
        let polled = try await world.simulated.transmit(event, on: stream.id)
        #expect(try await receiver.poll(stream).accepted.count == 1)
        let redelivered = try await world.simulated.transmit(event, on: stream.id)
        #expect(redelivered == polled)
        let second = try await receiver.poll(stream)
        #expect(second.accepted.isEmpty && second.deferred == 0 && second.refused.isEmpty)
        #expect(await world.simulated.acknowledgements(on: stream.id).acknowledged == [polled, polled])
        #expect(world.handled.current.count == 2)
    }

    /// After the minute a claim lasts, and up to `max_age`, a replay still acts never: a user who signed in again after a
    /// `credential-change` through the provider's single sign-on (an ID token whose `auth_time` predates the event) is
    /// not marked again, and the handler does not hear of it.
    @Test func aReplayAfterTheClaimWindowActsNever() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let replays = InMemoryReplayRegistry(clock: world.simulated.clock)
        try await world.signIn("user-ada", as: "phone")
        let signedIn = try #require(try await world.stored("phone")?.providerSession?.signedInAt)
        world.simulated.clock.advance(10)
        let token = try await world.simulated.securityEventToken(Self.caep + "credential-change", subject: world.user("user-ada"))
        let receiver = try world.receiver(replays: replays)
        #expect(await receiver.receive(body: Data(token.utf8), contentType: World.pushed).outcome?.marked.map(\.account) == ["phone"])

        // Single sign-on: a new session, its `auth_time` the provider's earlier sign-in.
        world.simulated.clock.advance(20)
        try await world.signIn("user-ada", as: "phone")
        var renewed = try #require(try await world.stored("phone"))
        #expect(renewed.reauthenticationRequired == nil)
        renewed.providerSession?.signedInAt = signedIn
        try await world.instances[0].store.save(renewed)

        for wait in [61.0, 3_600, 80_000] {
            world.simulated.clock.advance(wait)
            let replay = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
            #expect(replay.status == 202 && replay.isDuplicate && replay.outcome == nil, "after \(wait) s more")
            #expect(try await world.stored("phone")?.reauthenticationRequired == nil, "after \(wait) s more")
        }
        #expect(world.handled.current.count == 1)
    }

    /// A failed attempt (the host's resolver throws, the store cannot be reached) answers 503 and releases its claim:
    /// the transmitter's next delivery, seconds later, acts.
    @Test func aFailedAttemptLeavesTheEventToTheNextDelivery() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let failures = Locked(1)
        let receiver = try world.instances[0].securityEventReceiver(
            for: "simulated",
            resolveSubject: { _ in
                if failures.withLock({ count -> Bool in
                    count -= 1
                    return count >= 0
                }) {
                    throw DatabaseDown()
                }
                return "user-ada"
            })
        let token = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("email"), "email": .string("ada@example.com")])
        let failed = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(failed.status == 503 && failed.error == "temporarily_unavailable" && !failed.body.contains("database"))
        #expect(try await world.stored("phone") != nil)

        world.simulated.clock.advance(2)
        let next = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(next.status == 202 && next.outcome?.ended.map(\.account) == ["phone"] && !next.isDuplicate)
    }

    /// Only an event being handled right now, by this or another instance, is sent back to be delivered again (503);
    /// once it is handled, its next delivery is a duplicate.
    @Test func onlyAnEventBeingHandledNowIsSentBack() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let replays = InMemoryReplayRegistry(clock: world.simulated.clock)
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let first = try world.instances[0].securityEventReceiver(
            for: "simulated", replays: replays,
            resolveSubject: { _ in
                enter.yield()
                for await _ in gate { break }
                return "user-ada"
            })
        let second = try world.receiver(on: 1, replays: replays)
        let token = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("email"), "email": .string("ada@example.com")])

        let handling = Task { await first.receive(body: Data(token.utf8), contentType: World.pushed) }
        for await _ in entered { break }
        let meanwhile = await second.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(meanwhile.status == 503 && meanwhile.error == "temporarily_unavailable" && meanwhile.outcome == nil)
        open.yield()
        let handled = await handling.value
        #expect(handled.status == 202 && handled.outcome?.ended.map(\.account) == ["phone"])
        let after = await second.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(after.status == 202 && after.isDuplicate)
    }

    // MARK: - Keys

    /// A junk POST naming a key nobody published spends the refetch the receiver allows itself every 30 seconds; a
    /// genuine event signed right after with a key the transmitter has just published is then sent back to be
    /// delivered again (503), never refused `invalid_key`, and its next delivery after the window is taken.
    @Test func anEventUnderANewKeyIsNotLostToAJunkPost() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        try await world.signIn("user-bob", as: "bob")
        let simulated = world.simulated
        let receiver = try world.receiver()
        let signingIn = await simulated.requestCount(.jwks) // the ID tokens' checks
        let earlier = try await simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-bob"))
        #expect(await receiver.receive(body: Data(earlier.utf8), contentType: World.pushed).status == 202)

        let stranger = try SimulatedProvider(issuer: simulated.issuer)
        try await stranger.rotateKeys()
        let junk = try await stranger.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let refused = await receiver.receive(body: Data(junk.utf8), contentType: World.pushed)
        #expect(refused.status == 400 && refused.error == "invalid_key", "its key was looked up just now")

        simulated.clock.advance(1)
        try await simulated.rotateKeys()
        let genuine = try await simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let soon = await receiver.receive(body: Data(genuine.utf8), contentType: World.pushed)
        #expect(soon.status == 503 && soon.error == "temporarily_unavailable", "\(soon.body)")
        #expect(try await world.stored("phone") != nil)

        simulated.clock.advance(30)
        let later = await receiver.receive(body: Data(genuine.utf8), contentType: World.pushed)
        #expect(later.status == 202 && later.outcome?.ended.map(\.account) == ["phone"], "\(later.body)")
        #expect(await simulated.requestCount(.jwks) - signingIn == 3)
    }

    /// Once the cached keys are older than fifteen minutes and the key endpoint fails, POSTs (genuine ones, and junk
    /// naming unknown keys) do not each fetch the keys again: the genuine events verify with the keys held, and the
    /// endpoint is asked once more every 30 seconds at most.
    @Test func aFailingKeyEndpointIsNotAskedOncePerPost() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let simulated = world.simulated
        let receiver = try world.receiver()
        let first = try await simulated.securityEventToken(Self.caep + "credential-change", subject: world.user("user-ada"))
        #expect(await receiver.receive(body: Data(first.utf8), contentType: World.pushed).status == 202)
        #expect(await simulated.requestCount(.jwks) == 1)

        simulated.clock.advance(16 * 60)
        for _ in 0..<40 { await simulated.failNext(.jwks, status: 503) }
        let stranger = try SimulatedProvider(issuer: simulated.issuer)
        for round in 0..<10 {
            let genuine = try await simulated.securityEventToken(Self.caep + "credential-change", subject: world.user("user-\(round)"))
            #expect(await receiver.receive(body: Data(genuine.utf8), contentType: World.pushed).status == 202)
            try await stranger.rotateKeys()
            let junk = try await stranger.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
            #expect(await receiver.receive(body: Data(junk.utf8), contentType: World.pushed).status == 503)
            simulated.clock.advance(1)
        }
        // The stale set's one retry, and one lookup of an unknown key.
        #expect(await simulated.requestCount(.jwks) == 3)
        simulated.clock.advance(30)
        let genuine = try await simulated.securityEventToken(Self.caep + "credential-change", subject: world.user("user-z"))
        #expect(await receiver.receive(body: Data(genuine.utf8), contentType: World.pushed).status == 202)
        #expect(await simulated.requestCount(.jwks) == 4)
    }

    struct DatabaseDown: Error {}
}
