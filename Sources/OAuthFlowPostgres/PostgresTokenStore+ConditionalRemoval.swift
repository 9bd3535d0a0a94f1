#if Postgres
import Foundation
import NIOCore
import OAuthFlow
import PostgresNIO

extension PostgresTokenStore {
    /// Removes the session only while its row holds `refreshToken`, in one statement that no save can fall into.
    ///
    /// The row is read and opened, its refresh token compared, and the row deleted only while it still holds the very
    /// sealed bytes that were read (every save seals anew, under a fresh nonce) and no refresh answer is recorded beside
    /// them: a session another instance saved since, or is refreshing, stays.
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        // A session an instance that died recorded is made the row's session first, as every read does.
        guard let current = try await load(key), current.tokens.refreshToken == refreshToken else { return false }
        let row = try await withDeadline("read the session \(key)") {
            try await self.client.query(
                """
                SELECT key_id, sealed FROM \(unescaped: self.table)
                 WHERE provider_id = \(key.providerID) AND account = \(key.account) AND received IS NULL
                """, logger: self.logger
            ).collect().first
        }
        guard let row, let (keyID, sealed) = try? row.decode((String, ByteBuffer).self),
            (try? open(sealed, keyID: keyID, key: key))?.tokens.refreshToken == refreshToken
        else { return false }
        let deleted = try await withDeadline("remove the session \(key)") {
            try await self.client.query(
                """
                DELETE FROM \(unescaped: self.table)
                 WHERE provider_id = \(key.providerID) AND account = \(key.account) AND key_id = \(keyID) AND sealed = \(sealed)
                   AND received IS NULL
                RETURNING 1
                """, logger: self.logger
            ).collect().count
        }
        return deleted > 0
    }
}
#endif
