import Foundation
import OAuthFlowFiles

/// A credential helper request that cannot be served.
package struct CredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
