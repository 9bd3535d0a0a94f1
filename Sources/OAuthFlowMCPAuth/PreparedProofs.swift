#if NIO
import Foundation
import OAuthFlow

/// DPoP proofs (RFC 9449) signed ahead of the requests that carry them: an MCP transport asks for its headers
/// synchronously, and proofs are signed asynchronously, so each is made in the step before its request (the transport's
/// `prepareAuthorization`, or the challenge that the request is sent again for) and taken as the request leaves.
///
/// A proof is taken once, for the method, URL and access token it was signed for, while it is young; nothing here lives
/// longer than ``lifetime`` or grows past ``capacity`` proofs a target.
final class PreparedProofs: Sendable {
    /// One proof, and what it was signed for.
    struct Proof: Sendable {
        let method: String
        let token: String
        let value: String
        let made: Date
    }

    /// How long a proof is handed out after it was signed: well inside the minute servers usually allow `iat`.
    static let lifetime: TimeInterval = 30
    /// How many proofs are kept for one target; the oldest go first.
    static let capacity = 32

    private struct State {
        var proofs: [String: [Proof]] = [:]
        /// Targets a DPoP request left for without a proof (none was ready): their 401 is answered with new proofs, not a sign-in.
        var missed: Set<String> = []
        /// Whether requests carry the proofs given (something asked for one): only then are sessions DPoP-bound.
        var sent = false
    }

    private let state = Locked(State())

    /// Whether requests carry proofs: something asked for one.
    var areSent: Bool { state.withLock { $0.sent } }

    /// Takes the proof for a request of `method` to `target` with `token`; nil (and the target noted as missed) when
    /// none is ready.
    func take(method: String, target: String, token: String, now: Date) -> String? {
        state.withLock { state in
            state.sent = true
            var kept = Self.young(state.proofs[target] ?? [], now: now)
            defer { state.proofs[target] = kept.isEmpty ? nil : kept }
            guard let index = kept.firstIndex(where: { $0.method == method && $0.token == token }) else {
                state.missed.insert(target)
                return nil
            }
            return kept.remove(at: index).value
        }
    }

    /// Notes that requests carry proofs, for a request that has no DPoP token yet.
    func noteSent() {
        state.withLock { $0.sent = true }
    }

    /// The methods to sign a proof for at `target` with `token`: a POST for the request about to be sent, and a GET (an
    /// event stream's) when none is ready.
    func wanted(target: String, token: String, now: Date) -> [String] {
        state.withLock { state in
            let ready = Self.young(state.proofs[target] ?? [], now: now).filter { $0.token == token && $0.method == "GET" }
            return ready.isEmpty ? ["POST", "GET"] : ["POST"]
        }
    }

    func add(_ proof: Proof, target: String) {
        state.withLock { state in
            var kept = Self.young(state.proofs[target] ?? [], now: proof.made).filter { $0.token == proof.token }
            kept.append(proof)
            state.proofs[target] = Array(kept.suffix(Self.capacity))
        }
    }

    /// Forgets every proof for `target` (they carry a nonce the server no longer takes).
    func discard(target: String) {
        _ = state.withLock { $0.proofs.removeValue(forKey: target) }
    }

    /// Whether a DPoP request to `target` left without a proof since last asked; clears it.
    func takeMissed(target: String) -> Bool {
        state.withLock { $0.missed.remove(target) != nil }
    }

    private static func young(_ proofs: [Proof], now: Date) -> [Proof] {
        proofs.filter { now.timeIntervalSince($0.made) < lifetime && $0.made <= now.addingTimeInterval(lifetime) }
    }

    /// `htu` (RFC 9449 §4.2): the URL without query, fragment or user information.
    static func target(of url: URL) -> String { DPoPKey.target(of: url) }
}
#endif
