import Crypto
import Foundation
import OAuthFlow

/// Why a simulated provider could not do what a test asked (an authorization URL it cannot redirect for,
/// a descriptor that does not parse).
public struct SimulationError: Error, LocalizedError, Sendable, CustomStringConvertible {
    /// What went wrong, in a sentence.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { message }
}
