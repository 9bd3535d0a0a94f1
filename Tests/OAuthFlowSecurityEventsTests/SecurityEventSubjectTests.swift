import Foundation
import OAuthFlow
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// Whom an event is about (SSF 1.0 subjects, RFC 9493): an `opaque` id is the host's to resolve unless the descriptor says
/// it is the provider's `sub`; a complex subject's `session` ends that session alone; an event about nobody the receiver
/// can resolve is acknowledged and says so. And what a host writing a receiver needs: the resolved subject on every
/// outcome, a transmitter of events alone with no client and no endpoints, descriptors from YAML text, one stream however
/// often the host starts, and a poll loop that outlasts a transmitter's failures.
@Suite struct SecurityEventSubjectTests {
    typealias World = SecurityEventReceiverTests.World
    static let caep = SecurityEventReceiverTests.caep
    static let risc = SecurityEventReceiverTests.risc

    /// A receiver of `world`'s first instance with `resolve` as its resolver, recording what it was asked and what the
    /// handler heard.
    static func receiver(
        _ world: World, asked: Locked<[SecurityEvent.Subject]>, outcomes: Locked<[SecurityEventReceiver.Outcome]>,
        resolve: @escaping @Sendable (SecurityEvent.Subject) -> String? = { _ in nil }
    ) throws -> SecurityEventReceiver {
        try world.instances[0].securityEventReceiver(
            for: "simulated",
            resolveSubject: { subject in
                asked.withLock { $0.append(subject) }
                return resolve(subject)
            },
            handler: { outcome in outcomes.withLock { $0.append(outcome) } })
    }

    /// An `opaque` id is the transmitter's own, resolved by the host: one that happens to equal a user's `sub` in another
    /// namespace ends nobody (acknowledged, the handler told it was not resolved); one the host maps ends that user's.
    @Test func anOpaqueSubjectGoesThroughTheHostsResolver() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let (asked, outcomes) = (Locked<[SecurityEvent.Subject]>([]), Locked<[SecurityEventReceiver.Outcome]>([]))
        let receiver = try Self.receiver(world, asked: asked, outcomes: outcomes) { $0 == .opaque("acct-7") ? "user-ada" : nil }
        let namesake = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("opaque"), "id": .string("user-ada")])
        let ignored = await receiver.receive(body: Data(namesake.utf8), contentType: World.pushed)
        #expect(ignored.status == 202 && ignored.outcome?.ended.isEmpty == true && ignored.outcome?.resolution == .unresolved)
        #expect(try await world.stored("phone") != nil)

        let mapped = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("opaque"), "id": .string("acct-7")])
        let ended = await receiver.receive(body: Data(mapped.utf8), contentType: World.pushed)
        #expect(ended.outcome?.ended.map(\.account) == ["phone"] && ended.outcome?.subject == "user-ada")
        #expect(asked.current == [.opaque("user-ada"), .opaque("acct-7")])
        #expect(outcomes.current.map(\.resolution) == [.unresolved, .user("user-ada")])
    }

    /// `security_events.opaque_subjects: sub`: the transmitter's opaque ids are the subjects the provider issues; the
    /// host is not asked.
    @Test func opaqueSubjectsThatAreSubsNeedNoResolver() async throws {
        let world = try World(format: "ssf\n  opaque_subjects: sub")
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let (asked, outcomes) = (Locked<[SecurityEvent.Subject]>([]), Locked<[SecurityEventReceiver.Outcome]>([]))
        let receiver = try Self.receiver(world, asked: asked, outcomes: outcomes)
        let token = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("opaque"), "id": .string("user-ada")])
        let answer = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(answer.outcome?.ended.map(\.account) == ["phone"] && answer.outcome?.subject == "user-ada")
        #expect(asked.current.isEmpty)
    }

    /// A complex subject's `session` ends the stored session that recorded that `sid`, not the user's others; CAEP's
    /// session-only subject does the same, and its user is the one that session records; a session nobody recorded is
    /// acknowledged as unresolved. The subject's other members (`tenant`) reach the handler as sent.
    @Test func aComplexSubjectsSessionEndsThatSessionAlone() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        try await world.signIn("user-ada", as: "laptop")
        let phone = try #require(try await world.stored("phone")?.providerSession?.sessionID)
        let laptop = try #require(try await world.stored("laptop")?.providerSession?.sessionID)
        let (asked, outcomes) = (Locked<[SecurityEvent.Subject]>([]), Locked<[SecurityEventReceiver.Outcome]>([]))
        let receiver = try Self.receiver(world, asked: asked, outcomes: outcomes)
        func session(_ id: String) -> JSONValue { .object(["format": .string("opaque"), "id": .string(id)]) }

        let both = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked",
            subject: [
                "format": .string("complex"), "user": .object(world.user("user-ada")), "session": session(phone),
                "tenant": .object(["format": .string("opaque"), "id": .string("tenant-1")]),
            ])
        let first = await receiver.receive(body: Data(both.utf8), contentType: World.pushed)
        #expect(first.outcome?.ended.map(\.account) == ["phone"] && first.outcome?.event.sessionID == phone)
        #expect(first.outcome?.event.subjectIdentifier["tenant"] == .object(["format": .string("opaque"), "id": .string("tenant-1")]))
        #expect(try await world.stored("laptop") != nil)

        let sessionOnly = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("complex"), "session": session(laptop)])
        let second = await receiver.receive(body: Data(sessionOnly.utf8), contentType: World.pushed)
        #expect(second.outcome?.ended.map(\.account) == ["laptop"] && second.outcome?.resolution == .user("user-ada"))

        let nobody = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("complex"), "session": session("no-such-session")])
        let third = await receiver.receive(body: Data(nobody.utf8), contentType: World.pushed)
        #expect(third.status == 202 && third.outcome?.resolution == .unresolved && third.outcome?.ended.isEmpty == true)
        #expect(outcomes.current.count == 3)
    }

    /// The resolver is asked for every event about a user, whatever the event does (`account-enabled` ends nothing), and
    /// the outcome carries what it answered; an `iss_sub` of the provider needs no asking; an address nobody knows is
    /// acknowledged and reaches the handler as unresolved.
    @Test func theResolverIsAskedForEveryEventAndTheOutcomeCarriesItsAnswer() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let (asked, outcomes) = (Locked<[SecurityEvent.Subject]>([]), Locked<[SecurityEventReceiver.Outcome]>([]))
        let receiver = try Self.receiver(world, asked: asked, outcomes: outcomes) { $0 == .email("ada@example.com") ? "user-ada" : nil }
        func email(_ address: String) -> [String: JSONValue] { ["format": .string("email"), "email": .string(address)] }

        let enabled = try await world.simulated.securityEventToken(Self.risc + "account-enabled", subject: email("ada@example.com"))
        let first = await receiver.receive(body: Data(enabled.utf8), contentType: World.pushed)
        #expect(first.status == 202 && first.outcome?.subject == "user-ada" && first.outcome?.ended.isEmpty == true)
        #expect(try await world.stored("phone") != nil)

        let own = try await world.simulated.securityEventToken(Self.risc + "account-enabled", subject: world.user("user-ada"))
        #expect(await receiver.receive(body: Data(own.utf8), contentType: World.pushed).outcome?.subject == "user-ada")

        let stranger = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: email("eve@example.com"))
        let third = await receiver.receive(body: Data(stranger.utf8), contentType: World.pushed)
        #expect(third.status == 202 && third.outcome?.resolution == .unresolved && third.outcome?.subject == nil)
        #expect(asked.current == [.email("ada@example.com"), .email("eve@example.com")])
        #expect(outcomes.current.map(\.resolution) == [.user("user-ada"), .user("user-ada"), .unresolved])
    }

    /// A transmitter that only sends events: a descriptor from YAML text in memory, with an issuer and `security_events`
    /// and no endpoints, and a receiver given its audiences with no client in the configuration. An event ends the
    /// user's session (removed unrevoked: there is no client to revoke with).
    @Test func aTransmitterOfEventsAloneNeedsNoEndpointsAndNoClient() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let tokens = try await world.signIn("user-ada", as: "phone")
        var moved = try #require(try await world.stored("phone"))
        moved.key = SessionKey(providerID: "signals", account: "phone")
        let store = InMemoryTokenStore()
        await store.save(moved)
        let yaml = """
            schema_version: 1
            id: signals
            display_name: Signals
            protocol: oauth2
            issuer: \(world.simulated.issuer.absoluteString)
            security_events:
              format: ssf
            """
        var configuration = OAuth.Configuration(includeBundledProviders: false, store: store, environment: world.simulated.environment)
        configuration.descriptors = [try ProviderDescriptor(yaml: yaml)]
        let oauth = OAuth(configuration)
        #expect(try oauth.registry().ids == ["signals"])
        let receiver = try oauth.securityEventReceiver(for: "signals", audiences: [SimulatedProvider.appClientID])
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let answer = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && answer.outcome?.ended == [moved.key], "\(answer.body)")
        #expect(await store.load(moved.key) == nil)
        #expect(try await Simulated.isActive(tokens.refreshToken, at: world.simulated))

        let refused = #expect(throws: ProviderError.self) { try ProviderDescriptor(yaml: "schema_version: 1\nid: broken\n") }
        #expect(refused?.code == .invalidDescriptor && refused?.problems.isEmpty == false)
        #expect(throws: ClientSettingsError.self) { try oauth.securityEventReceiver(for: "signals") }
    }

    /// A host that starts again finds its stream instead of making another; a push stream to another endpoint is another
    /// stream. The poll loop finds the poll stream, goes on through the transmitter's failures, backing off, and stops
    /// when its task is cancelled.
    @Test func aRestartReusesItsStreamAndThePollLoopOutlastsFailures() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let receiver = try world.receiver()
        let polled = try await receiver.existingOrNewStream(delivery: .poll)
        #expect(try await receiver.existingOrNewStream(delivery: .poll).id == polled.id)
        let route = try #require(URL(string: "https://app.example/security-events/simulated"))
        let pushed = try await receiver.existingOrNewStream(delivery: .push(endpoint: route))
        let pushedAgain = try await receiver.existingOrNewStream(delivery: .push(endpoint: route))
        #expect(pushed.id != polled.id && pushedAgain.id == pushed.id)
        #expect(await world.simulated.streamIDs.count == 2)

        let simulated = world.simulated
        try await simulated.transmit(
            await simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada")), on: polled.id)
        await simulated.failNext(.eventPoll, status: 503)
        await simulated.failNext(.eventPoll, status: 503)
        let rounds = Locked<[Bool]>([])
        let loop = Task {
            await receiver.keepPolling(every: .milliseconds(10), maximumBackoff: .milliseconds(40)) { result in
                rounds.withLock { $0.append((try? result.get()) != nil) }
            }
        }
        for _ in 0..<1000 where world.handled.current.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        loop.cancel()
        await loop.value
        #expect(Array(rounds.current.prefix(3)) == [false, false, true])
        #expect(try await world.stored("phone") == nil)
        #expect(await simulated.streamIDs.count == 2)
    }
}
