import Foundation
import JWTKit

/// A provider's signing keys (its JWKS), fetched when first needed, one fetch at a time, and kept: fetched again for
/// an unknown `kid` at most once per ``refetchInterval``, and when older than ``maximumAge``.
///
/// Each fetch makes a new ``Snapshot/generation``.
package actor SigningKeys {
    public nonisolated let url: URL
    public nonisolated let refetchInterval: TimeInterval
    public nonisolated let maximumAge: TimeInterval
    public nonisolated let maximumKeys: Int
    private let providerID: String
    private let algorithms: [JWSAlgorithm]
    private let transport: any HTTPTransport
    private let clock: any DateClock
    private let latest = Locked<Snapshot?>(nil)
    private var fetching: Task<Snapshot, any Error>?
    /// When a `kid` the set lacked last caused a fetch.
    private var lastRefetch: Date?
    /// When a fetch last failed, while none has succeeded since: a stale set is not fetched again before
    /// ``refetchInterval`` has passed, so that a failing endpoint is not asked once a token.
    private var lastFailure: Date?
    private var fetches = 0

    /// - Parameters:
    ///   - url: The JWKS.
    ///   - providerID: For error messages.
    ///   - algorithms: The algorithms tokens may use; each key is prepared for those its type allows.
    ///   - refetchInterval: The shortest time between two fetches caused by unknown `kid`s.
    ///   - maximumAge: How long a fetched set is used before it is fetched again.
    ///   - maximumKeys: How many signing keys of the set are read.
    public init(
        url: URL, providerID: String, algorithms: [JWSAlgorithm], transport: any HTTPTransport, clock: any DateClock = SystemDateClock(),
        refetchInterval: TimeInterval = 30, maximumAge: TimeInterval = 900, maximumKeys: Int = 100
    ) {
        self.url = url
        self.providerID = providerID
        self.algorithms = algorithms.filter { !$0.isHMAC }
        self.transport = transport
        self.clock = clock
        self.refetchInterval = refetchInterval
        self.maximumAge = maximumAge
        self.maximumKeys = maximumKeys
    }

    /// The keys last fetched, without waiting: nil before the first fetch completes.
    public nonisolated var cached: Snapshot? { latest.current }

    /// The cached set while it is younger than ``maximumAge``, without waiting; nil before the first
    /// fetch, and once it is older (the next ``snapshot(for:)`` fetches it again).
    public nonisolated func fresh(at now: Date) -> Snapshot? {
        latest.current.flatMap { isFresh($0, at: now) ? $0 : nil }
    }

    private nonisolated func isFresh(_ snapshot: Snapshot, at now: Date) -> Bool {
        now.timeIntervalSince(snapshot.fetchedAt) < maximumAge
    }

    /// How many times the JWKS has been fetched.
    public var fetchCount: Int { fetches }

    /// Keys to verify a token naming `keyID` with: the cached set, or a new one when none is
    /// cached, the cached one is older than ``maximumAge``, or it lacks `keyID` and a refetch is due.
    ///
    /// - Throws: ``JWTError`` `keysUnavailable` when no set has ever been fetched and this fetch fails.
    ///   A failed refetch keeps the cached set.
    public func snapshot(for keyID: String?) async throws -> Snapshot {
        try await lookUp(keyID).snapshot
    }

    /// Keys to verify a token naming `keyID` with, as ``snapshot(for:)`` gives them, and whether the set was fetched
    /// for this call: when it lacks `keyID` and was not, the key may have been published since the set was fetched
    /// (a refetch was not due, or failed), and the token cannot be called unverifiable yet.
    ///
    /// Fetches stay bounded whatever the endpoint does: one for an unknown `kid` every ``refetchInterval`` at most, and
    /// once the set is older than ``maximumAge`` and a fetch failed, one more every ``refetchInterval`` at most.
    ///
    /// - Throws: ``JWTError`` `keysUnavailable` when no set has ever been fetched and this fetch fails.
    package func lookUp(_ keyID: String?) async throws -> (snapshot: Snapshot, fetchedNow: Bool) {
        let now = clock.now()
        guard let current = latest.current else {
            // A set fetched for this very token is as fresh as a refetch would be: it is not fetched again at once.
            return try await fetch(at: now)
        }
        let failedLately = lastFailure.map { now.timeIntervalSince($0) < refetchInterval } ?? false
        let stale = !isFresh(current, at: now) && !failedLately
        let unknown = keyID.map { !current.named.keys.contains($0) && current.unnamed.isEmpty } ?? false
        let due = lastRefetch.map { now.timeIntervalSince($0) >= refetchInterval } ?? true
        guard stale || unknown && due else { return (current, false) }
        if !stale { lastRefetch = now }
        return (try? await fetch(at: now)) ?? (current, false)
    }

    /// Fetches the set now (or joins the fetch under way), whatever its age: a background refresher calls this
    /// before the set ages out, so that no request waits for the fetch.
    ///
    /// - Throws: ``JWTError`` `keysUnavailable` when the fetch fails; the cached set stays in use.
    package func refresh() async throws -> Snapshot {
        try await fetch(at: clock.now()).snapshot
    }

    /// Fetches the set, or joins the fetch under way (`fetchedNow` false: it may have started before what the caller
    /// checks was published).
    private func fetch(at now: Date) async throws -> (snapshot: Snapshot, fetchedNow: Bool) {
        if let fetching { return (try await fetching.value, false) }
        fetches += 1
        let generation = fetches
        let task = Task { [url, transport, algorithms, maximumKeys, providerID, clock] in
            try await Self.load(
                url: url, transport: transport, algorithms: algorithms, maximumKeys: maximumKeys, providerID: providerID,
                generation: generation, now: clock.now())
        }
        fetching = task
        defer { fetching = nil }
        let snapshot: Snapshot
        do {
            snapshot = try await task.value
        } catch {
            lastFailure = now
            throw error
        }
        lastFailure = nil
        latest.withLock { $0 = snapshot }
        return (snapshot, true)
    }

    private static func load(
        url: URL, transport: any HTTPTransport, algorithms: [JWSAlgorithm], maximumKeys: Int, providerID: String, generation: Int, now: Date
    ) async throws -> Snapshot {
        guard TransportPolicy.isSecure(url) else { throw JWTError(.keysUnavailable, TransportPolicy.refusal(url)) }
        let fetched: (document: [String: JSONValue]?, response: TransportResponse)
        do {
            fetched = try await transport.fetchJSON(url, as: [String: JSONValue].self)
        } catch {
            throw JWTError(.keysUnavailable, "cannot fetch the JWKS of `\(providerID)` (\(url.absoluteString)): \(error)")
        }
        guard case let .array(entries)? = fetched.document?["keys"] else {
            throw JWTError(.keysUnavailable, "\(url.absoluteString) did not answer with a JWKS (HTTP \(fetched.response.status))")
        }
        var named: [String: Snapshot.Key] = [:]
        var unnamed: [Snapshot.Key] = []
        var refused: [String: String] = [:]
        var repeated: Set<String> = []
        for entry in entries {
            guard named.count + unnamed.count < maximumKeys else { break }
            guard case let .object(fields) = entry, Self.isForVerifying(fields) else { continue }
            if let why = Self.unsupported(fields) {
                // Kept so that a token naming the key is told why it cannot be verified, not that the key is missing.
                if let kid = fields["kid"]?.stringValue, refused.count < maximumKeys, named[kid] == nil { refused[kid] = why }
                continue
            }
            let verifiers = await Self.verifiers(for: fields, algorithms: algorithms)
            guard !verifiers.isEmpty else { continue }
            let key = Snapshot.Key(verifiers: verifiers)
            if let kid = fields["kid"]?.stringValue {
                // Two keys under one name: the first stays, as a token cannot say which it means; a refusal says so.
                if named[kid] == nil { named[kid] = key } else { repeated.insert(kid) }
            } else {
                unnamed.append(key)
            }
        }
        return Snapshot(
            generation: generation, fetchedAt: now, named: named, unnamed: unnamed, refused: refused.filter { named[$0.key] == nil },
            repeated: repeated)
    }

    /// Why a key of a type OAuthFlow knows cannot be used at all, or nil: an OKP key on another curve than Ed25519
    /// (Ed448, or X25519, which does not sign) is refused by name, as RFC 8037 §2 lets a JWKS hold them.
    static func unsupported(_ fields: [String: JSONValue]) -> String? {
        guard fields["kty"]?.stringValue == "OKP" else { return nil }
        let curve = fields["crv"]?.stringValue ?? ""
        guard curve != "Ed25519" else { return nil }
        let named = curve.isEmpty ? "no curve" : "curve `\(TerminalText.escaped(String(curve.prefix(20))))`"
        return "an OKP key on \(named), and OAuthFlow verifies EdDSA with Ed25519 keys only (RFC 8037)"
    }

    /// Whether a key may verify signatures: its `use`, when given, is `sig`, and its `key_ops`, when
    /// given, include `verify` (RFC 7517 §4.2, §4.3).
    static func isForVerifying(_ fields: [String: JSONValue]) -> Bool {
        if let use = fields["use"], use.stringValue != "sig" { return false }
        if let operations = fields["key_ops"] {
            guard case let .array(names) = operations, names.contains(where: { $0.stringValue == "verify" }) else { return false }
        }
        return true
    }

    /// A verifier for each allowed algorithm the key can check: its own `alg` when it states one,
    /// else each algorithm of its type (RSA: RS and PS; EC: the ES of its curve; OKP on Ed25519: EdDSA).
    private static func verifiers(for fields: [String: JSONValue], algorithms: [JWSAlgorithm]) async -> [JWSAlgorithm: any JWTAlgorithm] {
        let type = fields["kty"]?.stringValue ?? ""
        let curve = fields["crv"]?.stringValue
        let stated = fields["alg"]?.stringValue
        guard fields["d"] == nil else { return [:] }  // a private key published by mistake is not used
        var result: [JWSAlgorithm: any JWTAlgorithm] = [:]
        for algorithm in algorithms {
            if let stated, stated != algorithm.rawValue { continue }
            let fits: Bool =
                switch algorithm {
                case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: type == "RSA"
                case .es256: type == "EC" && curve == "P-256"
                case .es384: type == "EC" && curve == "P-384"
                case .es512: type == "EC" && curve == "P-521"
                case .eddsa: type == "OKP" && curve == "Ed25519"
                case .hs256, .hs384, .hs512: false
                }
            guard fits, let verifier = await verifier(for: fields, algorithm: algorithm) else { continue }
            result[algorithm] = verifier
        }
        return result
    }

    /// jwt-kit's verifier for the public JWK `fields` under `algorithm`; nil when it cannot be made (a private key, a
    /// key jwt-kit cannot load, one of another type).
    static func verifier(for fields: [String: JSONValue], algorithm: JWSAlgorithm) async -> (any JWTAlgorithm)? {
        var prepared = fields
        prepared["alg"] = .string(algorithm.rawValue)
        prepared["kid"] = .string("key")
        let collection = JWTKeyCollection()
        guard fields["d"] == nil, let data = try? JSONEncoder().encode(JSONValue.object(prepared)),
            let jwk = try? JSONDecoder().decode(JWK.self, from: data), (try? await collection.add(jwk: jwk)) != nil,
            let verifier = try? await collection.getKey(for: "key", alg: algorithm.rawValue), verifier.name == algorithm.rawValue
        else { return nil }
        return verifier
    }

    /// One fetched JWKS, ready to verify with.
    public struct Snapshot: Sendable {
        /// Which fetch made it: a later fetch has a greater generation.
        public let generation: Int
        public let fetchedAt: Date
        let named: [String: Key]
        let unnamed: [Key]
        /// Keys of the set that cannot be used, by `kid`, with the reason (``SigningKeys/unsupported(_:)``).
        let refused: [String: String]
        /// The `kid`s the set names more than once (the first key of each is the one used).
        var repeated: Set<String> = []

        struct Key: Sendable {
            let verifiers: [JWSAlgorithm: any JWTAlgorithm]
        }

        /// Whether the set has a key named `keyID`.
        public func contains(keyID: String) -> Bool { named[keyID] != nil }

        /// How many keys the set holds.
        public var count: Int { named.count + unnamed.count }

        /// Whether one of the keys `jws` may name verifies its signature with `algorithm`: the key
        /// its `kid` names, else every key without a name, or, when it names none, every key.
        public func verifies(_ jws: CompactJWS, algorithm: JWSAlgorithm) -> Bool {
            let candidates: [Key]
            if let keyID = jws.keyID {
                candidates = named[keyID].map { [$0] } ?? unnamed
            } else {
                candidates = Array(named.values) + unnamed
            }
            return candidates.contains { key in
                guard let verifier = key.verifiers[algorithm] else { return false }
                return (try? verifier.verify(jws.signature, signs: jws.signingInput)) ?? false
            }
        }

        /// Why the set's key named `keyID` cannot verify anything, when the set holds it and it is of a kind refused by
        /// name (an OKP key on Ed448); nil otherwise.
        public func refusal(ofKey keyID: String?) -> String? {
            keyID.flatMap { refused[$0] }
        }

        /// Whether a token naming `keyID` could be verified by this set at all.
        public func mayVerify(keyID: String?) -> Bool {
            guard let keyID else { return count > 0 }
            return named[keyID] != nil || !unnamed.isEmpty
        }
    }
}
