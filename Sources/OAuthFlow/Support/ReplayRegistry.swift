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

    /// Whether `identifier` is recorded and has not expired, without recording it.
    ///
    /// - Throws: When the registry cannot be reached.
    func isRecorded(_ identifier: String) async throws -> Bool

    /// Forgets `identifier`, so that its next ``firstUse(of:until:)`` is a first use again: what a holder of a short
    /// claim (an event being handled) does once it is done with it.
    ///
    /// - Throws: When the registry cannot be reached; the identifier then stays recorded until its expiry.
    func forget(_ identifier: String) async throws
}
