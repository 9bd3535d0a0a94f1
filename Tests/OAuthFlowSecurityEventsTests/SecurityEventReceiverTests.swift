import Foundation
import OAuthFlow
import OAuthFlowFiles
import OAuthFlowSecurityEvents
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// Security events (issue 64 items 3 and 4): a stand-in transmitter written from SSF 1.0, CAEP, RISC and RFC 8935/8936
/// (the simulated provider), one for Google's Cross-Account Protection and one for Sign in with Apple's notifications,
/// drive the receiver; a verified event ends or marks the user's sessions on every instance sharing the store, and a
/// token that fails any check is refused with RFC 8935's code and changes nothing.
@Suite struct SecurityEventReceiverTests {
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"

    /// Two instances of an app sharing one session directory, and the provider that transmits.
    struct World {
        let simulated: SimulatedProvider
        let instances: [OAuth]
        let directory: TemporaryDirectory
        let handled = Locked<[SecurityEventReceiver.Outcome]>([])

        init(format: String = "ssf", transport: (any HTTPTransport)? = nil) throws {
            simulated = try SimulatedProvider()
            directory = try TemporaryDirectory()
            var options = SimulatedProvider.DescriptorOptions()
            options.extra = "security_events:\n  format: \(format)\n  events: [\(SimulatedProvider.transmittedEvents.joined(separator: ", "))]\n"
            try Data(simulated.descriptorText(options).utf8).write(to: directory.url.appendingPathComponent("simulated.yaml"))
            let providers = directory.url
            let sessions = providers.appendingPathComponent("sessions")
            var environment = simulated.environment
            if let transport { environment.transport = transport }
            let shared = environment
            instances = [0, 1].map { _ in
                OAuth(
                    OAuth.Configuration(
                        providerDirectories: [providers], includeBundledProviders: false,
                        clients: ["simulated": ClientSettings(clientID: SimulatedProvider.appClientID)], store: FileTokenStore(directory: sessions),
                        environment: shared))
            }
        }

        func receiver(on instance: Int = 0, replays: any ReplayRegistry = InMemoryReplayRegistry(), managed: Bool = true) throws
            -> SecurityEventReceiver
        {
            let handled = self.handled
            let token: (@Sendable () async throws -> Secret)? = managed ? { @Sendable in Secret(SimulatedProvider.managementToken) } : nil
            return try instances[instance].securityEventReceiver(
                for: "simulated", replays: replays, managementToken: token,
                handler: { outcome in handled.withLock { $0.append(outcome) } })
        }

        /// `subject` signs in as `account` on `instance`.
        @discardableResult
        func signIn(_ subject: String, as account: String, on instance: Int = 0) async throws -> TokenSet {
            let oauth = instances[instance]
            let run = try oauth.signInRun(to: "simulated", redirectURI: Simulated.redirect)
            return try await run.run(Simulated.Approving(simulated: simulated, subject: subject), account: account, in: oauth.store).tokens
        }

        func stored(_ account: String) async throws -> StoredSession? {
            try await instances[1].store.load(SessionKey(providerID: "simulated", account: account))
        }

        func user(_ subject: String) -> [String: JSONValue] {
            ["format": .string("iss_sub"), "iss": .string(simulated.issuer.absoluteString), "sub": .string(subject)]
        }

        static let pushed = "application/secevent+jwt"
    }

    // MARK: - Acting

    /// A transmitter speaks for its own issuer's subjects: an `iss_sub` of another issuer (another tenant of the same
    /// descriptor) ends nothing; and a session it does end that another server or client issued is removed without its
    /// refresh token going to this provider's revocation endpoint.
    @Test func anotherIssuersSubjectEndsNothingAndAForeignSessionIsNotRevokedHere() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let elsewhere = "https://tenant-b.example"
        let tenant = try await world.signIn("user-ada", as: "tenant-b", on: 0)
        var moved = try #require(try await world.stored("tenant-b"))
        moved.providerSession?.issuer = elsewhere
        moved.authorizationServer = elsewhere
        try await world.instances[0].store.save(moved)
        let foreign = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("iss_sub"), "iss": .string(elsewhere), "sub": .string("user-ada")])
        let answer = try await world.receiver().receive(body: Data(foreign.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && answer.outcome?.ended.isEmpty == true)
        #expect(try await world.stored("tenant-b") != nil)

        // The same session, now under this provider's issuer but recorded as issued by another server: ended here,
        // revoked nowhere.
        moved.providerSession?.issuer = world.simulated.issuer.absoluteString
        try await world.instances[0].store.save(moved)
        let own = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let ended = try await world.receiver().receive(body: Data(own.utf8), contentType: World.pushed)
        #expect(ended.outcome?.ended.map(\.account) == ["tenant-b"])
        #expect(try await world.stored("tenant-b") == nil)
        #expect(try await Simulated.isActive(tenant.refreshToken, at: world.simulated))
    }

    /// CAEP `session-revoked` for a user ends that user's sessions on both instances (signed in on either), revokes their
    /// refresh tokens at the provider, leaves another user's alone, and reaches the handler once.
    @Test func aRevokedSessionEndsTheUsersSessionsOnEveryInstance() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let phone = try await world.signIn("user-ada", as: "phone", on: 0)
        let laptop = try await world.signIn("user-ada", as: "laptop", on: 1)
        try await world.signIn("user-bob", as: "bob", on: 1)
        // The other instance holds the laptop's manager, and with it the session, in memory.
        _ = try await world.instances[1].accessToken(for: "simulated", account: "laptop")
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))

        let answer = try await world.receiver().receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && answer.body.isEmpty)
        #expect(Set(answer.outcome?.ended.map(\.account) ?? []) == ["phone", "laptop"])
        #expect(try await world.stored("phone") == nil)
        #expect(try await world.stored("laptop") == nil)
        #expect(try await world.stored("bob") != nil)
        for tokens in [phone, laptop] { #expect(try await !Simulated.isActive(tokens.refreshToken, at: world.simulated)) }
        await #expect(throws: SessionError.self) { try await world.instances[0].accessToken(for: "simulated", account: "phone") }
        // The other instance's manager learns it when it next reads the store.
        world.simulated.clock.advance(TokenManager.storeRereadInterval + 1)
        let gone = await #expect(throws: SessionError.self) { try await world.instances[1].accessToken(for: "simulated", account: "laptop") }
        #expect(gone?.code == .notSignedIn)
        #expect(world.handled.current.count == 1 && world.handled.current.first?.event.type == Self.caep + "session-revoked")
    }

    /// CAEP `credential-change` marks the user's sessions: no token is handed out or refreshed (`reauthentication_required`),
    /// the launcher's fast path leaves them to the full command, signing out still revokes, and a new sign-in clears it.
    @Test func aCredentialChangeMarksTheSessionsForANewSignIn() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone", on: 0)
        let token = try await world.simulated.securityEventToken(
            Self.caep + "credential-change", subject: world.user("user-ada"),
            members: ["credential_type": .string("password"), "change_type": .string("update")])

        let answer = try await world.receiver().receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && answer.outcome?.marked.map(\.account) == ["phone"])
        let marked = try #require(try await world.stored("phone"))
        #expect(marked.reauthenticationRequired?.event == Self.caep + "credential-change")
        for oauth in world.instances {
            let refused = await #expect(throws: SessionError.self) { try await oauth.accessToken(for: "simulated", account: "phone") }
            #expect(refused?.code == .reauthenticationRequired)
            await #expect(throws: SessionError.self) { try await oauth.storedSession("simulated", account: "phone") }
            // Nor its refresh or ID token, held without a refresh; the session itself stays readable, for signing out.
            let held = await #expect(throws: SessionError.self) { try await oauth.session("simulated", account: "phone").heldTokens() }
            #expect(held?.code == .reauthenticationRequired)
            #expect(try await oauth.session("simulated", account: "phone").session().reauthenticationRequired != nil)
        }
        let sessionsDirectory = world.directory.url.appendingPathComponent("sessions").path
        #expect(SessionPeek.read(providerID: "simulated", account: "phone", directory: sessionsDirectory) == nil)

        try await world.signIn("user-ada", as: "phone", on: 1)
        #expect(try await world.stored("phone")?.reauthenticationRequired == nil)
        #expect(try await !world.instances[1].accessToken(for: "simulated", account: "phone").value.isEmpty)
        // The other instance's manager reads the store again within `TokenManager.storeRereadInterval`.
        world.simulated.clock.advance(TokenManager.storeRereadInterval + 1)
        #expect(try await !world.instances[0].accessToken(for: "simulated", account: "phone").value.isEmpty)
    }

    // MARK: - Refusals

    enum Forgery: String, CaseIterable, CustomTestStringConvertible {
        case otherKey, otherIssuer, otherAudience, tooOld, inTheFuture, withExpiry, withSub, twoEvents, noEvents, untyped, noTokenID
        case notAJWT, plainContentType, noSubject, unsignedAlgorithm, critical, notYetValid, unknownKey
        var testDescription: String { rawValue }
    }

    /// Each check, failed on its own, is refused with its RFC 8935 code, changes nothing, and spends no `jti`.
    @Test(arguments: Forgery.allCases)
    func aTokenThatFailsACheckIsRefusedAndChangesNothing(_ forgery: Forgery) async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let type = Self.caep + "session-revoked"
        let user = world.user("user-ada")
        let simulated = world.simulated
        let now = simulated.clock.now().timeIntervalSince1970
        var contentType = World.pushed
        let token: String
        let expected: String
        switch forgery {
        case .otherKey:
            // Another server calling itself the same issuer, with its own key.
            let impostor = try SimulatedProvider(issuer: simulated.issuer)
            token = try await impostor.securityEventToken(type, subject: user)
            expected = "invalid_key"
        case .otherIssuer:
            token = try await simulated.securityEventToken(type, subject: user) { $0["iss"] = .string("https://simulated.example.evil") }
            expected = "invalid_issuer"
        case .otherAudience:
            token = try await simulated.securityEventToken(type, subject: user, audience: "another-app")
            expected = "invalid_audience"
        case .tooOld:
            token = try await simulated.securityEventToken(type, subject: user) { $0["iat"] = .number(now - 86_400 - 3_600) }
            expected = "invalid_request"
        case .inTheFuture:
            token = try await simulated.securityEventToken(type, subject: user) { $0["iat"] = .number(now + 3_600) }
            expected = "invalid_request"
        case .withExpiry:
            token = try await simulated.securityEventToken(type, subject: user) { $0["exp"] = .number(now + 600) }
            expected = "invalid_request"
        case .withSub:
            token = try await simulated.securityEventToken(type, subject: user) { $0["sub"] = .string("user-ada") }
            expected = "invalid_request"
        case .twoEvents:
            token = try await simulated.securityEventToken(type, subject: user) {
                $0["events"] = .object([type: .object([:]), Self.risc + "account-purged": .object([:])])
            }
            expected = "invalid_request"
        case .noEvents:
            token = try await simulated.securityEventToken(type, subject: user) { $0["events"] = .object([:]) }
            expected = "invalid_request"
        case .untyped:
            token = try await simulated.securityEventToken(type, subject: user, headerType: "")
            expected = "invalid_request"
        case .noTokenID:
            token = try await simulated.securityEventToken(type, subject: user) { $0["jti"] = nil }
            expected = "invalid_request"
        case .notAJWT:
            token = "not.a-jwt"
            expected = "invalid_request"
        case .plainContentType:
            token = try await simulated.securityEventToken(type, subject: user)
            contentType = "application/json"
            expected = "invalid_request"
        case .noSubject:
            token = try await simulated.securityEventToken(type, subject: nil)
            expected = "invalid_request"
        case .unsignedAlgorithm:
            // `alg: none`, the signature left off.
            let signed = try await simulated.securityEventToken(type, subject: user)
            let parts = signed.split(separator: ".")
            let header = Base64URL.encode(try JSONEncoder().encode(["alg": "none", "typ": "secevent+jwt"]))
            token = header + "." + parts[1] + "."
            expected = "invalid_key"
        case .critical:
            let signed = try await simulated.securityEventToken(type, subject: user)
            let parts = signed.split(separator: ".")
            var header = try JSONDecoder().decode([String: JSONValue].self, from: try #require(Base64URL.decode(String(parts[0]))))
            header["crit"] = .array([.string("exp")])
            token = Base64URL.encode(try JSONEncoder().encode(header)) + "." + parts[1] + "." + parts[2]
            expected = "invalid_request"
        case .notYetValid:
            token = try await simulated.securityEventToken(type, subject: user) { $0["nbf"] = .number(now + 3_600) }
            expected = "invalid_request"
        case .unknownKey:
            let impostor = try SimulatedProvider(issuer: simulated.issuer)
            _ = try await impostor.rotateKeys()
            token = try await impostor.securityEventToken(type, subject: user)
            expected = "invalid_key"
        }
        let receiver = try world.receiver()
        let answer = await receiver.receive(body: Data(token.utf8), contentType: contentType)
        #expect(answer.status == 400)
        #expect(answer.error == expected)
        let body = try JSONDecoder().decode([String: String].self, from: Data(answer.body.utf8))
        #expect(body["err"] == expected && !(body["description"] ?? "").isEmpty)
        #expect(try await world.stored("phone") != nil, "a refused event changes nothing")
        #expect(world.handled.current.isEmpty)
        // Nor does it spend its `jti`: the genuine event under that `jti` is taken.
        if let tokenID = (try? CompactJWS(token))?.claims["jti"]?.stringValue {
            let genuine = try await simulated.securityEventToken(type, subject: user) { $0["jti"] = .string(tokenID) }
            let taken = await receiver.receive(body: Data(genuine.utf8), contentType: World.pushed)
            #expect(taken.status == 202 && taken.outcome?.ended.map(\.account) == ["phone"])
        }
    }

    /// A replayed event, delivered to another instance sharing the registry, changes nothing: not even the session the
    /// user signed in with after the first. It is acknowledged as a duplicate, seconds after the first and a minute
    /// after. An event from before a sign-in, delivered late under a new `jti`, leaves that session alone too.
    @Test func aReplayOrALateEventEndsNothing() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let replays = InMemoryReplayRegistry(clock: world.simulated.clock)
        try await world.signIn("user-ada", as: "phone")
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        let first = try await world.receiver(on: 0, replays: replays).receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(first.status == 202 && first.outcome?.ended.count == 1 && !first.isDuplicate)

        world.simulated.clock.advance(5)
        try await world.signIn("user-ada", as: "phone", on: 1)
        let other = try world.receiver(on: 1, replays: replays)
        let soon = await other.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(soon.status == 202 && soon.isDuplicate && soon.outcome == nil)
        world.simulated.clock.advance(61)
        let again = await other.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(again.status == 202 && again.isDuplicate && again.outcome == nil && again.error == nil)
        #expect(try await world.stored("phone") != nil)

        let late = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada")) {
            $0["iat"] = .number(try! #require($0["iat"]?.numericDate) - 70)   // before the second sign-in
        }
        let answer = await other.receive(body: Data(late.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && answer.outcome?.ended.isEmpty == true)
        #expect(try await world.stored("phone") != nil)
        #expect(world.handled.current.count == 2, "each event reaches the handler once")
    }

    /// While the transmitter's configuration cannot be read, events are answered 503 (nothing recorded) and anyone's
    /// POSTs cause one fetch every ten seconds at most; once it answers, the event is taken.
    @Test func anUnreachableTransmitterIsAskedAgainOnlyAfterAWhile() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let receiver = try world.receiver()
        await world.simulated.failNext(.ssfConfiguration, status: 503)
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada"))
        for _ in 0..<3 {
            let answer = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
            #expect(answer.status == 503 && answer.error == "temporarily_unavailable" && !answer.body.contains("simulated"))
        }
        #expect(await world.simulated.requestCount(.ssfConfiguration) == 1)
        world.simulated.clock.advance(11)
        let taken = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(taken.status == 202 && taken.outcome?.ended.map(\.account) == ["phone"], "the event was not lost: \(taken.body)")
    }

    /// An event that names a user through an e-mail address acts only when the host resolves it to a subject.
    @Test func anEmailSubjectActsThroughTheHostsResolver() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let email: [String: JSONValue] = ["format": .string("email"), "email": .string("ada@example.com")]
        let receiver = try world.instances[0].securityEventReceiver(
            for: "simulated",
            resolveSubject: { subject in subject == SecurityEvent.Subject.email("ada@example.com") ? "user-ada" : nil })
        let unknown = try await world.simulated.securityEventToken(
            Self.caep + "session-revoked", subject: ["format": .string("email"), "email": .string("bob@example.com")])
        #expect(await receiver.receive(body: Data(unknown.utf8), contentType: World.pushed).outcome?.ended.isEmpty == true)
        let token = try await world.simulated.securityEventToken(Self.caep + "session-revoked", subject: email)
        #expect(await receiver.receive(body: Data(token.utf8), contentType: World.pushed).outcome?.ended.map(\.account) == ["phone"])
    }

    // MARK: - Google and Apple

    /// Google's Cross-Account Protection: untyped tokens, the subject in the event as `subject_type: iss-sub`, the keys
    /// from its `risc-configuration`.
    @Test func googlesSessionsRevokedEndsTheSessions() async throws {
        let world = try World(format: "risc")
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        // A session whose ID token wrote the issuer with a final `/`.
        var tablet = try #require(try await world.stored("phone"))
        tablet.key = SessionKey(providerID: "simulated", account: "tablet")
        tablet.providerSession?.issuer = world.simulated.issuer.absoluteString + "/"
        try await world.instances[0].store.save(tablet)
        // Google writes its issuer with a final `/` in events, without one in ID tokens.
        var user = world.user("user-ada")
        user["iss"] = .string(world.simulated.issuer.absoluteString + "/")
        let token = try await world.simulated.securityEventToken(Self.risc + "sessions-revoked", subject: user, asGoogle: true)
        #expect(!token.isEmpty)
        let receiver = try world.receiver()
        let answer = await receiver.receive(body: Data(token.utf8), contentType: World.pushed)
        #expect(answer.status == 202 && Set(answer.outcome?.ended.map(\.account) ?? []) == ["phone", "tablet"])
        #expect(await world.simulated.requestCount(.riscConfiguration) == 1)
        // Google's verification is asked for through its own API: a state the receiver never sent is taken.
        let verification = try await world.simulated.securityEventToken(
            Self.risc + "verification", subject: nil, members: ["state": .string("from-googles-api")], asGoogle: true)
        let verified = await receiver.receive(body: Data(verification.utf8), contentType: World.pushed)
        #expect(verified.status == 202 && verified.outcome?.event.action == .verification)
    }

    /// Sign in with Apple: `{"payload": JWT}` whose `events` is a JSON text; consent revoked ends the session (200), an
    /// e-mail forwarding change only reaches the handler, and a notification for another app is refused.
    @Test func applesNotificationsActAsApplesDocumentSays() async throws {
        let world = try World(format: "apple")
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        let receiver = try world.receiver()

        let forwarding = try await world.simulated.appleNotification("email-disabled", subject: "user-ada")
        let kept = await receiver.receive(body: forwarding, contentType: "application/json")
        #expect(kept.status == 200 && kept.outcome?.ended.isEmpty == true && kept.outcome?.event.members["type"] == .string("email-disabled"))

        let otherApp = try await world.simulated.appleNotification("consent-revoked", subject: "user-ada", audience: "com.example.other")
        #expect(await receiver.receive(body: otherApp, contentType: "application/json").error == "invalid_audience")
        #expect(try await world.stored("phone") != nil)

        let revoked = try await world.simulated.appleNotification("consent-revoked", subject: "user-ada")
        let answer = await receiver.receive(body: revoked, contentType: "application/json")
        #expect(answer.status == 200 && answer.outcome?.ended.map(\.account) == ["phone"])
        #expect(world.handled.current.map(\.event.type) == ["email-disabled", "consent-revoked"])
    }

    // MARK: - Streams

    /// The receiver's side of stream management: read the transmitter's configuration, create a push stream, ask for a
    /// verification event and accept it (and refuse one whose state nobody asked for), read the status, delete.
    @Test func aPushStreamIsCreatedVerifiedAndDeleted() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        let receiver = try world.receiver()
        let configuration = try await receiver.transmitterConfiguration()
        #expect(configuration.issuer == world.simulated.issuer.absoluteString && configuration.deliveryMethods.contains("urn:ietf:rfc:8935"))

        let route = URL(string: "https://app.example/security-events/simulated")!
        let stream = try await receiver.createStream(delivery: .push(endpoint: route, authorization: Secret("Bearer route-secret")))
        let guarded = try world.instances[0].securityEventReceiver(for: "simulated", pushAuthorization: Secret("Bearer route-secret"))
        #expect(stream.deliveryMethod == "urn:ietf:rfc:8935" && stream.endpoint == route)
        #expect(stream.eventsDelivered == SimulatedProvider.transmittedEvents)

        try await receiver.requestVerification(ofStream: stream.id)
        let verification = try #require(await world.simulated.pushedEvents(on: stream.id).first)
        let unauthorized = await guarded.receive(body: Data(verification.utf8), contentType: World.pushed, authorization: "Bearer guess")
        #expect(unauthorized.status == 401 && unauthorized.error == "authentication_failed")
        let verified = await receiver.receive(body: Data(verification.utf8), contentType: World.pushed, authorization: "Bearer route-secret")
        #expect(verified.status == 202 && verified.outcome?.event.action == .verification)

        let unasked = try await world.simulated.securityEventToken(
            "https://schemas.openid.net/secevent/ssf/event-type/verification", subject: ["format": .string("opaque"), "id": .string(stream.id)],
            members: ["state": .string("nobody-asked")])
        #expect(await receiver.receive(body: Data(unasked.utf8), contentType: World.pushed).error == "invalid_state")

        #expect(try await receiver.status(ofStream: stream.id).status == "enabled")
        try await receiver.deleteStream(stream.id)
        #expect(await world.simulated.streamIDs.isEmpty)

        let anonymous = try world.receiver(managed: false)
        let refused = await #expect(throws: SecurityEventError.self) { try await anonymous.createStream(delivery: .poll) }
        #expect(refused?.code == .transmitter && refused?.status == 401)
    }

    /// Poll delivery (RFC 8936): the receiver fetches the queued events, acts on each, acknowledges those it accepted and
    /// reports the one it refused (`setErrs`); the next poll finds nothing.
    @Test func aPollStreamDeliversAndAcknowledges() async throws {
        let world = try World()
        defer { world.directory.cleanUp() }
        try await world.signIn("user-ada", as: "phone")
        try await world.signIn("user-bob", as: "bob")
        let receiver = try world.receiver()
        let stream = try await receiver.createStream(delivery: .poll)
        let simulated = world.simulated
        let ended = try await simulated.transmit(
            await simulated.securityEventToken(Self.caep + "session-revoked", subject: world.user("user-ada")), on: stream.id)
        let marked = try await simulated.transmit(
            await simulated.securityEventToken(Self.risc + "account-credential-change-required", subject: world.user("user-bob")), on: stream.id)
        let impostor = try SimulatedProvider(issuer: simulated.issuer)
        let forged = try await simulated.transmit(
            await impostor.securityEventToken(Self.risc + "account-purged", subject: world.user("user-bob")), on: stream.id)

        let result = try await receiver.poll(stream, maximumEvents: 2)
        #expect(result.accepted.count == 2 && result.refused == [forged: "invalid_key"] && result.deferred == 0)
        #expect(try await world.stored("phone") == nil)
        #expect(try await world.stored("bob")?.reauthenticationRequired != nil)
        let told = await simulated.acknowledgements(on: stream.id)
        #expect(Set(told.acknowledged) == [ended, marked] && told.errors == [forged: "invalid_key"])
        #expect(try await receiver.poll(stream).accepted.isEmpty)
    }

    /// The management token goes to the transmitter's own origin only: a configuration that names another server's
    /// endpoint is refused before anything is sent there.
    @Test func theManagementTokenGoesToTheTransmitterOnly() async throws {
        let simulated = try SimulatedProvider()
        let hostile = HostileConfiguration(simulated: simulated)
        let world = try World(transport: hostile)
        defer { world.directory.cleanUp() }
        let receiver = try world.receiver()
        let refused = await #expect(throws: SecurityEventError.self) { try await receiver.createStream(delivery: .poll) }
        #expect(refused?.code == .configuration)
        #expect(hostile.recording.requests.allSatisfy { $0.url.host == world.simulated.issuer.host })
        #expect(hostile.recording.requests.allSatisfy { $0.headers["Authorization"] == nil })
    }

    /// Answers the transmitter's configuration with a stream endpoint on another host; sends the rest to the provider.
    struct HostileConfiguration: HTTPTransport {
        let simulated: SimulatedProvider
        let recording = RecordingTransport(CannedTransport(body: "{}"))

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            _ = try await recording.send(request)
            guard request.url.path == "/.well-known/ssf-configuration" else { return try await simulated.environment.transport.send(request) }
            let document: [String: String] = [
                "issuer": "https://simulated.example", "jwks_uri": "https://simulated.example/jwks",
                "configuration_endpoint": "https://collector.example/streams",
            ]
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(document))
        }
    }
}
