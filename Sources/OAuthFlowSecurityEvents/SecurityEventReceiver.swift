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
        /// Whom the receiver found the event to be about.
        public let resolution: SubjectResolution

        /// The subject (`sub`) the provider issued to the user the event is about, when the receiver could tell:
        /// ``SubjectResolution/user(_:)``'s.
        public var subject: String? {
            guard case let .user(subject) = resolution else { return nil }
            return subject
        }
    }

    /// Whom an event is about, as far as the receiver could tell.
    public enum SubjectResolution: Sendable, Hashable {
        /// The user the provider issued this subject (`sub`): named so by the event (`iss_sub` of the provider's
        /// issuer, Apple's `sub`, an `opaque` id under `opaque_subjects: sub`), by the host's `resolveSubject`, or by
        /// the stored sessions that record the session the event names.
        case user(String)
        /// Nobody: the event is about a stream (SSF's and RISC's `verification`, SSF's `stream-updated`) or names no
        /// subject.
        case nobody
        /// Someone the receiver could not resolve: an `iss_sub` of another issuer, a subject the host's
        /// `resolveSubject` did not know, a session no stored session records. Nothing was ended or marked; the event
        /// was still acknowledged, as the transmitter did its part.
        case unresolved
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
