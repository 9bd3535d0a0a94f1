import Foundation
import OAuthFlow

/// A failure of the linter itself, not of a descriptor.
public struct LintError: Error, LocalizedError, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }
}
