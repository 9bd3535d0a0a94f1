import Foundation
import Logging

/// Why a session cannot give an access token.
public struct SessionError: MessageError, Hashable {
    public typealias Code = ErrorCode<SessionError>

    public let code: Code
    public let message: String
    /// The server's error, for ``ErrorCode/signedOut``.
    public let serverError: AuthorizationServerError?

    init(_ code: Code, _ message: String, serverError: AuthorizationServerError? = nil) {
        self.code = code
        self.message = message
        self.serverError = serverError
    }
}

extension ErrorCode where Domain == SessionError {
    /// No session is stored.
    public static let notSignedIn = Self("not_signed_in")
    /// The server rejected the refresh token (`invalid_grant`); the session was removed.
    public static let signedOut = Self("signed_out")
    /// The session's client authenticates with a secret, and none was given; nothing was sent.
    public static let missingClientCredential = Self("missing_client_credential")
    /// The store cannot take new tokens (read-only, full, unreachable). Before a refresh: nothing was
    /// sent and the stored session is intact. After one: the manager keeps the new tokens in memory
    /// and retries saving them for a bounded time, as the message says.
    public static let storeUnavailable = Self("store_unavailable")
    /// The stored session was issued by another authorization server than the provider's, or to another client
    /// than the one in use; nothing was sent to anyone.
    public static let sessionMismatch = Self("session_mismatch")
    /// A security event from the provider said the user must sign in again (CAEP `credential-change`, RISC
    /// `account-credential-change-required`, …); the session gives no token until a sign-in replaces it. Nothing was sent.
    public static let reauthenticationRequired = Self("reauthentication_required")
}

extension SessionError: CodedError {}
