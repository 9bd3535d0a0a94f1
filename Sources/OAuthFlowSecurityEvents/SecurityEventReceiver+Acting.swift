import Foundation
import OAuthFlow

extension SecurityEventReceiver {
    /// How long a receiver holds its claim on an event it is acting on. Acting takes a moment; the claim outlives it only
    /// when the instance holding it died (or lost the replay registry) while acting, and then keeps another delivery of
    /// the event from acting for this long at most.
    static let claimLifetime: TimeInterval = 60

    /// Acts on a verified event and hands it to the handler, once however many times it is delivered.
    ///
    /// A `jti` is unique to its transmitter (RFC 8417 §2.2), and a transmitter delivers an event again when it did not
    /// hear that it was received (RFC 8935 §2.2, RFC 8936 §2.4): a `jti` recorded as received is a duplicate, answered
    /// as the first was and acted on never again, which is looked up before anything acts, for as long as the token
    /// could be accepted at all. An event not yet received is claimed (for ``claimLifetime``, in the shared replay
    /// registry) while it is acted on; then recorded as received, and the claim released. A delivery while another
    /// holds the claim (the event is being handled right now) is answered 503, to be sent again; a failure to act
    /// releases the claim and records nothing, so the next delivery acts.
    func handle(_ event: SecurityEvent, status: Int) async -> Answer {
        let record = "security-event \(event.issuer) \(event.tokenID)"
        let claim = "security-event claim \(event.issuer) \(event.tokenID)"
        do {
            if try await replays.isRecorded(record) { return Self.duplicate(status) }
            let until = client.environment.clock.now().addingTimeInterval(Self.claimLifetime)
            guard try await replays.firstUse(of: claim, until: until) else {
                return refusal(Refusal("temporarily_unavailable", "the event is being handled by another delivery of it", unavailable: true))
            }
            // A delivery that finished between the look-up and the claim recorded the event before releasing its claim.
            if try await replays.isRecorded(record) {
                await release(claim)
                return Self.duplicate(status)
            }
        } catch {
            return refusal(Refusal("temporarily_unavailable", "the replay registry cannot be reached: \(error)", unavailable: true))
        }
        let outcome: Outcome
        do {
            outcome = try await act(on: event)
        } catch {
            await release(claim)
            return refusal(
                Refusal("temporarily_unavailable", "the session store or the host's resolveSubject failed: \(error)", unavailable: true))
        }
        // Kept as long as the token could be accepted at all: its age limit and the leeway past it, twice (clocks differ).
        let keep = event.issuedAt.addingTimeInterval(policy.maximumAge + 2 * Self.leeway)
        do {
            _ = try await replays.firstUse(of: record, until: keep)
            await release(claim)
        } catch {
            // Acted on, not recorded: the claim, left to expire, keeps the next minute's deliveries from acting again.
            logger.error(
                "security event acted on but not recorded as received",
                metadata: ["provider": "\(provider.id)", "reason": "\(TerminalText.escaped("\(error)"))"])
        }
        logger.info(
            "security event received",
            metadata: [
                "provider": "\(provider.id)", "event": "\(TerminalText.escaped(event.type))", "ended": "\(outcome.ended.count)",
                "marked": "\(outcome.marked.count)", "resolved": "\(outcome.resolution != .unresolved)",
            ])
        await handler(outcome)
        return Answer(status: status, body: "", error: nil, outcome: outcome)
    }

    /// Releases a claim; one that cannot be released expires after ``claimLifetime``.
    private func release(_ claim: String) async {
        do {
            try await replays.forget(claim)
        } catch {
            logger.warning(
                "a security event's claim could not be released; it expires in a minute",
                metadata: ["provider": "\(provider.id)", "reason": "\(TerminalText.escaped("\(error)"))"])
        }
    }

    /// The answer to an event already received: acknowledged, nothing done.
    static func duplicate(_ status: Int) -> Answer {
        Answer(status: status, body: "", error: nil, outcome: nil, isDuplicate: true)
    }

    /// Resolves whom the event is about, then ends or marks the sessions it names.
    ///
    /// - Throws: The store's errors and the host's resolver's.
    private func act(on event: SecurityEvent) async throws -> Outcome {
        if event.action == .verification, let sent = event.members["state"]?.stringValue { forgetExpectedState(sent) }
        let (resolution, matches) = try await resolve(event)
        var ended: [SessionKey] = []
        var marked: [SessionKey] = []
        for match in matches {
            switch event.action {
            case .endSessions:
                ended += try await ProviderLogoutReceiver(client: client, sessions: sessions, replays: replays)
                    .endSessions(match, signedInBy: event.occurredAt)
            case .requireSignIn:
                marked += try await markForSignIn(match, event: event)
            case .verification, .none:
                break
            }
        }
        return Outcome(event: event, ended: ended, marked: marked, resolution: resolution)
    }

    /// Whom an event is about, and the provider sessions it names.
    ///
    /// `iss_sub` of the provider's own issuer (a transmitter does not speak for another issuer's subjects, such as
    /// another tenant's of the same descriptor) and Apple's `sub` name the subject the provider issued; so does an
    /// `opaque` id when the descriptor says `opaque_subjects: sub`. Any other subject (an `opaque` id of the
    /// transmitter's own, an e-mail address, another format) is the host's `resolveSubject`'s to resolve, asked for every
    /// event about a user whatever it does. A complex subject's `session` narrows the match to the stored sessions that
    /// recorded that `sid`; one that names a session alone, or a user nobody resolved, is matched by its `sid` alone,
    /// and its user is the one those sessions record.
    private func resolve(_ event: SecurityEvent) async throws -> (SubjectResolution, [ProviderSession.Match]) {
        guard !event.isAboutStream else { return (.nobody, []) }
        var issuer = provider.issuer?.absoluteString ?? policy.issuer.absoluteString
        var subject: String?
        switch event.subject {
        case let .issuerSubject(named, user):
            guard isOwnIssuer(named) else { return (.unresolved, []) }
            (issuer, subject) = (named, user)
        case let .opaque(id) where policy.opaqueSubjectsAreSubs:
            subject = id
        case .opaque, .email, .other:
            subject = try await resolveSubject(event.subject).flatMap { $0.isEmpty ? nil : $0 }
        case .none:
            break
        }
        let matches = spellings(of: issuer).compactMap { ProviderSession.Match(issuer: $0, subject: subject, sessionID: event.sessionID) }
        if let subject { return (.user(subject), matches) }
        guard !matches.isEmpty else { return (event.subject == .none ? .nobody : .unresolved, []) }
        // A session alone: its user is whom the stored sessions that recorded it say.
        for match in matches {
            for key in try await sessions.keys(of: provider.id, matching: match) {
                if let user = try await sessions.load(key)?.providerSession?.subject { return (.user(user), matches) }
            }
        }
        return (.unresolved, [])
    }

    /// Whether `issuer` is the provider's (or the transmitter's), in any of the spellings ``spellings(of:)`` allows.
    private func isOwnIssuer(_ issuer: String) -> Bool {
        let known = [provider.issuer?.absoluteString, policy.issuer.absoluteString].compactMap { $0 } + provider.issuers.aliases
        return known.contains { Self.sameIssuer(issuer, $0, lenient: true) }
    }

    /// Every way a session may record `issuer`: when it is the provider's (with or without a final `/`, or one of its
    /// aliases: Google writes its issuer each of these ways), all of them, since a session keeps its ID token's `iss` as
    /// the provider wrote it then; otherwise `issuer` alone.
    private func spellings(of issuer: String) -> [String] {
        guard let own = provider.issuer?.absoluteString else { return [issuer] }
        let known = [own, policy.issuer.absoluteString] + provider.issuers.aliases
        guard known.contains(where: { Self.sameIssuer(issuer, $0, lenient: true) }) else { return [issuer] }
        var all: [String] = []
        for spelling in known + [issuer] {
            let bare = spelling.hasSuffix("/") ? String(spelling.dropLast()) : spelling
            for variant in [bare, bare + "/"] where !all.contains(variant) { all.append(variant) }
        }
        return all
    }

    /// Marks every session `match` names for a new sign-in, each under the store's lock so that a refresh under way
    /// cannot write the session back unmarked.
    private func markForSignIn(_ match: ProviderSession.Match, event: SecurityEvent) async throws -> [SessionKey] {
        let sessions = self.sessions
        let now = client.environment.clock.now()
        return try await sessions.withEachSession(of: provider.id, matching: match, signedInBy: event.occurredAt) { session in
            guard session.reauthenticationRequired == nil else { return }
            var marked = session
            marked.reauthenticationRequired = StoredSession.ReauthenticationMark(event: event.type, markedAt: now)
            try await sessions.save(marked)
        }
    }
}
