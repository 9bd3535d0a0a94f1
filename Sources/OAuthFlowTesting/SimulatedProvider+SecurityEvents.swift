import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The access token the transmitter's stream management and poll endpoints take (`Authorization: Bearer …`).
    public static let managementToken = "simulated-ssf-management-token-0123456789"

    /// The event types the simulated transmitter offers.
    public static let transmittedEvents = [
        "https://schemas.openid.net/secevent/caep/event-type/session-revoked",
        "https://schemas.openid.net/secevent/caep/event-type/credential-change",
        "https://schemas.openid.net/secevent/risc/event-type/account-disabled",
        "https://schemas.openid.net/secevent/risc/event-type/account-credential-change-required",
    ]

    /// A security event token (RFC 8417) signed with the provider's current key, as a Shared Signals transmitter writes it
    /// (typed `secevent+jwt`, the subject in `sub_id`, SSF 1.0), or, `asGoogle`, as Google's Cross-Account Protection
    /// does (untyped, the subject in the event's `subject`, named by `subject_type`). Either carries `iss`, `aud`, `iat` and a
    /// fresh `jti`; `adjust` then changes the claims as a test needs (to break one).
    ///
    /// - Parameters:
    ///   - type: The event type URI.
    ///   - subject: The subject identifier (`["format": "iss_sub", "iss": …, "sub": …]`); nil for none.
    ///   - members: The event's own members.
    ///   - audience: The `aud`.
    ///   - asGoogle: Write it as Google does rather than as SSF 1.0 says.
    ///   - headerType: The `typ` header; nil for the form's own, empty for none.
    ///   - adjust: Changes the claims before signing.
    public func securityEventToken(
        _ type: String, subject: [String: JSONValue]?, members: [String: JSONValue] = [:], audience: String = SimulatedProvider.appClientID,
        asGoogle: Bool = false, headerType: String? = nil,
        adjust: @Sendable (inout [String: JSONValue]) -> Void = { _ in }
    ) async throws -> String {
        var event = members
        var claims: [String: JSONValue] = [
            "iss": .string(issuer.absoluteString), "aud": .string(audience), "iat": .number(clock.now().timeIntervalSince1970.rounded(.down)),
            "jti": .string(Base64URL.random(bytes: 16)), "txn": .string(Base64URL.random(bytes: 8)),
        ]
        if let subject {
            if asGoogle {
                var google = subject
                if let format = google.removeValue(forKey: "format") {
                    google["subject_type"] = .string(format.stringValue == "iss_sub" ? "iss-sub" : format.stringValue ?? "")
                }
                event["subject"] = .object(google)
            } else {
                claims["sub_id"] = .object(subject)
            }
        }
        claims["events"] = .object([type: .object(event)])
        adjust(&claims)
        let typ = headerType ?? (asGoogle ? "" : "secevent+jwt")
        return try await signWithCurrentKey(claims, type: typ.isEmpty ? nil : typ)
    }

    /// A Sign in with Apple server-to-server notification as Apple POSTs it: `{"payload": "<JWT>"}`, the JWT's `events` a
    /// JSON text with `type`, `sub` and `event_time` (milliseconds), signed with the provider's current key and issued by it.
    ///
    /// - Parameters:
    ///   - type: `consent-revoked`, `account-delete`, `email-disabled` or `email-enabled`.
    ///   - subject: The user's `sub`.
    ///   - audience: The app's client id (its bundle id or Services ID).
    public func appleNotification(_ type: String, subject: String, audience: String = SimulatedProvider.appClientID) async throws -> Data {
        let now = clock.now().timeIntervalSince1970
        let events: [String: JSONValue] = ["type": .string(type), "sub": .string(subject), "event_time": .number((now * 1000).rounded(.down))]
        let text = String(decoding: try JSONEncoder().encode(JSONValue.object(events)), as: UTF8.self)
        let claims: [String: JSONValue] = [
            "iss": .string(issuer.absoluteString), "aud": .string(audience), "iat": .number(now.rounded(.down)),
            "exp": .number((now + 86_400).rounded(.down)), "jti": .string(Base64URL.random(bytes: 16)), "events": .string(text),
        ]
        let token = try await signWithCurrentKey(claims)
        return try JSONEncoder().encode(JSONValue.object(["payload": .string(token)]))
    }

    /// Queues `token` for a poll stream's receiver (RFC 8936), or for a push stream's (``pushedEvents(on:)``).
    ///
    /// - Returns: The token's `jti`, under which a poll answer carries it.
    @discardableResult
    public func transmit(_ token: String, on streamID: String) throws -> String {
        guard var stream = streams[streamID] else { throw SimulationError("no stream \(streamID)") }
        let tokenID = (try? CompactJWS(token).claims["jti"]?.stringValue) ?? nil ?? Base64URL.random(bytes: 16)
        if stream.method == "urn:ietf:rfc:8936" {
            stream.queue.append((tokenID, token))
        } else {
            stream.pushed.append(token)
        }
        streams[streamID] = stream
        return tokenID
    }

    /// The events a push stream has for its receiver, taken: what the transmitter would POST, for the test to deliver.
    public func pushedEvents(on streamID: String) -> [String] {
        let taken = streams[streamID]?.pushed ?? []
        streams[streamID]?.pushed = []
        return taken
    }

    /// The `jti`s a poll stream's receiver acknowledged, and those it reported errors for (RFC 8936 `ack`, `setErrs`).
    public func acknowledgements(on streamID: String) -> (acknowledged: [String], errors: [String: String]) {
        (streams[streamID]?.acknowledged ?? [], streams[streamID]?.errors ?? [:])
    }

    /// The ids of the streams it transmits on.
    public var streamIDs: [String] { streams.keys.sorted() }

    /// The transmitter's configuration (SSF 1.0 §"Transmitter Configuration Metadata").
    func transmitterConfiguration() -> [String: JSONValue] {
        [
            "spec_version": .string("1_0"), "issuer": .string(issuer.absoluteString), "jwks_uri": .string(url(.jwks).absoluteString),
            "delivery_methods_supported": .array([.string("urn:ietf:rfc:8935"), .string("urn:ietf:rfc:8936")]),
            "configuration_endpoint": .string(url(.streams).absoluteString), "status_endpoint": .string(url(.streamStatus).absoluteString),
            "verification_endpoint": .string(url(.streamVerification).absoluteString),
            "authorization_schemes": .array([.object(["spec_urn": .string("urn:ietf:rfc:6749")])]),
        ]
    }

    /// Stream management and polling, each behind the management token.
    func transmitterEndpoint(_ endpoint: Endpoint, _ request: TransportRequest) async throws -> TransportResponse {
        let authorization = request.headers.first { $0.key.lowercased() == "authorization" }?.value
        guard authorization == "Bearer " + Self.managementToken else {
            return Self.json(["err": .string("authentication_failed"), "description": .string("no management token")], status: 401)
        }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let streamID = query.first { $0.name == "stream_id" }?.value
        let body = try request.body.map { data -> [String: JSONValue] in
            guard case let .object(members) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                throw OAuthRefusal.invalidRequest("not an object")
            }
            return members
        }
        switch (endpoint, request.method) {
        case (.streams, .post):
            return createStream(body ?? [:])
        case (.streams, .get):
            guard let streamID else { return Self.jsonList(streams.values.sorted { $0.id < $1.id }.map(describe)) }
            guard let stream = streams[streamID] else { return Self.json(["err": .string("not_found")], status: 404) }
            return Self.json(describe(stream))
        case (.streams, .delete):
            guard let streamID, streams.removeValue(forKey: streamID) != nil else { return Self.json(["err": .string("not_found")], status: 404) }
            return TransportResponse(status: 204, headers: [:], body: Data())
        case (.streamStatus, .get):
            guard let streamID, let stream = streams[streamID] else { return Self.json(["err": .string("not_found")], status: 404) }
            return Self.json(["stream_id": .string(stream.id), "status": .string(stream.status)])
        case (.streamVerification, .post):
            guard let streamID = body?["stream_id"]?.stringValue, streams[streamID] != nil else {
                return Self.json(["err": .string("not_found")], status: 404)
            }
            var members: [String: JSONValue] = [:]
            if let state = body?["state"] { members["state"] = state }
            let token = try await securityEventToken(
                "https://schemas.openid.net/secevent/ssf/event-type/verification", subject: ["format": .string("opaque"), "id": .string(streamID)],
                members: members, audience: streams[streamID]?.audience ?? Self.appClientID)
            try transmit(token, on: streamID)
            return TransportResponse(status: 204, headers: [:], body: Data())
        case (.eventPoll, .post):
            return pollAnswer(body ?? [:], streamID: streamID)
        default:
            return TransportResponse(status: 405, headers: [:], body: Data())
        }
    }

    private func createStream(_ body: [String: JSONValue]) -> TransportResponse {
        guard case let .object(delivery)? = body["delivery"], let method = delivery["method"]?.stringValue,
            ["urn:ietf:rfc:8935", "urn:ietf:rfc:8936"].contains(method)
        else {
            return Self.json(["err": .string("invalid_request"), "description": .string("no delivery method")], status: 400)
        }
        let id = Base64URL.random(bytes: 9)
        let requested: [String]
        if case let .array(items)? = body["events_requested"] { requested = items.compactMap(\.stringValue) } else { requested = [] }
        var endpoint = delivery["endpoint_url"]?.stringValue.flatMap(URL.init(string:))
        if method == "urn:ietf:rfc:8936" {
            endpoint = URLComponents(url: url(.eventPoll), resolvingAgainstBaseURL: false).flatMap { components -> URL? in
                var components = components
                components.queryItems = [URLQueryItem(name: "stream_id", value: id)]
                return components.url
            }
        }
        let stream = SimulatedStream(
            id: id, audience: Self.appClientID, method: method, endpoint: endpoint, events: requested.filter(Self.transmittedEvents.contains))
        streams[id] = stream
        return Self.json(describe(stream), status: 201)
    }

    private func describe(_ stream: SimulatedStream) -> [String: JSONValue] {
        var delivery: [String: JSONValue] = ["method": .string(stream.method)]
        if let endpoint = stream.endpoint { delivery["endpoint_url"] = .string(endpoint.absoluteString) }
        return [
            "stream_id": .string(stream.id), "iss": .string(issuer.absoluteString), "aud": .string(stream.audience),
            "events_supported": .array(Self.transmittedEvents.map(JSONValue.string)), "events_delivered": .array(stream.events.map(JSONValue.string)),
            "delivery": .object(delivery),
        ]
    }

    /// RFC 8936 §2.4: records the acknowledgements and errors, then answers the events not yet acknowledged.
    private func pollAnswer(_ body: [String: JSONValue], streamID: String?) -> TransportResponse {
        guard let streamID, var stream = streams[streamID] else { return Self.json(["err": .string("not_found")], status: 404) }
        if case let .array(acknowledged)? = body["ack"] {
            let done = Set(acknowledged.compactMap(\.stringValue))
            stream.acknowledged += done.sorted()
            stream.queue.removeAll { done.contains($0.tokenID) }
        }
        if case let .object(errors)? = body["setErrs"] {
            for (tokenID, error) in errors {
                if case let .object(members) = error { stream.errors[tokenID] = members["err"]?.stringValue ?? "" }
                stream.queue.removeAll { $0.tokenID == tokenID }
            }
        }
        let most = Int(body["maxEvents"]?.numberValue ?? 100)
        let sent = stream.queue.prefix(max(0, most))
        streams[streamID] = stream
        var sets: [String: JSONValue] = [:]
        for (tokenID, token) in sent { sets[tokenID] = .string(token) }
        return Self.json(["sets": .object(sets), "moreAvailable": .bool(stream.queue.count > sent.count)])
    }

    /// A JSON list answer.
    static func jsonList(_ items: [[String: JSONValue]]) -> TransportResponse {
        let body = (try? JSONEncoder().encode(JSONValue.array(items.map(JSONValue.object)))) ?? Data("[]".utf8)
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: body)
    }
}
