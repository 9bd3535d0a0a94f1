import Foundation

/// Why a store could not read or write a session.
public struct TokenStoreError: MessageError, Hashable {
    public typealias Code = ErrorCode<TokenStoreError>

    public let code: Code
    public let message: String
    public let path: String?

    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What failed, in a sentence; never a token or a secret.
    ///   - path: The file or, for a database, the row the error is about; never a secret.
    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }
}
