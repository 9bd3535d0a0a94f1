import Foundation

/// Where sessions are kept between runs.
///
/// Implementations must replace a session atomically: a reader sees the old
/// session or the new one, never a mix, an empty file or nothing.
public protocol TokenStore: Sendable {
    /// The stored session, or nil when there is none.
    func load(_ key: SessionKey) async throws -> StoredSession?
    /// Stores a session, replacing any previous one for its key.
    func save(_ session: StoredSession) async throws
    /// Removes a session; removing one that does not exist is not an error.
    func remove(_ key: SessionKey) async throws
    /// Removes the session only while it still holds `refreshToken`: a compare-and-delete.
    ///
    /// A token manager calls this, under ``lock(_:)``, when the server rejected the refresh token it sent
    /// (`invalid_grant`): a session another process saved meanwhile (one that won a refresh race, a new sign-in) holds
    /// another refresh token and stays. A store shared by several processes compares and deletes in one step, so that a
    /// session saved between the comparison and the deletion is never the one deleted.
    ///
    /// - Parameters:
    ///   - key: Which session.
    ///   - refreshToken: The refresh token the caller sent; nil for a session that holds none.
    /// - Returns: Whether a session was removed: false when there was none, or it holds another refresh token.
    func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool
    /// Takes an exclusive lock on one session, across processes where the store is shared.
    ///
    /// Token managers hold it while they refresh, so that two processes never spend
    /// the same rotating refresh token.
    func lock(_ key: SessionKey) async throws -> any TokenStoreLock

    /// Makes sure a new session for `key` can be stored, before anything irreversible happens.
    ///
    /// A token manager calls this before it spends a refresh token: a rotating server
    /// invalidates the old refresh token as soon as it answers, so tokens that cannot be
    /// saved are a lost session. Stores that can fail to write (a full disk, a read-only
    /// directory) find out here and throw.
    func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation
}

extension TokenStore {
    /// Reads the session, compares its refresh token and removes it: one step only for writers that hold ``lock(_:)``
    /// (the caller holds it). A store whose sessions are also written without the lock (a sign-in saves without it)
    /// implements it as one step of its own, as every store of OAuthFlow does.
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        guard let current = try await load(key), current.tokens.refreshToken == refreshToken else { return false }
        try await remove(key)
        return true
    }

    /// Stores that cannot run out of room reserve nothing: committing is saving.
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation {
        SaveOnCommit(store: self)
    }
}

extension TokenStoreReservation {
    public func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)? { nil }
}

extension ErrorCode where Domain == TokenStoreError {
    /// The stored data cannot be decoded; the file is left in place for inspection.
    public static let corrupt = Self("corrupt")
    /// The file or directory has permissions that let others read it.
    public static let insecurePermissions = Self("insecure_permissions")
    /// A symbolic link or another non-regular file stands where the session should be.
    public static let notARegularFile = Self("not_a_regular_file")
    /// A system call failed.
    public static let io = Self("io")
    /// The store's server could not be reached or did not answer in time; nothing was changed.
    public static let unavailable = Self("unavailable")
}

extension TokenStoreError: CodedError {}
