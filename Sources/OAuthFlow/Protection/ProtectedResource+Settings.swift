import Foundation

extension ProtectedResource {
    /// What the API states about itself.
    public struct Settings: Sendable {
        /// The API's identifier (RFC 9728 `resource`): an https URL, or http on a loopback host.
        public var resource: URL
        /// The `aud` a token must contain, whatever the descriptors say; when nil, each provider's
        /// `access_tokens.audience`, or else ``resource``.
        public var audience: String?
        /// The `realm` of the challenges; by default the resource's host.
        public var realm: String?
        /// Whether unbound tokens are accepted too (`accepted`), or only DPoP-bound ones (`required`).
        public var dpop: DPoPAcceptance
        /// When set, DPoP proofs must carry a current nonce of this source (RFC 9449 §9).
        public var dpopNonces: ProtectedResource.DPoPNonceSource?
        /// How far a proof's `iat` may be from now.
        public var proofWindow: TimeInterval
        /// How many DPoP proofs are held for the replay check (each for twice ``proofWindow``), at most a quarter of
        /// them of one key: a client past its share, or every client once all are held, is refused until some expire.
        /// Held in this process's memory: each instance of an API checks the proofs it receives.
        public var proofReplayCapacity = 100_000
        /// The scopes the API knows, for its metadata document.
        public var scopesSupported: [String]
        /// A human-readable name, for its metadata document.
        public var resourceName: String?
        /// How many verified tokens are remembered.
        public var cacheCapacity: Int
        /// The shortest time between two JWKS fetches caused by unknown `kid`s.
        public var keysRefetchInterval: TimeInterval
        /// How long a fetched JWKS is used before it is fetched again.
        public var keysMaximumAge: TimeInterval
        /// The narrower scopes each scope grants too, followed through: with `["mcp:admin": ["mcp:write"],
        /// "mcp:write": ["mcp:read"]]` a token granted `mcp:admin` has `mcp:write` and `mcp:read` whenever a scope is
        /// required (``ProtectedResource/Principal/hasScopes(_:)``). The token's own ``ProtectedResource/Principal/scopes``
        /// stay as granted. None by default: each scope is only itself.
        public var scopeImplications: [String: [String]]

        public init(
            resource: URL, audience: String? = nil, realm: String? = nil, dpop: DPoPAcceptance = .accepted,
            dpopNonces: ProtectedResource.DPoPNonceSource? = nil,
            proofWindow: TimeInterval = 60, scopesSupported: [String] = [], resourceName: String? = nil, cacheCapacity: Int = 10_000,
            keysRefetchInterval: TimeInterval = 30, keysMaximumAge: TimeInterval = 900, scopeImplications: [String: [String]] = [:]
        ) {
            self.resource = resource
            self.audience = audience
            self.realm = realm
            self.dpop = dpop
            self.dpopNonces = dpopNonces
            self.proofWindow = proofWindow
            self.scopesSupported = scopesSupported
            self.resourceName = resourceName
            self.cacheCapacity = max(0, cacheCapacity)
            self.keysRefetchInterval = keysRefetchInterval
            self.keysMaximumAge = keysMaximumAge
            self.scopeImplications = scopeImplications
        }

        /// The scopes `granted` imply (``scopeImplications``, followed through), those granted left out.
        func implied(by granted: [String]) -> Set<String> {
            var held = Set(granted)
            var pending = granted
            var implied: Set<String> = []
            while let scope = pending.popLast() {
                for narrower in scopeImplications[scope] ?? [] where held.insert(narrower).inserted {
                    implied.insert(narrower)
                    pending.append(narrower)
                }
            }
            return implied
        }
    }
}
