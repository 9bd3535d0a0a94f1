import Foundation
import OAuthFlow

extension SecurityEventReceiver {
    /// The receiver's stream at the transmitter that delivers as `delivery` says, created only when there is none: what a
    /// host calls at every start, so that a restart does not make another stream.
    ///
    /// The streams the transmitter lists for this receiver (a `GET` of its configuration endpoint without `stream_id`,
    /// SSF 1.0 §"Reading a Stream's Configuration") are read, and the first that is the transmitter's, addressed to one
    /// of ``audiences``, and delivered by the same method (for push, to the same endpoint) is reused. Otherwise a stream
    /// is created as ``createStream(delivery:events:description:)`` does. A reused stream keeps the events and the push
    /// `Authorization` it was created with: delete it to change them.
    ///
    /// - Throws: ``SecurityEventError``.
    public func existingOrNewStream(delivery: Delivery, events: [String]? = nil, description: String? = nil) async throws -> Stream {
        let endpoint = try await management(\.configurationEndpoint, "configuration_endpoint")
        let listed: [JSONValue]
        switch try await sendForValue(.get, endpoint, body: nil, expecting: [200, 404]) {
        case let .array(items)?: listed = items
        case let .object(members)? where members["stream_id"] != nil: listed = [.object(members)]
        default: listed = []
        }
        for case let .object(members) in listed {
            guard let stream = try? stream(from: members), Self.delivers(stream, as: delivery) else { continue }
            return stream
        }
        return try await createStream(delivery: delivery, events: events, description: description)
    }

    /// Whether `stream` delivers as `delivery` asks.
    static func delivers(_ stream: Stream, as delivery: Delivery) -> Bool {
        switch delivery {
        case let .push(endpoint, _): stream.deliveryMethod == Delivery.pushMethod && stream.endpoint == endpoint
        case .poll: stream.deliveryMethod == Delivery.pollMethod
        }
    }

    /// Polls until the task that runs it is cancelled: the loop every host of a poll stream would otherwise write. Run it
    /// in a task of its own (a service of the host's service group), on one instance.
    ///
    /// Without a `stream`, the receiver's poll stream is found or created first (``existingOrNewStream(delivery:events:description:)``).
    /// Then ``poll(_:maximumEvents:)`` runs every `interval`. While the transmitter cannot be reached or refuses (the
    /// stream, or a round), it is asked again after `interval`, then after twice as long each time, up to
    /// `maximumBackoff`; a round that succeeds brings the wait back to `interval`.
    ///
    /// - Parameters:
    ///   - stream: The poll stream; nil to find or create it.
    ///   - interval: The wait between rounds (30 to 60 seconds is common).
    ///   - maximumBackoff: The longest wait after failures.
    ///   - maximumEvents: The most events asked for a round.
    ///   - onRound: Told of each round: what it received, or why it failed (the stream could not be found or created,
    ///     the transmitter could not be reached).
    public func keepPolling(
        _ stream: Stream? = nil, every interval: Duration = .seconds(30), maximumBackoff: Duration = .seconds(600), maximumEvents: Int = 100,
        onRound: @escaping @Sendable (Result<PollResult, any Error>) async -> Void = { _ in }
    ) async {
        var stream = stream
        var wait = interval
        while !Task.isCancelled {
            do {
                let current: Stream
                if let stream {
                    current = stream
                } else {
                    current = try await existingOrNewStream(delivery: .poll)
                    stream = current
                }
                let result = try await poll(current, maximumEvents: maximumEvents)
                wait = interval
                await onRound(.success(result))
            } catch {
                logger.warning(
                    "security events could not be polled; trying again later",
                    metadata: ["provider": "\(provider.id)", "reason": "\(TerminalText.escaped("\(error)"))", "wait": "\(wait)"])
                await onRound(.failure(error))
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    return
                }
                wait = min(wait * 2, maximumBackoff)
                continue
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
        }
    }
}
