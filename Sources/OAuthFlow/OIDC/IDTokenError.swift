import Foundation

/// Why an ID token or a userinfo answer was rejected (discovery has ``DiscoveryError``).
///
/// Every rejection has its own code, listed in `Docs/oidc.md`.
public struct IDTokenError: Error, MessageError, Hashable {
    public typealias Code = ErrorCode<IDTokenError>

    public let code: Code
    public let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == IDTokenError {
    /// An OpenID Connect sign-in returned no ID token.
    public static let missing = Self("missing")
    /// Not three base64url parts, or the header or payload is not JSON.
    public static let malformed = Self("malformed")
    /// The header's `alg` is `none`, or not in the provider's allow-list.
    public static let algorithmNotAllowed = Self("algorithm_not_allowed")
    /// The header's `kid` is not in the JWKS, even after fetching it again.
    public static let unknownKey = Self("unknown_key")
    /// The signature does not verify.
    public static let badSignature = Self("bad_signature")
    /// `iss` is not the provider's issuer.
    public static let issuerMismatch = Self("issuer_mismatch")
    /// `aud` does not contain the client id.
    public static let audienceMismatch = Self("audience_mismatch")
    /// Several audiences, and `azp` is not the client id.
    public static let authorizedPartyMismatch = Self("authorized_party_mismatch")
    /// `exp` has passed (beyond the leeway).
    public static let expired = Self("expired")
    /// `nbf` is in the future (beyond the leeway).
    public static let notYetValid = Self("not_yet_valid")
    /// The ID token has no `sub` (subject) claim.
    public static let subjectMissing = Self("subject_missing")
    /// The header lists a `crit` extension OAuthFlow does not understand (it understands none).
    public static let unsupportedCriticalHeader = Self("unsupported_critical_header")
    /// `iat` is in the future (beyond the leeway).
    public static let issuedInFuture = Self("issued_in_future")
    /// The request sent a nonce and the token has none.
    public static let nonceMissing = Self("nonce_missing")
    /// The token's nonce is not the request's.
    public static let nonceMismatch = Self("nonce_mismatch")
    /// `at_hash` does not match the access token.
    public static let accessTokenHashMismatch = Self("access_token_hash_mismatch")
    /// A refreshed ID token, or userinfo, names another subject than the original ID token.
    public static let subjectMismatch = Self("subject_mismatch")
    /// A logout token lacks what Back-Channel Logout 1.0 §2.4 requires (`events` with the logout event,
    /// `jti`, `sub` or `sid`), carries a `nonce`, or is typed as something else than `logout+jwt`.
    public static let notALogoutToken = Self("not_a_logout_token")
    /// A logout token's `iat` is older than the provider's `logout.logout_token_max_age`.
    public static let tooOld = Self("too_old")
    /// The ID token's `auth_time` is missing, or further back than the `max_age` asked (OpenID Connect Core §3.1.2.1).
    public static let authenticationTooOld = Self("authentication_too_old")
    /// The ID token's `acr` is missing, or not one of the `acr_values` asked (RFC 9470 step-up).
    public static let acrNotSatisfied = Self("acr_not_satisfied")
    /// The JWKS cannot be fetched or read, or the provider has no `jwks_uri`.
    public static let keysUnavailable = Self("keys_unavailable")
}

extension IDTokenError: CodedError {}
