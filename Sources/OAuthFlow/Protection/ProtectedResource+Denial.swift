import Foundation

extension ProtectedResource {
    /// Why a request's access token was not accepted, and the answer to give (RFC 6750 §3, RFC 9449 §7).
    ///
    /// ``status`` and ``headers`` are the answer: the `WWW-Authenticate` challenges (with the error
    /// code, never the token or which check failed), `DPoP-Nonce` when a nonce is asked for, and
    /// `Retry-After` when the provider cannot be reached. ``reason`` says exactly which check failed,
    /// for the API's log and `oauthflow verify-token`; it never holds the token.
    public struct Denial: Error, LocalizedError, Sendable, CustomStringConvertible {
        public typealias Code = ErrorCode<ProtectedResource.Denial>

        public let code: Code
        /// The HTTP status to answer with: 400, 401, 403 or 503.
        public let status: Int
        /// Which check failed, in words; for logs, never for the client.
        public let reason: String
        /// The scopes the route requires (with ``ErrorCode/insufficientScope``).
        public let requiredScopes: [String]
        /// The authentication the route requires (with ``ErrorCode/insufficientUserAuthentication``), which its challenge
        /// states in `acr_values` and `max_age` (RFC 9470 §3).
        public let stepUp: ProtectedResource.StepUp?
        /// The answer's headers: each `WWW-Authenticate` challenge, and `DPoP-Nonce` or `Retry-After` when they apply.
        public internal(set) var headers: [(name: String, value: String)] = []
        /// What the provider answered when it could not be asked (``ErrorCode/unavailable``): its refusal of the API's
        /// introspection client, above all, which a single check (`OAuth.verifyAccessToken`) reports as it is.
        package var cause: (any Error & Sendable)?

        init(_ code: Code, _ reason: String, requiredScopes: [String] = [], stepUp: ProtectedResource.StepUp? = nil) {
            self.code = code
            self.reason = reason
            self.requiredScopes = requiredScopes
            self.stepUp = stepUp
            status =
                switch code {
                case .invalidRequest: 400
                case .insufficientScope, .insufficientAuthorizationDetails: 403
                case .unavailable: 503
                default: 401
                }
        }

        /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
        public var errorDescription: String? { description }

        public var description: String { "\(code): \(reason)" }

        /// The `WWW-Authenticate` values.
        public var challenges: [String] { headers.filter { $0.name == "WWW-Authenticate" }.map(\.value) }

        /// The RFC 6750 / RFC 9449 error code sent in the challenge; nil for a request with no token at all.
        package var wireError: String? {
            switch code {
            case .missingToken, .unavailable: nil
            // RFC 9396 names no error for a resource server; RFC 6750 §3.1's is the one for a token that does not grant enough.
            case .insufficientAuthorizationDetails: ErrorCode<ProtectedResource.Denial>.insufficientScope.description
            default: code.description
            }
        }
    }
}

extension ErrorCode where Domain == ProtectedResource.Denial {
    /// No access token (RFC 6750 §3.1: the challenge carries no error code).
    public static let missingToken = Self("missing_token")
    /// A malformed `Authorization` header, two of them, or a token both in a header and elsewhere (400).
    public static let invalidRequest = Self("invalid_request")
    /// The token is expired, revoked, malformed, not for this API, or fails a check (401).
    public static let invalidToken = Self("invalid_token")
    /// The token lacks a scope the route requires (403, with the `scope` attribute).
    public static let insufficientScope = Self("insufficient_scope")
    /// The token lacks authorization details (RFC 9396) of a type the route requires, or they do not allow the
    /// request (403; the challenge says `insufficient_scope`, as RFC 9396 names no error of its own for an API).
    public static let insufficientAuthorizationDetails = Self("insufficient_authorization_details")
    /// The user behind the token authenticated too long ago, or not strongly enough, for the route (RFC 9470 §3: 401,
    /// with `acr_values` and `max_age` in the challenge).
    public static let insufficientUserAuthentication = Self("insufficient_user_authentication")
    /// The DPoP proof is missing or fails a check (RFC 9449 §7.1).
    public static let invalidDPoPProof = Self("invalid_dpop_proof")
    /// The proof must carry the resource's current nonce, sent in `DPoP-Nonce` (RFC 9449 §9).
    public static let useDPoPNonce = Self("use_dpop_nonce")
    /// The provider's keys or its introspection endpoint cannot be reached: nothing was accepted (503).
    public static let unavailable = Self("temporarily_unavailable")
}

extension ProtectedResource.Denial: CodedError {}
