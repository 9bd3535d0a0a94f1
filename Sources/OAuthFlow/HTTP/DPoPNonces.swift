import Foundation

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin: the next proof for that server carries it.
///
/// Shared by every client of a process by default (``shared``); bounded, and holds only values that are valid
/// nonces (printable ASCII without `"` or `\`, at most 512 characters).
public final class DPoPNonces: Sendable {
    /// The process's nonces.
    public static let shared = DPoPNonces()

    private let state = NonceState()
    /// How many servers' nonces are kept; past that the oldest is forgotten.
    static let capacity = 256

    public init() {}

    /// The nonce to put in the next proof for `url`'s server.
    public func nonce(for url: URL) -> String? { Origin(url).flatMap(state.get) }

    /// Keeps `nonce` for `url`'s server, as a `DPoP-Nonce` header from it gave it: for a host whose transport is not
    /// OAuthFlow's (an MCP SDK transport, say) and that reads the servers' answers itself.
    ///
    /// - Returns: Whether it was kept: a value that is not a valid nonce (RFC 9449 §8.1: printable ASCII without `"`
    ///   or `\`, at most 512 characters here) is not.
    @discardableResult
    public func remember(_ nonce: String, for url: URL) -> Bool {
        guard Self.isValid(nonce), let origin = Origin(url) else { return false }
        state.set(nonce, for: origin)
        return true
    }

    /// Keeps the `DPoP-Nonce` a response from `url` carries, if any; returns it.
    @discardableResult
    func remember(_ response: TransportResponse, from url: URL) -> String? {
        guard let value = response.header("dpop-nonce"), Self.isValid(value), let origin = Origin(url) else { return nil }
        state.set(value, for: origin)
        return value
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR`, with a bound of our own.
    static func isValid(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 512 && value.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    private final class NonceState: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Origin: String] = [:]
        private var order: [Origin] = []

        func get(_ origin: Origin) -> String? { lock.withLock { values[origin] } }

        func set(_ value: String, for origin: Origin) {
            lock.withLock {
                if values.updateValue(value, forKey: origin) == nil {
                    order.append(origin)
                    if order.count > DPoPNonces.capacity { values[order.removeFirst()] = nil }
                }
            }
        }
    }
}
