import Foundation
import OAuthFlow

extension SecurityEventReceiver {
    /// How far the transmitter's clock may run ahead of this one.
    static let leeway: TimeInterval = 60
    /// The longest `jti` kept.
    static let maximumTokenIDLength = 256
    /// How long after failing to read the transmitter's keys (or configuration) the receiver waits to try again.
    static let retryInterval: TimeInterval = 10

    /// Checks a security event token: the event it carries, once every check passed. Nothing is recorded: ``handle(_:status:)``
    /// records the `jti` of an event it acted on.
    ///
    /// - Throws: ``Refusal`` with the RFC 8935 error code of the first check that failed, or an unavailable one when the
    ///   keys cannot be read.
    func verify(_ token: String) async throws(Refusal) -> SecurityEvent {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            throw Refusal("invalid_request", "the body is not a signed JWT: \(error.message)")
        }
        let algorithm = try checkHeader(jws.header)
        try await checkSignature(jws, algorithm: algorithm)
        let claims = jws.claims
        let issuer = try checkIssuer(claims)
        try checkAudience(claims)
        let issuedAt = try checkTimes(claims)
        guard let tokenID = claims["jti"]?.stringValue, !tokenID.isEmpty, tokenID.utf8.count <= Self.maximumTokenIDLength else {
            throw Refusal("invalid_request", "the token has no `jti` (a string of at most \(Self.maximumTokenIDLength) bytes)")
        }
        let (type, members, identifier) = try event(of: claims)
        // Google's verification is asked for through its own API: the receiver never knew its state.
        if SecurityEvent.action(of: type) == .verification, policy.format == .ssf { try checkVerificationState(members["state"]) }
        let subject: SecurityEvent.Subject
        if policy.format == .apple, let sub = members["sub"]?.stringValue {
            subject = .issuerSubject(issuer: issuer, subject: sub)
        } else {
            subject = identifier.isEmpty ? .none : SecurityEvent.Subject(identifier: identifier)
        }
        return SecurityEvent(
            type: type, provider: provider.id, issuer: issuer, tokenID: tokenID, issuedAt: Date(timeIntervalSince1970: issuedAt),
            subject: subject, sessionID: SecurityEvent.sessionID(in: identifier), subjectIdentifier: identifier, members: members)
    }

    /// The signing algorithm, once the header passed: an algorithm the descriptor allows, no critical extension, and the
    /// explicit type SSF requires (RFC 8417 §2.3); Google's and Apple's tokens may carry none.
    private func checkHeader(_ header: [String: JSONValue]) throws(Refusal) -> JWSAlgorithm {
        let name = header["alg"]?.stringValue ?? ""
        guard let algorithm = JWSAlgorithm(rawValue: name), !algorithm.isHMAC, policy.algorithms.contains(algorithm) else {
            let allowed = policy.algorithms.map(\.rawValue).joined(separator: ", ")
            throw Refusal("invalid_key", "the token is signed with `\(String(name.prefix(40)))`, not one of \(allowed)")
        }
        if header["crit"] != nil {
            throw Refusal("invalid_request", "the token's header marks extensions as critical, and none is understood (RFC 7515 §4.1.11)")
        }
        let type = header["typ"]?.stringValue?.lowercased()
        let typed = type == "secevent+jwt" || type == "application/secevent+jwt"
        switch policy.format {
        case .ssf:
            guard typed else { throw Refusal("invalid_request", "the token is not typed `secevent+jwt` (SSF 1.0, RFC 8417 §2.3)") }
        case .risc, .apple:
            guard type == nil || typed || type == "jwt" else {
                throw Refusal("invalid_request", "the token is typed `\(String(type?.prefix(40) ?? ""))`, not as a security event")
            }
        }
        return algorithm
    }

    /// Verifies the signature with the transmitter's keys (the descriptor's, else its configuration's `jwks_uri`).
    private func checkSignature(_ jws: CompactJWS, algorithm: JWSAlgorithm) async throws(Refusal) {
        let keys: SigningKeys
        let snapshot: SigningKeys.Snapshot
        let fetchedNow: Bool
        let now = client.environment.clock.now()
        // While the keys cannot be read, anyone's POST would cause another fetch: one try every `retryInterval` at most.
        if let failed = state.current.keysFailedAt, now.timeIntervalSince(failed) < Self.retryInterval {
            throw Refusal("temporarily_unavailable", "the transmitter's keys could not be read a moment ago", unavailable: true)
        }
        do {
            keys = try await signingKeys()
            (snapshot, fetchedNow) = try await keys.lookUp(jws.keyID)
        } catch {
            state.withLock { $0.keysFailedAt = now }
            throw Refusal("temporarily_unavailable", "the transmitter's keys cannot be read: \(error)", unavailable: true)
        }
        if state.current.keysFailedAt != nil { state.withLock { $0.keysFailedAt = nil } }
        if let keyID = jws.keyID, !snapshot.mayVerify(keyID: keyID) {
            // A key the transmitter published after the keys were last read is looked up at most once every 30 seconds,
            // whoever asks: a token naming a key not looked up now may be genuine, and is sent back to be delivered again
            // (a push transmitter does not retry a 400, and a poll stream would report the event as refused).
            guard fetchedNow else {
                throw Refusal(
                    "temporarily_unavailable", "the transmitter's keys hold no key `\(String(keyID.prefix(80)))`, and cannot be read again yet",
                    unavailable: true)
            }
            throw Refusal("invalid_key", "the transmitter's keys, read just now, hold no key `\(String(keyID.prefix(80)))`")
        }
        guard snapshot.verifies(jws, algorithm: algorithm) else {
            throw Refusal("invalid_key", "the token's signature does not verify with the transmitter's keys")
        }
    }

    /// The keys events are checked with, made once.
    func signingKeys() async throws -> SigningKeys {
        if let keys = state.current.keys { return keys }
        var url = policy.keys
        if url == nil {
            url = try await transmitterConfiguration().keys
        }
        guard let url else {
            throw SecurityEventError(.configuration, "\(provider.id)'s transmitter names no keys: set `security_events.jwks`")
        }
        let made = SigningKeys(
            url: url, providerID: provider.id, algorithms: policy.algorithms, transport: client.environment.transport,
            clock: client.environment.clock)
        return state.withLock { current in
            if let keys = current.keys { return keys }
            current.keys = made
            return made
        }
    }

    /// The token's `iss`, once it is the transmitter's: the descriptor's issuer exactly (for Google's, with or without a
    /// final `/`, which Google's own documents disagree on).
    private func checkIssuer(_ claims: [String: JSONValue]) throws(Refusal) -> String {
        let issuer = claims["iss"]?.stringValue ?? ""
        guard Self.sameIssuer(issuer, policy.issuer.absoluteString, lenient: policy.format == .risc) else {
            throw Refusal("invalid_issuer", "the token was issued by `\(String(issuer.prefix(200)))`, not `\(policy.issuer.absoluteString)`")
        }
        return issuer
    }

    static func sameIssuer(_ given: String, _ expected: String, lenient: Bool) -> Bool {
        guard !given.isEmpty else { return false }
        if given == expected { return true }
        guard lenient else { return false }
        func trimmed(_ text: String) -> Substring { text.hasSuffix("/") ? text.dropLast() : Substring(text) }
        return trimmed(given) == trimmed(expected)
    }

    private func checkAudience(_ claims: [String: JSONValue]) throws(Refusal) {
        let named = audienceClaim(claims) ?? []
        guard named.contains(where: audiences.contains) else {
            throw Refusal("invalid_audience", "the token is not addressed to this receiver (its `aud` names none of its audiences)")
        }
    }

    /// The token's `iat`, once it is a number no older than the descriptor's `max_age` and not in the future; SSF
    /// forbids `exp` (an ID token validator would take the token for one), and any other format's must not have passed.
    private func checkTimes(_ claims: [String: JSONValue]) throws(Refusal) -> TimeInterval {
        guard let issuedAt = claims["iat"]?.numericDate else {
            throw Refusal("invalid_request", "the token has no `iat` (a number of seconds, RFC 8417 §2.2)")
        }
        let now = client.environment.clock.now().timeIntervalSince1970
        guard issuedAt - Self.leeway <= now else { throw Refusal("invalid_request", "the token claims to be issued in the future") }
        guard now - issuedAt <= policy.maximumAge + Self.leeway else {
            throw Refusal("invalid_request", "the token was issued more than \(Int(policy.maximumAge)) s ago")
        }
        if let expiry = claims["exp"] {
            guard policy.format != .ssf else { throw Refusal("invalid_request", "the token carries `exp`, which SSF 1.0 forbids in an event") }
            guard let seconds = expiry.numericDate else { throw Refusal("invalid_request", "the token's `exp` is not a number of seconds") }
            guard seconds + Self.leeway > now else { throw Refusal("invalid_request", "the token has expired") }
        }
        if let notBefore = claims["nbf"] {
            guard let seconds = notBefore.numericDate, seconds - Self.leeway <= now else {
                throw Refusal("invalid_request", "the token's `nbf` is not a past number of seconds")
            }
        }
        return issuedAt
    }

    /// The one event a token carries: its type, its members and its subject identifier (empty for Apple's, whose subject
    /// is the event's `sub`, and for an event that names nobody).
    private func event(of claims: [String: JSONValue]) throws(Refusal) -> (String, [String: JSONValue], [String: JSONValue]) {
        if policy.format == .apple {
            // Apple's `events` is a JSON text holding one event: `type`, `sub`, `event_time` and, for e-mail events, more.
            guard case let .string(text)? = claims["events"], let members = try? ServerJSON.object(Data(text.utf8)),
                let type = members["type"]?.stringValue, !type.isEmpty, let subject = members["sub"]?.stringValue, !subject.isEmpty
            else {
                throw Refusal("invalid_request", "the notification's `events` is not a JSON text with a `type` and a `sub`")
            }
            return (type, members, [:])
        }
        if policy.format == .ssf, claims["sub"] != nil {
            throw Refusal("invalid_request", "the token carries `sub`, which SSF 1.0 forbids in an event (its subject is `sub_id`)")
        }
        guard case let .object(events)? = claims["events"], events.count == 1, let (type, value) = events.first,
            case let .object(members) = value
        else {
            throw Refusal("invalid_request", "the token's `events` does not hold exactly one event object (SSF 1.0 §\"events\")")
        }
        var identifier: [String: JSONValue] = [:]
        if case let .object(given)? = claims["sub_id"] {
            identifier = given
        } else if case let .object(given)? = members["subject"] {
            identifier = given
        }
        guard !identifier.isEmpty || SecurityEvent.action(of: type) == .verification || SecurityEvent.action(of: type) == .none else {
            throw Refusal("invalid_request", "the event names no subject (`sub_id`)")
        }
        return (type, members, identifier)
    }

    /// A verification event's `state` must be one this receiver asked for and still expects (SSF 1.0 §"Verification");
    /// one with no state is the transmitter's own, unasked. The state is forgotten once the event is handled.
    private func checkVerificationState(_ given: JSONValue?) throws(Refusal) {
        guard let given else { return }
        let now = client.environment.clock.now()
        let expected = state.withLock { current -> Bool in
            current.expectedStates = current.expectedStates.filter { $0.value > now }
            return given.stringValue.map { current.expectedStates[$0] != nil } ?? false
        }
        guard expected else { throw Refusal("invalid_state", "the verification event's `state` is not one this receiver asked for") }
    }

    /// Stops expecting a verification `state`: its event was handled.
    func forgetExpectedState(_ sent: String) {
        state.withLock { $0.expectedStates[sent] = nil }
    }
}
