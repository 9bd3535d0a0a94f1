import CoreMetrics
import Foundation
import OAuthFlowFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sessions as JSON files, one per provider and account, safe against crashes and other users: private (0700 and
/// 0600), written atomically, never through a symbolic link, and locked across processes (``lock(_:)``).
public struct FileTokenStore: TokenStore {
    public let directory: URL
    /// The wall clock, for naming set-aside files and ageing abandoned ones.
    public let clock: any DateClock
    /// Counts the refresh answers recovered after a crash (`oauthflow_refreshes_total`, `outcome` `recovered`).
    let instruments: Instruments

    /// - Parameters:
    ///   - directory: Where the files live, created 0700 when first needed. ``standardDirectory(environment:)`` is
    ///     the one the `oauthflow` command uses.
    ///   - clock: The wall clock, for naming set-aside files.
    ///   - metrics: Receives the count of refresh answers recovered after a crash (Docs/operations.md); none by default.
    public init(directory: URL, clock: any DateClock = SystemDateClock(), metrics: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.directory = directory
        self.clock = clock
        instruments = Instruments.counting(metrics)
    }

    /// `$XDG_STATE_HOME/oauthflow` (`~/.local/state/oauthflow`) of `environment`: where the `oauthflow` command
    /// keeps sessions, for a host that shares them.
    ///
    /// - Parameter environment: The variables to read; `ProcessInfo.processInfo.environment` for the process's.
    public static func standardDirectory(environment: [String: String]) -> URL {
        XDGDirectory.state(environment: environment).appendingPathComponent("oauthflow", isDirectory: true)
    }

    /// The file a session is stored in.
    public func path(for key: SessionKey) -> String {
        basePath(for: key) + ".json"
    }

    /// `DIRECTORY/PROVIDER--ACCOUNT`, the stem of a session's file, lock file and pending authorization.
    private func basePath(for key: SessionKey) -> String {
        directory.appendingPathComponent(StateFiles.sessionStem(providerID: key.providerID, account: key.account), isDirectory: false).path
    }

    /// Maps a name to a safe file name component (``StateFiles/fileComponent(_:)``).
    static func fileComponent(_ name: String) -> String {
        StateFiles.fileComponent(name)
    }

    public func load(_ key: SessionKey) async throws -> StoredSession? {
        let path = path(for: key)
        // The directory is held to the same rules when reading as when writing: a 0755 or
        // symbolically linked directory is refused, not read from.
        guard try checkDirectory() else { return nil }
        if let recovered = try recoverReceived(key) { return recovered }
        guard let data = try readPrivateFile(path) else { return nil }
        if RefreshAnswerRecord.isRecord(data) {
            // A record renamed over the session file by an earlier OAuthFlow's recovery: read it as the
            // session it says to keep, and put that session in its place for every later reader.
            let contents = try RefreshAnswerRecord.contents(of: data, path: path, decode: Self.decode)
            let session = contents.sessionToKeep
            guard session.key == key else { throw TokenStoreError(.corrupt, "\(path) holds the session of \(session.key)", path: path) }
            try withRecoveryExclusion(key) {
                // Rewritten only if no one replaced it meanwhile.
                guard let again = try readPrivateFile(path), again == data else { return }
                try writePrivateFile(try Self.encode(session), to: path)
            }
            return session
        }
        return try Self.decode(data, path: path)
    }

    /// Moves an unreadable session file to `NAME.json.corrupt-TIMESTAMP` beside it, 0600.
    ///
    /// - Returns: The new path, or nil when the session file is absent or readable.
    public func setAsideCorruptSession(_ key: SessionKey) async throws -> String? {
        do {
            _ = try await load(key)
            return nil
        } catch let error as TokenStoreError where error.code == .corrupt {
            let path = path(for: key)
            let kept = path + ".corrupt-" + String(Int(clock.now().timeIntervalSince1970))
            guard rename(path, kept) == 0 else { throw systemError("cannot set aside the unreadable", path) }
            syncDirectory()
            return kept
        } catch {
            // Missing directory rights, a link in the way: saving reports these itself.
            return nil
        }
    }

    /// Reads a private file: nil when absent; refuses links, non-regular files and loose permissions.
    package func readPrivateFile(_ path: String) throws -> Data? {
        do {
            return try SafeFile.read(path, limit: 1 << 20, followLinks: false) { info in
                try requirePrivate(info, path, expected: "600")
            }
        } catch let error as SafeFile.ReadError {
            switch error.kind {
            case .missing: return nil
            case .notRegularFile: throw TokenStoreError(.notARegularFile, "\(path): \(error.reason); refusing to read it", path: path)
            case .tooLarge: throw TokenStoreError(.corrupt, "\(path) is larger than 1 MiB; it is not a session file (left in place)", path: path)
            case .system: throw TokenStoreError(.io, "cannot read \(path): \(error.reason)", path: path)
            }
        }
    }

    /// Saves a session. An unreadable session file in its place is first set aside
    /// (``setAsideCorruptSession(_:)``), never overwritten.
    public func save(_ session: StoredSession) async throws {
        _ = try await setAsideCorruptSession(session.key)
        try writePrivateFile(try Self.encode(session), to: path(for: session.key))
    }

    static func encode(_ session: StoredSession) throws -> Data {
        try session.encoded(readable: true)
    }

    static func decode(_ data: Data, path: String) throws -> StoredSession {
        let session: StoredSession
        do {
            session = try StoredSession.decoded(from: data)
        } catch {
            throw TokenStoreError(
                .corrupt, "\(path) is not a readable session (\(StoredSession.unreadableReason(data, error))); it was left in place for inspection",
                path: path)
        }
        guard session.formatVersion == StoredSession.currentFormatVersion else {
            throw TokenStoreError(
                .corrupt, "\(path) has session format \(session.formatVersion); this OAuthFlow reads \(StoredSession.currentFormatVersion)",
                path: path)
        }
        return session
    }

    /// Writes a file of the host's own (a cache, a memo) into ``directory``, as sessions are written: 0600, atomically
    /// (temporary file, fsync, rename, fsync of the directory).
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - name: A file name ending in `.memo`, not a path: no name the store gives its own files (sessions, their locks
    ///     and kept copies, pending sign-ins) ends so, on a file system that ignores case too.
    /// - Throws: ``TokenStoreError`` `unavailable` for any other name, and what writing throws.
    public func writePrivateFile(_ data: Data, named name: String) throws {
        let stem = name.dropLast(5)
        guard name.hasSuffix(".memo"), !stem.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.contains("\0") else {
            throw TokenStoreError(
                .unavailable,
                "\(TerminalText.quoted(name)) is not a file name a host may write beside the sessions: give a plain name ending in `.memo`",
                path: directory.path)
        }
        try writePrivateFile(data, to: directory.path + "/" + name)
    }

    /// Writes a 0600 file atomically (``AtomicFile``): temporary file, fsync, rename, fsync of the directory.
    package func writePrivateFile(_ data: Data, to path: String) throws {
        try ensureDirectory()
        try AtomicFile.write(data, to: path, in: directory)
        removeAbandonedTemporaryFiles()
    }

    // MARK: - Reserving room before a refresh token is spent

    /// Where a refreshed session waits between arriving and being committed: `NAME.received.json`.
    func receivedPath(for key: SessionKey) -> String {
        basePath(for: key) + ".received.json"
    }

    /// Creates the session's next files now and claims disk room for them (64 KiB each, or twice
    /// the current session), so that a read-only directory or a full disk is found before the
    /// refresh token is spent, not after.
    public func reserve(_ key: SessionKey) async throws -> any TokenStoreReservation {
        try ensureDirectory()
        var info = stat()
        let room = max(64 * 1024, 2 * (lstat(path(for: key), &info) == 0 ? Int(info.st_size) : 0))
        let received = try AtomicFile(in: directory)
        let committed: AtomicFile
        do {
            try received.reserve(room)
            committed = try AtomicFile(in: directory)
        } catch {
            received.discard()
            throw error
        }
        do {
            try committed.reserve(room)
        } catch {
            received.discard()
            committed.discard()
            throw error
        }
        // The first JSON encoding in a process is slow (type metadata, conformances); pay for it
        // now, not between the answer's arrival and its record.
        _ = try? Self.encode(
            StoredSession(
                key: key, variables: [:], clientID: "", redirectURI: directory,
                tokens: TokenSet(
                    accessToken: Secret(""), tokenType: "", expiresAt: nil, refreshToken: nil,
                    idToken: nil, scopes: [], issuedAt: Date()), updatedAt: Date()))
        return Reservation(store: self, received: received, committed: committed, key: key)
    }

    /// What a refresh recorded and did not live to commit.
    ///
    /// The record holds only what may be kept before the checks (``TokenSet/keepingRefreshToken(of:)``).
    /// Under the session's lock (or, when another process holds it, not at all: that refresher reads
    /// and commits the record itself), the session it says to keep is written over the session file
    /// as a plain session, atomically, and the record is dropped: every later reader, in any process,
    /// reads the session file as it reads any other. The record is dropped without that when the
    /// session file already holds its refresh token (the refresh committed and died before tidying
    /// up), or holds another session than the one refreshed (signed in again since).
    /// - Returns: The recovered session, or nil when there is none.
    private func recoverReceived(_ key: SessionKey) throws -> StoredSession? {
        let received = receivedPath(for: key)
        let first: Data
        do {
            guard let data = try readPrivateFile(received) else { return nil }
            first = data
        } catch let error as TokenStoreError where error.code == .corrupt {
            // Larger than any record: not one a refresh wrote. Set aside, so that it does not stop every command.
            setAside(received)
            return nil
        }
        // No answer in it yet: a refresh in flight (or one that died before its answer) owns it.
        // (One that cannot be read is set aside under the lock below.)
        if let contents = try? Self.received(first, path: received), contents.kept == nil { return nil }
        var recovered: StoredSession?
        try withRecoveryExclusion(key) {
            // Read again now that no other process can be refreshing: the last holder may have finished it.
            guard let data = try readPrivateFile(received) else { return }
            guard let (kept, spent) = try? Self.received(data, path: received), kept?.key ?? key == key else {
                setAside(received)
                return
            }
            guard let kept else { return }
            let sessionPath = path(for: key)
            let current = try? readPrivateFile(sessionPath).map { try Self.decode($0, path: sessionPath) }
            if let current, current.tokens.refreshToken == kept.tokens.refreshToken || spent.map({ current.tokens.refreshToken != $0 }) ?? false {
                // Committed already, or superseded by a later sign-in: the session file is the session.
                unlink(received)
                syncDirectory()
                recovered = current
                return
            }
            try writePrivateFile(try Self.encode(kept), to: sessionPath)
            unlink(received)
            syncDirectory()
            instruments.count(.refreshes, key.providerID, "recovered", Instruments.none)
            recovered = kept
        }
        return recovered
    }

    /// What `NAME.received.json` holds: the session to keep (nil while no answer arrived) and the
    /// refresh token the refresh spent, when the file says (a raw answer's record does; a session
    /// recorded after parsing does not).
    private static func received(_ data: Data, path: String) throws -> (kept: StoredSession?, spent: Secret??) {
        guard RefreshAnswerRecord.isRecord(data) else { return (try decode(data, path: path), nil) }
        let contents = try RefreshAnswerRecord.contents(of: data, path: path, decode: decode)
        return (contents.answered ? contents.sessionToKeep : nil, .some(contents.refreshing.tokens.refreshToken))
    }

    /// Moves a file that cannot be used to `PATH.corrupt-TIMESTAMP` beside it.
    private func setAside(_ path: String) {
        rename(path, path + ".corrupt-" + String(Int(clock.now().timeIntervalSince1970)))
    }

    /// The session locks this process holds, by lock file: a task of this process that holds one
    /// (a refresh re-reading the session under it) may recover under it.
    private static let heldLocks = Locked<[String: Int]>([:])

    /// Runs `body` where no other process refreshes the session: under the session's lock, taken
    /// without waiting, or under the one this process already holds. When another process holds
    /// it, `body` does not run (that process finishes what `body` would have done).
    private func withRecoveryExclusion(_ key: SessionKey, _ body: () throws -> Void) throws {
        let lockPath = path(for: key) + ".lock"
        if Self.heldLocks.withLock({ $0[lockPath, default: 0] > 0 }) {
            try body()
            return
        }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw systemError("cannot open the lock file", lockPath) }
        defer { close(fd) }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            guard errno == EWOULDBLOCK else { throw systemError("cannot lock", lockPath) }
            return
        }
        defer { flock(fd, LOCK_UN) }
        try body()
    }

    /// Deletes temporary files that a writer killed mid-save left behind.
    ///
    /// Only files more than an hour old are touched, so another process's save in
    /// progress is never disturbed.
    func removeAbandonedTemporaryFiles(olderThan age: TimeInterval = 3600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let cutoff = clock.now().addingTimeInterval(-age).timeIntervalSince1970
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, SafeFile.modificationTime(of: info) < cutoff else { continue }
            unlink(path)
        }
    }

    /// `DIRECTORY/PROVIDER--ACCOUNT` plus `suffix`: a file that belongs with a session.
    func companionPath(for key: SessionKey, suffix: String) -> String {
        basePath(for: key) + suffix
    }

    /// Reads a private file in the directory (nil when the directory or the file is absent).
    func readCompanion(_ path: String) throws -> Data? {
        guard try checkDirectory() else { return nil }
        return try readPrivateFile(path)
    }

    public func remove(_ key: SessionKey) async throws {
        // The record a refresh left behind goes too: it must not bring the session back.
        if let code = SessionFiles.remove(providerID: key.providerID, account: key.account, directory: directory.path) {
            throw systemError("cannot remove", path(for: key), errno: code)
        }
    }

    public func lock(_ key: SessionKey) async throws -> any TokenStoreLock {
        try ensureDirectory()
        let path = path(for: key) + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw systemError("cannot open the lock file", path)
        }
        // Poll rather than block, so waiting never ties up a thread of the cooperative pool.
        var delay: UInt64 = 1_000_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = errno
                close(fd)
                throw systemError("cannot lock", path, errno: error)
            }
            do {
                try await Task.sleep(nanoseconds: delay)
            } catch {
                close(fd)
                throw error
            }
            delay = min(delay * 2, 50_000_000)
        }
        Self.heldLocks.withLock { $0[path, default: 0] += 1 }
        return FileLock(fd: fd, path: path)
    }

    private struct FileLock: TokenStoreLock {
        let fd: Int32
        let path: String
        func release() {
            FileTokenStore.heldLocks.withLock { held in
                held[path, default: 1] -= 1
                if held[path] == 0 { held[path] = nil }
            }
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// Checks an existing directory is private and not a link.
    ///
    /// - Returns: false when there is no directory (so no session either).
    private func checkDirectory() throws -> Bool {
        let path = directory.path
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw systemError("cannot inspect", path) }
            return false
        }
        try requirePrivateDirectory(info, path)
        return true
    }

    private func requirePrivateDirectory(_ info: stat, _ path: String) throws {
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw TokenStoreError(.notARegularFile, "\(path) is not a directory (a symbolic link?); refusing to store tokens there", path: path)
        }
        try requirePrivate(info, path, expected: "700")
    }

    /// Creates the directory 0700, or checks an existing one is a private directory and not a link.
    private func ensureDirectory() throws {
        let path = directory.path
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw systemError("cannot inspect", path)
            }
            try FileManager.default.createDirectory(atPath: directory.deletingLastPathComponent().path, withIntermediateDirectories: true)
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw systemError("cannot create", path)
            }
            guard lstat(path, &info) == 0 else {
                throw systemError("cannot inspect", path)
            }
        }
        try requirePrivateDirectory(info, path)
    }

    /// Refuses a file or directory that group or others may read, naming the chmod that fixes it.
    private func requirePrivate(_ info: stat, _ path: String, expected: String) throws {
        guard info.st_mode & 0o077 == 0 else {
            throw TokenStoreError(
                .insecurePermissions,
                "\(path) has permissions \(String(info.st_mode & 0o777, radix: 8)); it holds tokens and must be \(expected) (chmod \(expected) \(path))",
                path: path)
        }
    }

    /// An `io` error for a failed system call, with the system's reason.
    func systemError(_ action: String, _ path: String, errno code: Int32 = errno) -> TokenStoreError {
        AtomicFile.failure(action, path, errno: code)
    }

    func syncDirectory() {
        AtomicFile.syncDirectory(directory)
    }
}
