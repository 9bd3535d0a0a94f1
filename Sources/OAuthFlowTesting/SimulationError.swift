import Crypto
import Foundation
import OAuthFlow

/// Why a simulated provider could not do what a test asked (an authorization URL it cannot redirect for,
/// a descriptor that does not parse).
public struct SimulationError: MessageError {
    /// What went wrong, in a sentence.
    public let message: String

    init(_ message: String) { self.message = message }
}
