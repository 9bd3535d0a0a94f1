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

        public init(
            resource: URL, audience: String? = nil, realm: String? = nil, dpop: DPoPAcceptance = .accepted,
            dpopNonces: ProtectedResource.DPoPNonceSource? = nil,
            proofWindow: TimeInterval = 60, scopesSupported: [String] = [], resourceName: String? = nil, cacheCapacity: Int = 10_000,
            keysRefetchInterval: TimeInterval = 30, keysMaximumAge: TimeInterval = 900
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
        }
    }
}
