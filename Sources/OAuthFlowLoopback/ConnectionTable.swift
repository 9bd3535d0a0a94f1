#if NIO
import Foundation
import NIOCore
import OAuthFlow

/// The open connections, so that a flood of idle ones cannot lock the browser out.
final class ConnectionTable: Sendable {
    private struct Entry {
        let channel: any Channel
        let order: Int
        var requestReceived = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var counter = 0
        /// Set when the receiver closes: a connection accepted after that is closed at once.
        var closed = false
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Registers a connection as it is accepted, on its event loop: closes the oldest one still sending its
    /// request when that makes too many, closes this one when it has not delivered a whole request within
    /// `requestTimeout` (no slowloris), and forgets it once it is closed. A connection accepted after
    /// ``closeUnfinished()`` is closed at once.
    func accept(_ channel: any Channel, requestTimeout: TimeAmount) {
        let (admitted, victim) = state.withLock { state -> (Bool, (any Channel)?) in
            guard !state.closed else { return (false, nil) }
            state.counter += 1
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, order: state.counter)
            guard state.entries.count > limit else { return (true, nil) }
            let victim =
                state.entries.values.filter { !$0.requestReceived }.min { $0.order < $1.order }
                ?? state.entries.values.min { $0.order < $1.order }
            if let victim { state.entries[ObjectIdentifier(victim.channel)] = nil }
            return (true, victim?.channel)
        }
        // Closed once the accepting initializer is done: a channel closed inside it could not be set up, and the
        // victim may be this very connection (when every other one has sent its request).
        for doomed in [victim, admitted ? nil : channel].compactMap({ $0 }) {
            doomed.eventLoop.execute { doomed.close(promise: nil) }
        }
        guard admitted else { return }
        channel.closeFuture.whenComplete { _ in self.remove(channel) }
        channel.eventLoop.scheduleTask(in: requestTimeout) {
            if !self.hasReceivedRequest(channel) { channel.close(promise: nil) }
        }
    }

    /// Whether `channel`'s request has arrived whole (true for a connection no longer listed).
    private func hasReceivedRequest(_ channel: any Channel) -> Bool {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.requestReceived ?? true }
    }

    func markRequestReceived(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.requestReceived = true }
    }

    private func remove(_ channel: any Channel) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every connection still sending its request and refuses those accepted later. A connection whose
    /// request arrived is left to its task, which answers it and then closes it.
    func closeUnfinished() {
        let unfinished = state.withLock { state -> [any Channel] in
            state.closed = true
            return state.entries.values.filter { !$0.requestReceived }.map(\.channel)
        }
        for channel in unfinished { channel.close(promise: nil) }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
#endif
