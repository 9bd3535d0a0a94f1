import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// A 0600 file under a unique hidden name in the directory, renamed into place once written.
    struct TemporaryFile {
        let store: FileTokenStore
        let path: String
        let fd: Int32

        init(in store: FileTokenStore) throws {
            self.store = store
            path = store.directory.appendingPathComponent(".\(UUID().uuidString).tmp").path
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw store.systemError("cannot create", path) }
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
                throw store.systemError("cannot reserve room for a session in", store.directory.path, errno: result)
            }
        }

        /// Writes `data` from the start (inside any reserved room), cuts the file to it, and fsyncs.
        func fill(with data: Data) throws {
            try write(data)
            guard fsync(fd) == 0 else { throw store.systemError("cannot write", path) }
        }

        /// Writes `data` from the start (inside any reserved room) and cuts the file to it, without waiting for the disk.
        func write(_ data: Data) throws {
            var written = 0
            let ok = data.withUnsafeBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return true }
                while written < raw.count {
                    let count = pwrite(fd, base.advanced(by: written), raw.count - written, off_t(written))
                    if count < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    written += count
                }
                return true
            }
            guard ok, ftruncate(fd, off_t(data.count)) == 0 else {
                throw store.systemError("cannot write", path)
            }
        }

        /// Renames the file to `destination` first and makes it durable after: a process killed in
        /// between leaves the data at its final name in the page cache, where the next run finds it.
        func installThenSync(at destination: String) throws {
            guard rename(path, destination) == 0 else {
                let error = errno
                close(fd)
                unlink(path)
                throw store.systemError("cannot replace", destination, errno: error)
            }
            try sync(installedAt: destination)
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

        /// Closes the file without touching what is on disk.
        func closeFile() {
            close(fd)
        }

        /// Makes the file, already renamed to `destination`, durable, and closes it.
        func sync(installedAt destination: String) throws {
            let synced = fsync(fd) == 0
            let error = errno
            close(fd)
            store.syncDirectory()
            guard synced else { throw store.systemError("cannot write", destination, errno: error) }
        }

        /// Closes the file and renames it to `destination`, replacing (never following) what is there.
        func install(at destination: String) throws {
            close(fd)
            guard rename(path, destination) == 0 else {
                let error = errno
                unlink(path)
                throw store.systemError("cannot replace", destination, errno: error)
            }
            store.syncDirectory()
        }

        func discard() {
            close(fd)
            unlink(path)
        }
    }
}
