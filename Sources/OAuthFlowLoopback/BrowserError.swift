import Foundation

/// A browser could not be started.
public struct BrowserError: Error, LocalizedError, Sendable, CustomStringConvertible {
    public let message: String
    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { message }
}
