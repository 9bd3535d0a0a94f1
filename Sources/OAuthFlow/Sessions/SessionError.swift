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
