import Foundation

/// Identifiers seen (a logout token's `jti`, a DPoP proof's), each kept until a token carrying it
/// would be refused anyway, so that a replay is recognised. Share one between instances (PostgreSQL,
/// `OAuthFlowPostgres`) when any instance may receive the replay.
public protocol ReplayRegistry: Sendable {
    /// Records `identifier` until `expiry`.
    ///
    /// - Returns: False when it was already recorded and has not expired: a replay.
    /// - Throws: When the registry cannot be reached; the caller must then refuse the token.
    func firstUse(of identifier: String, until expiry: Date) async throws -> Bool
}
