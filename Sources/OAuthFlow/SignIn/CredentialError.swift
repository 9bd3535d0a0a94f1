import Foundation
import OAuthFlowFiles

/// A credential helper request that cannot be served.
package struct CredentialError: MessageError, Hashable {
    public let message: String
    init(_ message: String) { self.message = message }
}
