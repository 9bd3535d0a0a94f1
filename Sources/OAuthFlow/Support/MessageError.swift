import Foundation

/// An error told in one sentence, its ``message``: OAuthFlow's error types conform, and state only what is their own
/// (a ``ErrorCode``, the URL or provider concerned).
///
/// ``description`` is the message, unless a type adds to it (a URL, one line per problem); `localizedDescription`
/// gives the same sentence through ``errorDescription``, so hosts and libraries that show errors (the MCP SDK's
/// transport) read it rather than "The operation could not be completed".
public protocol MessageError: LocalizedError, CustomStringConvertible, Sendable {
    /// What went wrong, in a sentence a person can act on; never a token or a secret.
    var message: String { get }
}

extension MessageError {
    /// The ``message``.
    public var description: String { message }

    /// The error's sentence, ``description``, which `localizedDescription` gives too.
    public var errorDescription: String? { description }
}
