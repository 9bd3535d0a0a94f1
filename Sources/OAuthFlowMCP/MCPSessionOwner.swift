#if MCP
import Foundation
import Logging
import MCP
import OAuthFlow

/// Who a session belongs to: the token's issuer, its subject and the client it was issued to. Another client of the
/// same user, or the same client for another user, is someone else.
struct MCPSessionOwner: Hashable, Sendable {
    let issuer: String
    let subject: String
    /// `client_id` (or `azp`); empty for a token that names no client, which only such tokens of the same user share.
    let clientID: String

    /// Nil for a token that names no subject: nothing then says whose the session is, and every such token would
    /// share one owner.
    init?(_ principal: ProtectedResource.Principal) {
        guard let subject = principal.subject, !subject.isEmpty else { return nil }
        issuer = principal.issuer
        self.subject = subject
        clientID = principal.clientID ?? ""
    }
}
#endif
