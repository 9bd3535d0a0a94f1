import Foundation
import OAuthFlow

/// One event a provider sent about an account, once its token was verified: a security event token (RFC 8417) of the
/// Shared Signals Framework or Google's Cross-Account Protection, or a Sign in with Apple notification.
public struct SecurityEvent: Sendable, Hashable {
    /// The event type: a URI (`https://schemas.openid.net/secevent/caep/event-type/session-revoked`), or, for Sign in
    /// with Apple, Apple's `type` (`consent-revoked`, `account-delete`, `email-disabled`, `email-enabled`).
    public let type: String
    /// The provider (descriptor id) whose transmitter sent it.
    public let provider: String
    /// The transmitter's issuer: the token's `iss`.
    public let issuer: String
    /// The token's `jti`.
    public let tokenID: String
    /// The token's `iat`.
    public let issuedAt: Date
    /// Whom the event is about: the user a complex subject names, or its only identifier.
    public let subject: Subject
    /// The provider session the event is about: the `id` of a complex subject's `session` (SSF 1.0 §"Complex
    /// Subjects", `format: opaque`), which the receiver matches to the `sid` a stored session's ID token recorded. Nil
    /// when the event names no session.
    public let sessionID: String?
    /// The subject identifier as sent (`sub_id`, or the event's `subject`), every member kept: a complex subject's
    /// `tenant`, `device`, `application`. Empty for Sign in with Apple's notifications, whose subject is their `sub`.
    public let subjectIdentifier: [String: JSONValue]
    /// The event's own members (CAEP's `credential_type`, RISC's `reason`, SSF's `state`, Apple's `email`), as sent.
    public let members: [String: JSONValue]

    /// Whom an event is about (RFC 9493 subject identifiers, and Google's and Apple's forms of them).
    public enum Subject: Sendable, Hashable {
        /// An issuer and the subject it issued (`iss_sub`; Google's `iss-sub`; Apple's `sub`, issued by Apple).
        case issuerSubject(issuer: String, subject: String)
        /// An identifier the transmitter and the receiver agree on (`opaque`): resolved by the host's `resolveSubject`,
        /// or taken as the subject the provider issued when its descriptor says `security_events.opaque_subjects: sub`.
        case opaque(String)
        /// An e-mail address (`email`).
        case email(String)
        /// Another format (`phone_number`, `account`, `did`, a complex subject without a user), as sent.
        case other([String: JSONValue])
        /// The event names nobody (a stream's own events).
        case none
    }

    /// What the receiver does about an event of this type before the host hears of it.
    public enum Action: Sendable, Hashable {
        /// Every session of the subject is removed, and its refresh token revoked where the provider revokes: CAEP
        /// `session-revoked`, RISC `sessions-revoked`, `account-disabled` and `account-purged`, OAuth `tokens-revoked`,
        /// Apple's `consent-revoked` and `account-delete`.
        case endSessions
        /// Every session of the subject gives no token until the user signs in again (`SessionError`
        /// `reauthentication_required`): CAEP `credential-change`, `token-claims-change` and `assurance-level-change`,
        /// RISC `account-credential-change-required` and `credential-compromise`.
        case requireSignIn
        /// A stream's verification event (SSF, RISC): its `state` is checked.
        case verification
        /// Nothing: the host's handler decides (`account-enabled`, `identifier-changed`, Apple's e-mail events, ...).
        case none
    }

    /// What the receiver does about this event.
    public var action: Action { Self.action(of: type) }

    /// When it happened: CAEP's `event_timestamp` (seconds), Apple's `event_time` (milliseconds), else the token's `iat`.
    /// A session whose user signed in after it is not ended or marked.
    public var occurredAt: Date {
        if let seconds = members["event_timestamp"]?.numericDate { return Date(timeIntervalSince1970: seconds) }
        if let milliseconds = members["event_time"]?.numericDate { return Date(timeIntervalSince1970: milliseconds / 1000) }
        return issuedAt
    }

    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let ssf = "https://schemas.openid.net/secevent/ssf/event-type/"
    static let oauthEvents = "https://schemas.openid.net/secevent/oauth/event-type/"

    /// The session a complex subject's `session` names (`format: opaque`), if any.
    static func sessionID(in identifier: [String: JSONValue]) -> String? {
        let format = (identifier["format"] ?? identifier["subject_type"])?.stringValue
        guard format == "complex", case let .object(session)? = identifier["session"], session["format"]?.stringValue == "opaque",
            let id = session["id"]?.stringValue, !id.isEmpty
        else { return nil }
        return id
    }

    /// Whether the event is about a stream rather than a user (SSF's `verification` and `stream-updated`, RISC's
    /// `verification`): its subject is the stream.
    var isAboutStream: Bool { type.hasPrefix(Self.ssf) || Self.verificationTypes.contains(type) }

    /// The SSF and RISC verification event types.
    static let verificationTypes: Set<String> = [ssf + "verification", risc + "verification"]

    static func action(of type: String) -> Action {
        switch type {
        case caep + "session-revoked", risc + "sessions-revoked", risc + "account-disabled", risc + "account-purged",
            oauthEvents + "tokens-revoked", "consent-revoked", "account-delete":
            return .endSessions
        case caep + "credential-change", caep + "token-claims-change", caep + "assurance-level-change",
            risc + "account-credential-change-required", risc + "credential-compromise":
            return .requireSignIn
        case _ where verificationTypes.contains(type):
            return .verification
        default:
            return .none
        }
    }
}

extension SecurityEvent.Subject {
    /// The subject a subject identifier names: `iss_sub` (or Google's `subject_type: iss-sub`), `opaque`, `email`,
    /// a complex subject's `user`, or another format as sent.
    init(identifier members: [String: JSONValue]) {
        let format = (members["format"] ?? members["subject_type"])?.stringValue
        switch format {
        case "iss_sub"?, "iss-sub"?:
            if let issuer = members["iss"]?.stringValue, let subject = members["sub"]?.stringValue, !subject.isEmpty {
                self = .issuerSubject(issuer: issuer, subject: subject)
                return
            }
        case "opaque"?:
            if let id = members["id"]?.stringValue, !id.isEmpty {
                self = .opaque(id)
                return
            }
        case "email"?:
            if let email = members["email"]?.stringValue, !email.isEmpty {
                self = .email(email)
                return
            }
        case "complex"?:
            // SSF §"Complex Subjects": every member describes the same principal; the user is whom sessions belong to.
            if case let .object(user)? = members["user"] {
                self = Self(identifier: user)
                return
            }
        default:
            break
        }
        self = .other(members)
    }
}
