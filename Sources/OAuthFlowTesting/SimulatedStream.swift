import Foundation

/// One stream of a simulated transmitter.
struct SimulatedStream: Sendable {
    let id: String
    let audience: String
    let method: String
    let endpoint: URL?
    let events: [String]
    var status = "enabled"
    /// Events waiting to be polled, in order: `jti` and token.
    var queue: [(tokenID: String, token: String)] = []
    /// Events a push stream has for its receiver, which the test delivers (``SimulatedProvider/pushedEvents(on:)``).
    var pushed: [String] = []
    var acknowledged: [String] = []
    var errors: [String: String] = [:]
}
