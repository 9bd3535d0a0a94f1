import Foundation
import OAuthFlow

/// Why a web sign-in was refused; ``page(signInPath:)`` is what the browser gets.
///
/// ``message`` is for logs: it names what failed and never holds a token, code or verifier.
/// The page says what happened in words for the person at the browser, offers to start
/// again, and never echoes the request.
public struct WebSignInError: MessageError {
    public typealias Code = ErrorCode<WebSignInError>

    public let code: Code
    public let message: String
    /// The provider's `error` code, for ``OAuthFlow/ErrorCode/denied`` and ``OAuthFlow/ErrorCode/exchangeRefused``.
    public let providerError: String?
    /// The `Set-Cookie` that deletes the pending cookie, when the callback named one.
    public internal(set) var clearPendingCookie: String?

    init(_ code: Code, _ message: String, providerError: String? = nil) {
        self.code = code
        self.message = message
        self.providerError = providerError
    }

    public var description: String { "\(code): \(message)" }

    /// The HTTP status of the refusal.
    public var status: Int {
        switch code {
        case .unknownProvider: 404
        case .providerUnavailable, .exchangeFailed: 502
        case .sessionStoreUnavailable: 503
        case .exchangeRefused: 403
        case .configuration: 500
        default: 400
        }
    }

    /// What the person at the browser reads.
    public var explanation: String {
        switch code {
        case .denied:
            providerError == "access_denied"
                ? "Sign-in was cancelled or access was denied at the provider."
                : "The provider could not sign you in (\(providerError ?? "error"))."
        case .noPendingSignIn: "This sign-in was not started in this browser, has already finished, or took too long."
        case .expired: "This sign-in took too long and expired."
        case .tampered: "This sign-in's cookie was altered or is not from this site."
        case .replayed: "This sign-in link was already used."
        case .providerMismatch: "This sign-in was started with a different provider."
        case .stateMismatch, .callbackRejected, .issuerMismatch: "The answer from the provider did not match this sign-in."
        case .idTokenRejected: "The provider's identity token did not pass verification."
        case .unknownProvider: "There is no such sign-in option."
        case .providerUnavailable: "The provider could not be reached."
        case .exchangeFailed: "The provider gave an unusable answer."
        case .sessionStoreUnavailable: "Your sign-in could not be saved. Please try again in a moment."
        case .exchangeRefused: "The provider refused to finish this sign-in (\(providerError ?? "error")); the link may be used or expired."
        default: "Sign-in is not available right now."
        }
    }

    /// The error page, with the pending cookie deleted.
    public func page(signInPath: String? = nil) -> WebResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]
        if let clearPendingCookie { headers.append(("Set-Cookie", clearPendingCookie)) }
        let again = signInPath.map { "<p><a href=\"\(WebHTML.escape($0))\">Start again</a></p>" } ?? ""
        return WebResponse(
            status: status, headers: headers,
            body: WebHTML.page(
                title: "Sign-in failed",
                body: """
                    <h1>Sign-in failed</h1>
                    <p role="alert" id="error" data-code="\(WebHTML.escape(code.description))">\(WebHTML.escape(explanation))</p>
                    \(again)
                    """
            ).body)
    }
}

extension ErrorCode where Domain == WebSignInError {
    /// The session store (``WebSignIn/sessions``) could not keep the finished sign-in.
    public static let sessionStoreUnavailable = Self("session_store_unavailable")
    /// The host's settings cannot work (an http origin that is not loopback, a bad base path).
    public static let configuration = Self("configuration")
    /// No enabled provider has that id.
    public static let unknownProvider = Self("unknown_provider")
    /// The provider could not be reached: starting (discovery) or the token exchange failed in transport.
    public static let providerUnavailable = Self("provider_unavailable")
    /// The callback's state names no pending cookie in this browser.
    public static let noPendingSignIn = Self("no_pending_sign_in")
    /// The pending cookie does not open: edited, cut, moved, or sealed with a key not in the keyring.
    public static let tampered = Self("tampered")
    /// The pending cookie's lifetime is over.
    public static let expired = Self("expired")
    /// The callback was already used to finish this flow.
    public static let replayed = Self("replayed")
    /// The pending sign-in was started with another provider than the callback's.
    public static let providerMismatch = Self("provider_mismatch")
    /// The callback has no state, or one that does not match the pending sign-in.
    public static let stateMismatch = Self("state_mismatch")
    /// RFC 9207: the callback's `iss` is not the issuer of the provider the flow started with.
    public static let issuerMismatch = Self("issuer_mismatch")
    /// The callback is malformed (no code, a wrong redirect).
    public static let callbackRejected = Self("callback_rejected")
    /// The provider sent the user back with an error (`access_denied` when they declined).
    public static let denied = Self("denied")
    /// The ID token failed verification (signature, audience, nonce, expiry, subject).
    public static let idTokenRejected = Self("id_token_rejected")
    /// The token exchange or userinfo gave an unusable answer.
    public static let exchangeFailed = Self("exchange_failed")
    /// The token endpoint answered with an OAuth error (`invalid_grant`, `invalid_client`, ...):
    /// a definite refusal, told apart from a provider that could not be reached.
    public static let exchangeRefused = Self("exchange_refused")
}

extension WebSignInError: CodedError {}
