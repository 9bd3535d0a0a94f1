import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that replaces another whole or not at all: written under a unique hidden name in the same
/// directory with mode 0600, fsynced, renamed over the destination (never following a link there),
/// and the directory fsynced so that the rename survives a crash.
///
/// ``write(_:to:in:)`` does all of it at once. A caller that must know it has the room before it has the
/// data (``FileTokenStore/reserve(_:)``) makes one with ``init(in:)``, claims room with ``reserve(_:)``,
/// and installs it later. Failures are ``TokenStoreError`` `io`, naming the path and the system's reason.
struct AtomicFile {
    /// The directory the file is renamed within.
    let directory: URL
    /// Where the file is until it is installed: `.UUID.tmp` in ``directory``.
    let path: String
    let fd: Int32

    /// Creates the temporary file, 0600, refusing to open anything already at its name.
    ///
    /// - Throws: ``TokenStoreError`` `io` when it cannot be created.
    init(in directory: URL) throws {
        self.directory = directory
        path = directory.appendingPathComponent(".\(UUID().uuidString).tmp").path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot create", path) }
    }

    /// Writes `data` to `destination` in `directory` atomically: temporary file, fsync, rename, fsync of the directory.
    ///
    /// - Throws: ``TokenStoreError`` `io`; the temporary file is removed then.
    static func write(_ data: Data, to destination: String, in directory: URL) throws {
        let file = try AtomicFile(in: directory)
        do {
            try file.fill(with: data)
            try file.install(at: destination)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Claims `bytes` of disk now, so that writing up to that much later cannot fail for lack of room.
    func reserve(_ bytes: Int) throws {
        #if canImport(Darwin)
        // Darwin has no posix_fallocate: F_PREALLOCATE claims the blocks for the open file instead.
        var request = fstore_t(
            fst_flags: UInt32(F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE, fst_offset: 0,
            fst_length: off_t(bytes), fst_bytesalloc: 0)
        let result = fcntl(fd, F_PREALLOCATE, &request) == 0 ? 0 : errno
        #else
        let result = posix_fallocate(fd, 0, off_t(bytes))
        #endif
        // Some file systems cannot preallocate; writing will tell then.
        guard result == 0 || result == EOPNOTSUPP || result == ENOTSUP || result == EINVAL else {
            throw Self.failure("cannot reserve room for a session in", directory.path, errno: result)
        }
    }

    /// Writes `data` from the start (inside any reserved room), cuts the file to it, and fsyncs.
    func fill(with data: Data) throws {
        try write(data)
        guard fsync(fd) == 0 else { throw Self.failure("cannot write", path) }
    }

    /// Writes `data` from the start (inside any reserved room) and cuts the file to it, without waiting for the disk.
    func write(_ data: Data) throws {
        guard writeAll(data, at: 0), ftruncate(fd, off_t(data.count)) == 0 else {
            throw Self.failure("cannot write", path)
        }
    }

    /// Writes `data` at `offset`, without waiting for the disk.
    ///
    /// - Returns: false when the system refused.
    func writeAll(_ data: some ContiguousBytes, at offset: Int) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var written = 0
            while written < raw.count, let base = raw.baseAddress {
                let count = pwrite(fd, base.advanced(by: written), raw.count - written, off_t(offset + written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
    }

    /// Closes the file and renames it to `destination`, replacing (never following) what is there.
    func install(at destination: String) throws {
        close(fd)
        guard rename(path, destination) == 0 else {
            let error = errno
            unlink(path)
            throw Self.failure("cannot replace", destination, errno: error)
        }
        Self.syncDirectory(directory)
    }

    /// Renames the file to `destination` first and makes it durable after: a process killed in
    /// between leaves the data at its final name in the page cache, where the next run finds it.
    func installThenSync(at destination: String) throws {
        guard rename(path, destination) == 0 else {
            let error = errno
            close(fd)
            unlink(path)
            throw Self.failure("cannot replace", destination, errno: error)
        }
        try sync(installedAt: destination)
    }

    /// Makes the file, already renamed to `destination`, durable, and closes it.
    func sync(installedAt destination: String) throws {
        let synced = fsync(fd) == 0
        let error = errno
        close(fd)
        Self.syncDirectory(directory)
        guard synced else { throw Self.failure("cannot write", destination, errno: error) }
    }

    /// Closes the file without touching what is on disk.
    func closeFile() {
        close(fd)
    }

    /// Closes the file and removes it from its temporary name.
    func discard() {
        close(fd)
        unlink(path)
    }

    /// Fsyncs `directory`, so that a rename inside it is durable; a directory that cannot be opened is left as it is.
    static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// The error for a system call on `path` that failed with `code`.
    static func failure(_ action: String, _ path: String, errno code: Int32 = errno) -> TokenStoreError {
        TokenStoreError(.io, "\(action) \(path): \(String(cString: strerror(code)))", path: path)
    }
}
