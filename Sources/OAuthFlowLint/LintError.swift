import Foundation
import OAuthFlow

/// A failure of the linter itself, not of a descriptor.
public struct LintError: MessageError {
    public let message: String
    init(_ message: String) { self.message = message }
}
