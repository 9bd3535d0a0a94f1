import Crypto
import Foundation

/// A keyring that cannot be built, or a sealed session that does not open.
public struct SessionKeyringError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { message }
}
