import Foundation
import Logging

/// Why a session cannot give an access token.
public struct SessionError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
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

    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { message }
}
