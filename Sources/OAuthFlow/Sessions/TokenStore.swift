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
