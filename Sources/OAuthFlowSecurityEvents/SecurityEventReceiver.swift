import Foundation
import Logging
import OAuthFlow

/// Receives one provider's security events and acts on them: ends or marks the sessions of the user each names, in the
/// session store every instance shares, then hands the event to the host.
///
/// Events arrive pushed (RFC 8935: ``receive(body:contentType:authorization:)``) or polled (RFC 8936:
/// ``poll(_:maximumEvents:)``). Make one with
/// `OAuth.securityEventReceiver(for:audiences:replays:managementToken:handler:)`.
public final class SecurityEventReceiver: Sendable {
    /// What to answer the transmitter.
    public struct Answer: Sendable {
        /// 202 (RFC 8935 §2.2) for an event accepted, 200 for a Sign in with Apple notification accepted; 400 for one
        /// refused; 503 when the keys, the store or the replay registry could not be reached (the transmitter may retry).
        public let status: Int
        /// Empty when accepted; otherwise `{"err": …, "description": …}` (RFC 8935 §2.3).
        public let body: String
        /// The RFC 8935 error code of a refusal (`invalid_request`, `invalid_key`, `invalid_issuer`, `invalid_audience`,
        /// SSF's `invalid_state`), or `temporarily_unavailable`; nil when accepted.
        public let error: String?
        /// What the receiver did; nil when refused.
        public let outcome: Outcome?
        /// Whether it was an event already received (its `jti` seen before, by any instance sharing the replay registry):
        /// acknowledged as RFC 8935 asks of a duplicate, and ignored; nothing changed and the handler did not hear of it.
        public internal(set) var isDuplicate = false

        /// The header fields to send with ``body``.
        public var headers: [(name: String, value: String)] {
            var fields = [("Cache-Control", "no-store")]
            if status == 401 { fields.append(("WWW-Authenticate", "Bearer")) }
            if !body.isEmpty { fields.append(("Content-Type", "application/json")) }
            return fields
        }
    }

    /// What the receiver did about one event it accepted: what the host's handler receives.
    public struct Outcome: Sendable {
        public let event: SecurityEvent
        /// The sessions removed (their refresh tokens revoked where the provider revokes).
        public let ended: [SessionKey]
        /// The sessions marked for a new sign-in (`StoredSession.reauthenticationRequired`).
        public let marked: [SessionKey]
    }

    /// The largest body read: a security event token is a few kilobytes.
    public static let maximumBodySize = 64 * 1024

    /// The provider whose events this receives.
    public let provider: Provider
    /// The `aud` values an event may name, one of which it must: the client ids of the app, or the stream's audience.
    public let audiences: Set<String>
    let policy: Provider.Policy.SecurityEventPolicy
    let client: OAuthClient
    let sessions: any SessionDirectory
    let replays: any ReplayRegistry
    let managementToken: (@Sendable () async throws -> Secret)?
    /// The `Authorization` header a push must carry (the `authorization_header` its stream was created with); nil to
    /// take pushes without one, as Apple and Google send them.
    let pushAuthorization: Secret?
    let resolveSubject: @Sendable (SecurityEvent.Subject) async throws -> String?
    let handler: @Sendable (Outcome) async -> Void
    let logger: Logger
    let state = Locked(State())

    struct State {
        var configuration: TransmitterConfiguration?
        var keys: SigningKeys?
        /// The verification `state`s asked for and not yet received, with when each stops being expected.
        var expectedStates: [String: Date] = [:]
        /// When reading the transmitter's keys last failed, while it has not succeeded since.
        var keysFailedAt: Date?
    }

    package init(
        client: OAuthClient, policy: Provider.Policy.SecurityEventPolicy, sessions: any SessionDirectory, audiences: Set<String>,
        replays: any ReplayRegistry, managementToken: (@Sendable () async throws -> Secret)?, pushAuthorization: Secret?,
        resolveSubject: @escaping @Sendable (SecurityEvent.Subject) async throws -> String?,
        handler: @escaping @Sendable (Outcome) async -> Void
    ) {
        self.client = client
        self.provider = client.provider
        self.policy = policy
        self.sessions = sessions
        self.audiences = audiences
        self.replays = replays
        self.managementToken = managementToken
        self.pushAuthorization = pushAuthorization
        self.resolveSubject = resolveSubject
        self.handler = handler
        self.logger = client.environment.logger
    }

    // MARK: - Push

    /// Handles one pushed event: a POST of a security event token (`Content-Type: application/secevent+jwt`, RFC 8935
    /// §2), or, for Sign in with Apple, of `{"payload": "<token>"}` (`application/json`).
    ///
    /// - Parameters:
    ///   - body: The request body; more than ``maximumBodySize`` bytes is refused unread.
    ///   - contentType: The request's `Content-Type`.
    ///   - authorization: The request's `Authorization` header; when the receiver was given the one its stream pushes
    ///     with, any other is refused (401, `authentication_failed`) before the body is read.
    public func receive(body: Data, contentType: String?, authorization: String? = nil) async -> Answer {
        let answer: Answer
        do {
            if let pushAuthorization, !pushAuthorization.constantTimeEquals(authorization ?? "") {
                throw Refusal("authentication_failed", "the push does not carry the stream's Authorization header", status: 401)
            }
            let token = try pushedToken(body: body, contentType: contentType)
            let event = try await verify(token)
            answer = await handle(event, status: policy.format == .apple ? 200 : 202)
        } catch {
            answer = refusal(error)
        }
        count(answer, delivery: "push")
        return answer
    }

    /// The token a pushed body holds.
    private func pushedToken(body: Data, contentType: String?) throws(Refusal) -> String {
        guard body.count <= Self.maximumBodySize else {
            throw Refusal("invalid_request", "the body is larger than \(Self.maximumBodySize) bytes")
        }
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if policy.format == .apple {
            guard mediaType == "application/json" else { throw Refusal("invalid_request", "the notification is not application/json") }
            guard let members = try? ServerJSON.object(body), case let .string(payload)? = members["payload"] else {
                throw Refusal("invalid_request", "the body is not {\"payload\": \"<JWT>\"}")
            }
            return payload
        }
        guard mediaType == "application/secevent+jwt" else {
            throw Refusal("invalid_request", "the request is not application/secevent+jwt (RFC 8935 §2)")
        }
        return String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Acting

    /// How long a receiver holds an event it is acting on before another delivery of it may act instead (after a
    /// failure, say).
    static let claimLifetime: TimeInterval = 60

    /// Acts on a verified event and hands it to the handler, once however many times it is delivered.
    ///
    /// The event is claimed first (for ``claimLifetime``, in the shared replay registry): a delivery while it is claimed
    /// (being handled, or handled a moment ago, or by an instance that failed) is answered 503, to be sent again later.
    /// It is acted on, and only then recorded as received for as long as it could be accepted: a later delivery is a
    /// duplicate, acknowledged and ignored. A failure to act answers 503 without recording it, so a later delivery acts.
    /// Acting twice is harmless: a session whose user signed in after the event is never touched.
    func handle(_ event: SecurityEvent, status: Int) async -> Answer {
        let now = client.environment.clock.now()
        do {
            let claim = "security-event claim \(event.issuer) \(event.tokenID)"
            guard try await replays.firstUse(of: claim, until: now.addingTimeInterval(Self.claimLifetime)) else {
                return refusal(Refusal("temporarily_unavailable", "the event is being handled, or was a moment ago", unavailable: true))
            }
        } catch {
            return refusal(Refusal("temporarily_unavailable", "the replay registry cannot be reached: \(error)", unavailable: true))
        }
        if event.action == .verification, let sent = event.members["state"]?.stringValue { forgetExpectedState(sent) }
        var ended: [SessionKey] = []
        var marked: [SessionKey] = []
        do {
            for match in try await matches(event) {
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
        } catch {
            return refusal(Refusal("temporarily_unavailable", "the session store cannot be reached: \(error)", unavailable: true))
        }
        // Kept as long as the token could be accepted at all: its age limit and the leeway past it, twice (clocks differ).
        let keep = event.issuedAt.addingTimeInterval(policy.maximumAge + 2 * Self.leeway)
        let first = (try? await replays.firstUse(of: "security-event \(event.issuer) \(event.tokenID)", until: keep)) ?? true
        guard first else { return Self.duplicate(status) }
        let outcome = Outcome(event: event, ended: ended, marked: marked)
        logger.info(
            "security event received",
            metadata: [
                "provider": "\(provider.id)", "event": "\(TerminalText.escaped(event.type))", "ended": "\(ended.count)",
                "marked": "\(marked.count)",
            ])
        await handler(outcome)
        return Answer(status: status, body: "", error: nil, outcome: outcome)
    }

    /// The answer to an event already received: acknowledged, nothing done.
    static func duplicate(_ status: Int) -> Answer {
        Answer(status: status, body: "", error: nil, outcome: nil, isDuplicate: true)
    }

    /// The provider sessions an event's subject names: `iss_sub` of the provider's own issuer (a transmitter does not
    /// speak for another issuer's subjects, such as another tenant's of the same descriptor); an `opaque` id, or the
    /// subject the host's resolver gives for another format (an e-mail address), as a subject the provider issued.
    /// None for nobody.
    private func matches(_ event: SecurityEvent) async throws -> [ProviderSession.Match] {
        guard event.action == .endSessions || event.action == .requireSignIn else { return [] }
        let providerIssuer = provider.issuer?.absoluteString ?? policy.issuer.absoluteString
        let named: (issuer: String, subject: String)
        switch event.subject {
        case let .issuerSubject(issuer, subject):
            guard isOwnIssuer(issuer) else { return [] }
            named = (issuer, subject)
        case let .opaque(id):
            named = (providerIssuer, id)
        case .email, .other:
            guard let subject = try await resolveSubject(event.subject) else { return [] }
            named = (providerIssuer, subject)
        case .none:
            return []
        }
        return spellings(of: named.issuer).compactMap { ProviderSession.Match(issuer: $0, subject: named.subject, sessionID: nil) }
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

    // MARK: - Answers

    /// Why an event was refused, with its RFC 8935 error code; or why it could not be handled now (`unavailable`).
    struct Refusal: Error {
        let code: String
        let description: String
        var unavailable = false
        var status = 400

        init(_ code: String, _ description: String, unavailable: Bool = false, status: Int = 400) {
            self.code = code
            self.description = description
            self.unavailable = unavailable
            self.status = status
        }
    }

    func refusal(_ error: any Error) -> Answer {
        let refusal = error as? Refusal ?? Refusal("invalid_request", "\(error)")
        let description = TerminalText.escaped(refusal.description)
        if refusal.unavailable {
            logger.error("security event not handled", metadata: ["provider": "\(provider.id)", "reason": "\(description)"])
        } else {
            logger.warning("security event refused", metadata: ["provider": "\(provider.id)", "reason": "\(description)"])
        }
        // What could not be reached is the receiver's business: the transmitter is told only to send the event again.
        let told = refusal.unavailable ? "the receiver cannot handle events now; send the event again later" : description
        let object: [String: String] = ["err": refusal.unavailable ? "temporarily_unavailable" : refusal.code, "description": told]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Answer(
            status: refusal.unavailable ? 503 : refusal.status, body: String(decoding: data, as: UTF8.self),
            error: refusal.unavailable ? "temporarily_unavailable" : refusal.code, outcome: nil)
    }

    /// Counts an answer (`oauthflow_security_events_total`).
    func count(_ answer: Answer, delivery: String) {
        let outcome: String
        switch answer.status {
        case 200, 202:
            let acted = answer.outcome.map { !$0.ended.isEmpty || !$0.marked.isEmpty } ?? false
            outcome = acted ? "acted" : "received"
        case 503: outcome = "unavailable"
        default: outcome = "refused"
        }
        client.environment.instruments.count(.securityEvents, provider.id, delivery, outcome)
    }
}
