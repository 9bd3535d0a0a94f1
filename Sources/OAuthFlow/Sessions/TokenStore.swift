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

/// Room for one new session, reserved before a refresh token is spent.
public protocol TokenStoreReservation: Sendable {
    /// Records `session`, what may be kept of a refresh answer before its checks, as soon as it arrives.
    ///
    /// A process killed after this and before ``commit(_:)`` loses nothing: the store
    /// hands the recorded session out on its next ``TokenStore/load(_:)``. It holds no
    /// unchecked identity (``TokenSet/keepingRefreshToken(of:)``). Do nothing slow before the
    /// record is where the next run finds it: a kill in that window loses the session.
    func record(_ session: StoredSession) async throws
    /// Prepares, before the refresh request is sent, a synchronous recorder for the token
    /// endpoint's raw answer, called on the thread that read its last byte; nil for stores that
    /// cannot write synchronously (the default), which rely on ``record(_:)``.
    ///
    /// A store that returns one must, if the process dies before ``record(_:)``, make its next
    /// ``TokenStore/load(_:)`` return `session` (the one being refreshed) with the answer's
    /// refresh token, if it has one, and its access token marked expired: the new refresh token
    /// on the verified identity (``TokenSet/keepingRefreshToken(of:)``). ``record(_:)`` follows
    /// all the same; failures are left to it to report.
    func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)?
    /// Makes `session` the stored session.
    func commit(_ session: StoredSession) async throws
    /// Gives the reservation up, dropping anything recorded (the answer failed its checks).
    func abandon() async
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

/// The reservation of a store with nothing to reserve: ``TokenStore/save(_:)`` on commit.
struct SaveOnCommit: TokenStoreReservation {
    let store: any TokenStore
    func record(_ session: StoredSession) async throws {}
    func commit(_ session: StoredSession) async throws { try await store.save(session) }
    func abandon() async {}
}

/// A held lock; release it when done.
public protocol TokenStoreLock: Sendable {
    func release()
}

/// Why a store could not read or write a session.
public struct TokenStoreError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    public typealias Code = ErrorCode<TokenStoreError>

    public let code: Code
    public let message: String
    public let path: String?

    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What failed, in a sentence; never a token or a secret.
    ///   - path: The file or, for a database, the row the error is about; never a secret.
    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { message }
}

/// Sessions in memory, for tests and for apps that keep nothing between launches.
public actor InMemoryTokenStore: TokenStore {
    var sessions: [SessionKey: StoredSession] = [:]

    public init(_ sessions: [StoredSession] = []) {
        for session in sessions { self.sessions[session.key] = session }
    }

    public func load(_ key: SessionKey) -> StoredSession? { sessions[key] }
    public func save(_ session: StoredSession) { sessions[session.key] = session }
    public func remove(_ key: SessionKey) { sessions[key] = nil }

    /// In-process only: the token manager's single-flight refresh already serializes refreshes.
    public nonisolated func lock(_ key: SessionKey) async throws -> any TokenStoreLock { NoLock() }

    private struct NoLock: TokenStoreLock {
        func release() {}
    }
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
