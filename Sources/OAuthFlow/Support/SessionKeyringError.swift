import Crypto
import Foundation

/// A keyring that cannot be built, or a sealed session that does not open.
public struct SessionKeyringError: MessageError, Hashable {
    public let message: String
    init(_ message: String) { self.message = message }
}
