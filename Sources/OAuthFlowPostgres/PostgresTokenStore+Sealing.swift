#if Postgres
import Foundation
import NIOCore
import OAuthFlow

/// Sealing at rest: each session is sealed with AES-256-GCM under the keyring's current key
/// (`SessionKeyring`), bound to its own row; the row keeps the key id, so rows sealed before a
/// rotation still open.
extension PostgresTokenStore {
    /// The authenticated context of a row: a sealed session opens only in its own row.
    private static func context(_ key: SessionKey) -> Data {
        Data("oauthflow-session-v1\u{0}\(key.providerID)\u{0}\(key.account)".utf8)
    }

    func seal(_ session: StoredSession) throws -> (keyID: String, sealed: ByteBuffer) {
        try seal(try Self.encode(session), key: session.key)
    }

    func seal(_ plaintext: Data, key: SessionKey) throws -> (keyID: String, sealed: ByteBuffer) {
        let (keyID, sealed) = try keyring.seal(plaintext, context: Self.context(key))
        return (keyID, ByteBuffer(bytes: sealed))
    }

    static func encode(_ session: StoredSession) throws -> Data {
        try session.encoded()
    }

    /// The session sealed in a row, or a recorded refresh answer read as the session it says to keep.
    ///
    /// - Throws: `TokenStoreError` `corrupt` when it does not open under its key and row, or is not a
    ///   session this version reads; the row is left in place.
    func open(_ sealed: ByteBuffer, keyID: String, key: SessionKey) throws -> StoredSession {
        let plaintext: Data
        do {
            plaintext = try keyring.open(Data(sealed.readableBytesView), keyID: keyID, context: Self.context(key))
        } catch {
            throw TokenStoreError(.corrupt, "the stored session \(key) in \(table) \(error); it was left in place", path: "\(table)/\(key)")
        }
        // A recorded refresh answer (RefreshAnswerRecord) reads as the session it says to keep.
        let decoded = try? RefreshAnswerRecord.session(in: plaintext, path: "\(table)/\(key)") { json, _ in
            try StoredSession.decoded(from: json)
        }
        guard let session = decoded ?? nil, session.key == key,
            session.formatVersion == StoredSession.currentFormatVersion
        else {
            throw TokenStoreError(
                .corrupt, "the stored session \(key) in \(table) is not a session this OAuthFlow reads; it was left in place",
                path: "\(table)/\(key)")
        }
        return session
    }
}
#endif
