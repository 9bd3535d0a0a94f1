import Foundation

/// A failure of the flow on the client side: a rejected callback, a bad input.
///
/// The server's own OAuth errors (`error`, `error_description`, `error_uri`) are
/// ``AuthorizationServerError`` values instead, so callers can tell "the server
/// said no" from "we refused".
public struct FlowError: MessageError, Hashable {
    public typealias Code = ErrorCode<FlowError>

    public let code: Code
    public let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A sign-in over a loopback redirect refused for a provider that takes web redirect URIs only.
    public static func webRedirectOnly(_ provider: Provider) -> FlowError {
        FlowError(
            .invalidRedirectURI,
            "\(provider.displayName) takes only https redirect URIs on a domain registered with it (`redirect.web_only`), not a loopback address: sign in through a web app's routes (Docs/web.md)"
        )
    }

    /// The user ended the sign-in before the provider sent the browser back: closed the sign-in sheet, or declined the
    /// system's prompt to open it. Nothing was sent and nothing stored; a host shows the sign-in screen again.
    ///
    /// - Parameter reason: What the user did, as the web authentication session reports it.
    public static func cancelled(_ reason: String) -> FlowError { FlowError(.cancelled, reason) }

    /// A DPoP-bound session refused to a tool that can send only Bearer tokens.
    public static func dpopRefused(_ message: String) -> FlowError { FlowError(.dpop, message) }

    /// A certificate-bound session (RFC 8705) refused to a tool that does not present the client certificate.
    public static func certificateBindingRefused(_ message: String) -> FlowError { FlowError(.certificateBinding, message) }

    /// Credentials go only where the transport policy allows (`TransportPolicy.isSecure(_:)`): https, or plain
    /// http to this machine (RFC 9700 §2.6, RFC 8252 §8.3).
    ///
    /// - Parameter url: Where credentials are about to be sent.
    /// - Throws: ``FlowError`` `insecureEndpoint` for any other URL.
    public static func requireSecure(_ url: URL) throws {
        guard TransportPolicy.isSecure(url) else { throw FlowError(.insecureEndpoint, TransportPolicy.refusal(url)) }
    }
}

extension ErrorCode where Domain == FlowError {
    public static let invalidVerifier = Self("invalid_verifier")
    /// The provider lacks an endpoint the step needs.
    public static let missingEndpoint = Self("missing_endpoint")
    /// The descriptor does not declare the grant the step needs (`grant_types`).
    public static let grantNotSupported = Self("grant_not_supported")
    /// A service token request the provider cannot take as asked (an `audience` for a provider that takes
    /// `resource`, a resource that is not an absolute URI).
    public static let invalidServiceRequest = Self("invalid_service_request")
    /// A token exchange answer whose `issued_token_type` is missing or not the type asked for (RFC 8693 §2.2.1).
    public static let unexpectedTokenType = Self("unexpected_token_type")
    /// The device code's lifetime ended, by the client's own clock, before the user approved.
    public static let deviceCodeExpired = Self("device_code_expired")
    /// An endpoint or the URL built from it is not a valid URL.
    public static let invalidURL = Self("invalid_url")
    /// The client's authentication method and secret do not fit the provider's `client_auth.methods`.
    public static let clientAuthentication = Self("client_authentication")
    /// The provider (or the chosen method) needs a client secret, and none was given.
    public static let missingClientSecret = Self("missing_client_secret")
    /// The redirect URI is not acceptable (plain http to a non-loopback host, a fragment).
    public static let invalidRedirectURI = Self("invalid_redirect_uri")
    /// The user cancelled the sign-in before it finished (closed the sign-in sheet): an app's sign-in reports it with
    /// this code, so a host can tell it from a failure and show nothing.
    public static let cancelled = Self("cancelled")
    /// The callback's `state` is missing or differs from the request's.
    public static let stateMismatch = Self("state_mismatch")
    /// The callback's `iss` is missing when required, or names another issuer (RFC 9207).
    public static let issuerMismatch = Self("issuer_mismatch")
    /// The callback has no `code`.
    public static let missingCode = Self("missing_code")
    /// The callback is not for this redirect URI, or cannot be parsed.
    public static let invalidCallback = Self("invalid_callback")
    /// This pending authorization was already completed once.
    public static let alreadyCompleted = Self("already_completed")
    /// The token endpoint's answer cannot be used: empty, HTML, malformed, missing fields.
    public static let invalidTokenResponse = Self("invalid_token_response")
    /// A request would send a credential over plain http to a host that is not loopback.
    public static let insecureEndpoint = Self("insecure_endpoint")
    /// A server answered with an unexpected HTTP status (for example a redirect).
    public static let unexpectedStatus = Self("unexpected_status")
    /// The session has no refresh token to refresh with.
    public static let noRefreshToken = Self("no_refresh_token")
    /// A userinfo response is not a JSON object.
    public static let invalidUserInfo = Self("invalid_userinfo")
    /// DPoP (RFC 9449) cannot be used as the descriptor asks: no algorithm in common, a key that cannot sign, a
    /// server that keeps demanding new nonces, tokens the server did not bind.
    public static let dpop = Self("dpop")
    /// A pushed authorization request (RFC 9126) failed or its answer cannot be used.
    public static let pushedAuthorization = Self("pushed_authorization")
    /// A signed request object (RFC 9101) was required and could not be made: no private key, or none the provider takes.
    public static let requestObject = Self("request_object")
    /// The pushed request's `request_uri` expired before the browser used it: start the sign-in again.
    public static let pushedRequestExpired = Self("pushed_request_expired")
    /// A manual sign-in was finished more than ``PendingAuthorization/lifetime`` after it started: it was forgotten
    /// unsent; start it again.
    public static let manualSignInExpired = Self("manual_sign_in_expired")
    /// The provider has no end-session endpoint (in its descriptor or its discovery document): the session
    /// ends here only, and the provider's stays.
    public static let noEndSessionEndpoint = Self("no_end_session_endpoint")
    /// The provider does not revoke this kind of token (`revocation.tokens`).
    public static let notRevocable = Self("not_revocable")
    /// The server, or the client's credentials, fall short of the security profile the provider is held to
    /// (`security.profile`): metadata without a pushed request endpoint or S256, a client key FAPI 2.0 does not allow,
    /// tokens that are not sender-constrained.
    public static let securityProfile = Self("security_profile")
    /// Rich authorization request details (RFC 9396) that cannot be sent or read: not an array of objects with a
    /// string `type`, past the size limits, or of a type the provider does not declare.
    public static let invalidAuthorizationDetails = Self("invalid_authorization_details")
    /// Tokens bound to a client certificate (RFC 8705 §3) that cannot go with it: no certificate given, another
    /// certificate than the one they are bound to, or a URL that is not https. They are never sent without it.
    public static let certificateBinding = Self("certificate_binding")
    /// Grant management (FAPI Grant Management for OAuth 2.0) cannot be done as asked: an action the server does not
    /// list, a `grant_id` no server issues, tokens that name no grant, a server without a grant management endpoint,
    /// or an answer of the grant management API that cannot be read.
    public static let grantManagement = Self("grant_management")
    /// A resource indicator (``ClientConfiguration/resources``) that is not an absolute URI without a fragment (RFC 8707 §2).
    public static let invalidResource = Self("invalid_resource")
    /// The client's credentials were given for another authorization server (``ClientConfiguration/authorizationServer``)
    /// than the provider's issuer, compared exactly: nothing was sent.
    public static let wrongAuthorizationServer = Self("wrong_authorization_server")
    /// A JWT bearer grant's assertion (RFC 7523 §3) names another audience than the authorization server's issuer or
    /// token endpoint, has no `exp` that is a number in the future, or an `nbf` still to come: it was not presented.
    public static let unusableAssertion = Self("unusable_assertion")
    /// A step-up (``ClientConfiguration/maximumAuthenticationAge``, ``ClientConfiguration/acrValues``) asked of a
    /// sign-in that returns no ID token to check it in, or written wrongly (a negative age, a class holding a space).
    public static let stepUp = Self("step_up")
    /// A sign-in finished by another process (``OAuth/finishManualSignIn(to:account:callback:keptCorruptSession:)``)
    /// that is not in progress, was started by another client, or whose store keeps no files.
    public static let manualSignIn = Self("manual_sign_in")
}

extension FlowError: CodedError {}

extension AuthorizationServerError: CodedError {
    /// The server's `error` when it is one the RFCs define (RFC 6749, RFC 8628, RFC 9126, RFC 9449, OpenID Connect Core),
    /// `other` for anything else a server sends: the bounded set metrics and spans count failures by.
    package var code: ErrorCode<AuthorizationServerError> {
        ErrorCode(Self.standardErrors.contains(error) ? error : "other")
    }

    private static let standardErrors: Set<String> = [
        "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type", "invalid_scope", "server_error",
        "temporarily_unavailable", "invalid_client", "invalid_grant", "unsupported_grant_type", "invalid_target",
        "authorization_pending", "slow_down", "expired_token", "invalid_request_uri", "invalid_request_object",
        "request_not_supported", "request_uri_not_supported", "registration_not_supported", "interaction_required",
        "login_required", "account_selection_required", "consent_required", "use_dpop_nonce", "invalid_dpop_proof",
        "invalid_authorization_details", "invalid_token", "insufficient_scope", "unsupported_token_type",
    ]
}
