import Foundation
import OAuthFlow

extension SecurityEventReceiver {
    /// A transmitter's configuration (SSF 1.0 §"Transmitter Configuration Metadata"; Google's `risc-configuration`).
    public struct TransmitterConfiguration: Sendable, Hashable {
        public let issuer: String
        /// Its keys (`jwks_uri`).
        public let keys: URL?
        /// Where streams are created, read and deleted (`configuration_endpoint`).
        public let configurationEndpoint: URL?
        /// Where a stream's status is read (`status_endpoint`).
        public let statusEndpoint: URL?
        /// Where a verification event is asked for (`verification_endpoint`).
        public let verificationEndpoint: URL?
        /// The delivery methods it offers (`urn:ietf:rfc:8935` push, `urn:ietf:rfc:8936` poll).
        public let deliveryMethods: [String]
        /// Every member, as sent.
        public let members: [String: JSONValue]
    }

    /// How a stream delivers its events.
    public enum Delivery: Sendable, Hashable {
        /// The transmitter POSTs each event to `endpoint` (RFC 8935), with `authorization` as the `Authorization` header
        /// when given: the receiver's route should require it.
        case push(endpoint: URL, authorization: Secret? = nil)
        /// The receiver polls the endpoint the transmitter names (RFC 8936).
        case poll

        static let pushMethod = "urn:ietf:rfc:8935"
        static let pollMethod = "urn:ietf:rfc:8936"
    }

    /// A stream, as the transmitter describes it (SSF 1.0 §"Stream Configuration").
    public struct Stream: Sendable, Hashable {
        public let id: String
        /// The event types the transmitter will deliver (`events_delivered`).
        public let eventsDelivered: [String]
        /// `urn:ietf:rfc:8935` (push) or `urn:ietf:rfc:8936` (poll).
        public let deliveryMethod: String
        /// Where events are pushed (the receiver's), or polled (the transmitter's).
        public let endpoint: URL?
        /// Every member, as sent.
        public let members: [String: JSONValue]
    }

    /// A stream's status (SSF 1.0 §"Reading a Stream's Status"): `enabled`, `paused` or `disabled`, and why.
    public struct StreamStatus: Sendable, Hashable {
        public let status: String
        public let reason: String?
    }

    /// What one ``poll(_:maximumEvents:)`` received.
    public struct PollResult: Sendable {
        /// What the receiver did about each event it accepted, in the order they came.
        public let accepted: [Outcome]
        /// The `jti`s of the events it refused, with the RFC 8935 error code it told the transmitter.
        public let refused: [String: String]
        /// Events the receiver could not handle now (keys, store or replay registry unreachable): left unacknowledged, so
        /// the transmitter delivers them again.
        public let deferred: Int
    }

    // MARK: - Configuration

    /// The transmitter's configuration, read once from the descriptor's `security_events.configuration` (by default the
    /// issuer's `/.well-known/ssf-configuration`), its `issuer` checked against the descriptor's.
    ///
    /// - Throws: ``SecurityEventError``.
    public func transmitterConfiguration() async throws -> TransmitterConfiguration {
        if let known = state.current.configuration { return known }
        guard let url = policy.configuration else {
            throw SecurityEventError(.configuration, "\(provider.id)'s transmitter publishes no configuration (`security_events.format: apple`)")
        }
        let members = try await send(.get, url, body: nil, expecting: [200], authorized: false)
        guard let members, let issuer = members["issuer"]?.stringValue,
            Self.sameIssuer(issuer, policy.issuer.absoluteString, lenient: policy.format == .risc)
        else {
            throw SecurityEventError(
                .transmitter, "the configuration at \(url.absoluteString) does not name the issuer \(policy.issuer.absoluteString)")
        }
        func endpoint(_ name: String) throws -> URL? {
            guard let text = members[name]?.stringValue else { return nil }
            guard let url = URL(string: text), TransportPolicy.isSecure(url) else {
                throw SecurityEventError(.transmitter, "the configuration's `\(name)` is not an https URL")
            }
            return url
        }
        let configuration = TransmitterConfiguration(
            issuer: issuer, keys: try endpoint("jwks_uri"), configurationEndpoint: try endpoint("configuration_endpoint"),
            statusEndpoint: try endpoint("status_endpoint"), verificationEndpoint: try endpoint("verification_endpoint"),
            deliveryMethods: members["delivery_methods_supported"]?.stringList ?? [], members: members)
        state.withLock { $0.configuration = configuration }
        return configuration
    }

    // MARK: - Streams

    /// Creates a stream at the transmitter (SSF 1.0 §"Creating a Stream"): `POST` to its configuration endpoint, `201`.
    ///
    /// - Parameters:
    ///   - delivery: Push to the app's route, or poll.
    ///   - events: The event types asked for; the descriptor's `security_events.events` by default.
    ///   - description: A description the transmitter keeps.
    /// - Returns: The stream, once its `iss` is the transmitter's and its `aud` names one of ``audiences``.
    /// - Throws: ``SecurityEventError``.
    public func createStream(delivery: Delivery, events: [String]? = nil, description: String? = nil) async throws -> Stream {
        let endpoint = try await management(\.configurationEndpoint, "configuration_endpoint")
        var body: [String: JSONValue] = ["events_requested": .array((events ?? policy.events).map(JSONValue.string))]
        switch delivery {
        case let .push(url, authorization):
            var members: [String: JSONValue] = ["method": .string(Delivery.pushMethod), "endpoint_url": .string(url.absoluteString)]
            if let authorization { members["authorization_header"] = .string(authorization.value) }
            body["delivery"] = .object(members)
        case .poll:
            body["delivery"] = .object(["method": .string(Delivery.pollMethod)])
        }
        if let description { body["description"] = .string(description) }
        return try stream(from: try await send(.post, endpoint, body: .object(body), expecting: [200, 201]))
    }

    /// Reads a stream (SSF 1.0 §"Reading a Stream's Configuration").
    ///
    /// - Throws: ``SecurityEventError``.
    public func stream(_ id: String) async throws -> Stream {
        let endpoint = try await management(\.configurationEndpoint, "configuration_endpoint")
        return try stream(from: try await send(.get, Self.adding(id, to: endpoint), body: nil, expecting: [200]))
    }

    /// Reads a stream's status (SSF 1.0 §"Reading a Stream's Status").
    ///
    /// - Throws: ``SecurityEventError``.
    public func status(ofStream id: String) async throws -> StreamStatus {
        let endpoint = try await management(\.statusEndpoint, "status_endpoint")
        let members = try await send(.get, Self.adding(id, to: endpoint), body: nil, expecting: [200])
        guard let status = members?["status"]?.stringValue, ["enabled", "paused", "disabled"].contains(status) else {
            throw SecurityEventError(.transmitter, "the stream's status is not `enabled`, `paused` or `disabled`")
        }
        return StreamStatus(status: status, reason: members?["reason"]?.stringValue)
    }

    /// Asks the transmitter for a verification event (SSF 1.0 §"Verification"), with a fresh `state` this receiver then
    /// expects for `expectingFor`; a verification event with another state is refused (`invalid_state`).
    ///
    /// - Returns: The state sent.
    /// - Throws: ``SecurityEventError``.
    @discardableResult
    public func requestVerification(ofStream id: String, expectingFor lifetime: TimeInterval = 600) async throws -> String {
        let endpoint = try await management(\.verificationEndpoint, "verification_endpoint")
        let sent = Base64URL.random(bytes: 16)
        let until = client.environment.clock.now().addingTimeInterval(lifetime)
        state.withLock { $0.expectedStates[sent] = until }
        do {
            _ = try await send(.post, endpoint, body: .object(["stream_id": .string(id), "state": .string(sent)]), expecting: [200, 202, 204])
        } catch {
            state.withLock { $0.expectedStates[sent] = nil }
            throw error
        }
        return sent
    }

    /// Deletes a stream (SSF 1.0 §"Deleting a Stream"): the transmitter stops sending its events.
    ///
    /// - Throws: ``SecurityEventError``.
    public func deleteStream(_ id: String) async throws {
        let endpoint = try await management(\.configurationEndpoint, "configuration_endpoint")
        _ = try await send(.delete, Self.adding(id, to: endpoint), body: nil, expecting: [200, 204])
    }

    // MARK: - Poll

    /// Polls a stream's endpoint for events (RFC 8936), acts on each as a pushed one, and acknowledges them: rounds of
    /// `returnImmediately` requests while the transmitter has more, then one that acknowledges the last.
    ///
    /// - Parameters:
    ///   - stream: The stream, with the endpoint the transmitter names.
    ///   - maximumEvents: The most events asked for a round.
    /// - Throws: ``SecurityEventError`` when the endpoint cannot be polled.
    public func poll(_ stream: Stream, maximumEvents: Int = 100) async throws -> PollResult {
        guard stream.deliveryMethod == Delivery.pollMethod, let endpoint = stream.endpoint else {
            throw SecurityEventError(.configuration, "the stream \(stream.id) is not delivered by poll (RFC 8936)")
        }
        try requireTransmitterOrigin(endpoint, "the poll endpoint")
        var accepted: [Outcome] = []
        var refused: [String: String] = [:]
        var deferred = 0
        var acknowledge: [String] = []
        var errors: [String: JSONValue] = [:]
        for _ in 0..<64 {
            let request: [String: JSONValue] = [
                "maxEvents": .number(Double(maximumEvents)), "returnImmediately": .bool(true),
                "ack": .array(acknowledge.map(JSONValue.string)), "setErrs": .object(errors),
            ]
            acknowledge = []
            errors = [:]
            let answer = try await send(.post, endpoint, body: .object(request), expecting: [200])
            guard case let .object(sets)? = answer?["sets"] else {
                throw SecurityEventError(.transmitter, "the poll answer has no `sets` object (RFC 8936 §2.5)")
            }
            for (tokenID, value) in sets.sorted(by: { $0.key < $1.key }) {
                guard let token = value.stringValue else {
                    errors[tokenID] = Self.setError("invalid_request", "not a compact JWT")
                    refused[tokenID] = "invalid_request"
                    continue
                }
                let answer: Answer
                do {
                    let event = try await verify(token)
                    answer = await handle(event, status: 202)
                } catch {
                    answer = refusal(error)
                }
                count(answer, delivery: "poll")
                if let outcome = answer.outcome {
                    accepted.append(outcome)
                    acknowledge.append(tokenID)
                } else if answer.isDuplicate {
                    // Received before: acknowledged again.
                    acknowledge.append(tokenID)
                } else if answer.status == 503 {
                    deferred += 1
                } else {
                    let code = answer.error ?? "invalid_request"
                    errors[tokenID] = Self.setError(code, "refused by the receiver")
                    refused[tokenID] = code
                }
            }
            guard case .bool(true)? = answer?["moreAvailable"], !sets.isEmpty else { break }
        }
        if !acknowledge.isEmpty || !errors.isEmpty {
            // Acknowledge-only (RFC 8936 §2.4.2): no events asked for.
            let request: [String: JSONValue] = [
                "maxEvents": .number(0), "returnImmediately": .bool(true), "ack": .array(acknowledge.map(JSONValue.string)),
                "setErrs": .object(errors),
            ]
            _ = try await send(.post, endpoint, body: .object(request), expecting: [200, 202, 204])
        }
        return PollResult(accepted: accepted, refused: refused, deferred: deferred)
    }

    private static func setError(_ code: String, _ description: String) -> JSONValue {
        .object(["err": .string(code), "description": .string(description)])
    }

    // MARK: - Requests

    /// A management endpoint of the transmitter's configuration, once it is on the transmitter's own origin.
    func management(_ path: KeyPath<TransmitterConfiguration, URL?>, _ name: String) async throws -> URL {
        guard let url = try await transmitterConfiguration()[keyPath: path] else {
            throw SecurityEventError(.configuration, "\(provider.id)'s transmitter configuration names no `\(name)`")
        }
        try requireTransmitterOrigin(url, "its `\(name)`")
        return url
    }

    /// The management token goes to the transmitter alone: an endpoint on another origin than the configuration
    /// document's (a configuration that names someone else's server) is refused before anything is sent.
    private func requireTransmitterOrigin(_ url: URL, _ what: String) throws {
        let home = policy.configuration ?? policy.issuer
        guard TransportPolicy.isSecure(url), Origin.same(url, home) else {
            throw SecurityEventError(
                .configuration,
                "\(what), \(url.absoluteString), is not on the transmitter's origin (\(Origin(home)?.description ?? home.absoluteString)); its management token is not sent there"
            )
        }
    }

    /// The URL with `stream_id` in its query.
    static func adding(_ id: String, to url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "stream_id", value: id)]
        return components.url ?? url
    }

    /// Sends a management or poll request, with the management token unless `authorized` is false.
    ///
    /// - Returns: The JSON object answered, or nil for an empty answer.
    private func send(
        _ method: TransportRequest.Method, _ url: URL, body: JSONValue?, expecting statuses: Set<Int>, authorized: Bool = true
    ) async throws -> [String: JSONValue]? {
        guard let value = try await sendForValue(method, url, body: body, expecting: statuses, authorized: authorized) else { return nil }
        guard case let .object(members) = value else {
            throw SecurityEventError(.transmitter, "the transmitter's answer to \(method.rawValue) \(url.path) is not a JSON object")
        }
        return members
    }

    /// Sends a management request, as ``send(_:_:body:expecting:authorized:)`` does.
    ///
    /// - Returns: The JSON value answered, or nil for an empty answer.
    func sendForValue(
        _ method: TransportRequest.Method, _ url: URL, body: JSONValue?, expecting statuses: Set<Int>, authorized: Bool = true
    ) async throws -> JSONValue? {
        guard TransportPolicy.isSecure(url) else { throw SecurityEventError(.configuration, TransportPolicy.refusal(url)) }
        var headers = ["Accept": "application/json"]
        if authorized, let managementToken {
            headers["Authorization"] = "Bearer " + (try await managementToken()).value
        }
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(body)
        }
        let response: TransportResponse
        do {
            response = try await client.environment.transport.send(TransportRequest(method: method, url: url, headers: headers, body: data))
        } catch {
            throw SecurityEventError(.unreachable, "the transmitter at \(url.host ?? "?") could not be reached: \(error)")
        }
        guard statuses.contains(response.status) else {
            var message = "the transmitter answered HTTP \(response.status) to \(method.rawValue) \(url.path)"
            if let answer = try? ServerJSON.object(response.body), let error = (answer["err"] ?? answer["error"])?.stringValue {
                message += " (`\(TerminalText.escaped(String(error.prefix(80))))`)"
            }
            throw SecurityEventError(.transmitter, message, status: response.status)
        }
        guard !response.body.isEmpty else { return nil }
        do {
            return try ServerJSON.value(response.body)
        } catch {
            throw SecurityEventError(.transmitter, "the transmitter's answer to \(method.rawValue) \(url.path) \(error)", status: response.status)
        }
    }

    func stream(from members: [String: JSONValue]?) throws -> Stream {
        guard let members, let id = members["stream_id"]?.stringValue, !id.isEmpty else {
            throw SecurityEventError(.transmitter, "the transmitter's stream has no `stream_id`")
        }
        // SSF 1.0: the receiver checks that the stream is the transmitter's, and addressed to it.
        guard let issuer = members["iss"]?.stringValue, Self.sameIssuer(issuer, policy.issuer.absoluteString, lenient: policy.format == .risc)
        else {
            throw SecurityEventError(.transmitter, "the stream's `iss` is not the transmitter's issuer \(policy.issuer.absoluteString)")
        }
        let audiences = audienceClaim(members) ?? []
        guard audiences.contains(where: self.audiences.contains) else {
            throw SecurityEventError(.transmitter, "the stream's `aud` names none of this receiver's audiences")
        }
        guard case let .object(delivery)? = members["delivery"], let method = delivery["method"]?.stringValue else {
            throw SecurityEventError(.transmitter, "the stream has no `delivery` method")
        }
        // The push secret the transmitter may echo is not kept where a printed stream would show it.
        var kept = members
        var shown = delivery
        if shown["authorization_header"] != nil { shown["authorization_header"] = .string("(redacted)") }
        kept["delivery"] = .object(shown)
        return Stream(
            id: id, eventsDelivered: members["events_delivered"]?.stringList ?? [], deliveryMethod: method,
            endpoint: delivery["endpoint_url"]?.stringValue.flatMap(URL.init(string:)), members: kept)
    }
}

extension JSONValue {
    /// The strings of a list; empty for anything else.
    fileprivate var stringList: [String] {
        guard case let .array(items) = self else { return [] }
        return items.compactMap(\.stringValue)
    }
}
