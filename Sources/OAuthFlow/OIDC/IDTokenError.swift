/// Why an ID token, a discovery document or a userinfo answer was rejected.
///
/// Every rejection has its own code, listed in `Docs/oidc.md`.
public struct IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// An OpenID Connect sign-in returned no ID token.
        public static let missing = Code("missing")
        /// Not three base64url parts, or the header or payload is not JSON.
        public static let malformed = Code("malformed")
        /// The header's `alg` is `none`, or not in the provider's allow-list.
        public static let algorithmNotAllowed = Code("algorithm_not_allowed")
        /// The header's `kid` is not in the JWKS, even after fetching it again.
        public static let unknownKey = Code("unknown_key")
        /// The signature does not verify.
        public static let badSignature = Code("bad_signature")
        /// `iss` is not the provider's issuer.
        public static let issuerMismatch = Code("issuer_mismatch")
        /// `aud` does not contain the client id.
        public static let audienceMismatch = Code("audience_mismatch")
        /// Several audiences, and `azp` is not the client id.
        public static let authorizedPartyMismatch = Code("authorized_party_mismatch")
        /// `exp` has passed (beyond the leeway).
        public static let expired = Code("expired")
        /// `iat` is in the future (beyond the leeway).
        public static let issuedInFuture = Code("issued_in_future")
        /// The request sent a nonce and the token has none.
        public static let nonceMissing = Code("nonce_missing")
        /// The token's nonce is not the request's.
        public static let nonceMismatch = Code("nonce_mismatch")
        /// `at_hash` does not match the access token.
        public static let accessTokenHashMismatch = Code("access_token_hash_mismatch")
        /// A refreshed ID token, or userinfo, names another subject than the original ID token.
        public static let subjectMismatch = Code("subject_mismatch")
        /// The JWKS cannot be fetched or read, or the provider has no `jwks_uri`.
        public static let keysUnavailable = Code("keys_unavailable")
        /// The discovery document's `issuer` is not the descriptor's issuer.
        public static let discoveryIssuerMismatch = Code("discovery_issuer_mismatch")
        /// The discovery document cannot be fetched or read.
        public static let discoveryFailed = Code("discovery_failed")
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
