#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
import MachO  // _NSGetExecutablePath (<mach-o/dyld.h>), which Darwin does not export
#endif

/// Reads small files that a user or another program may have replaced with something odd.
///
/// - Only regular files are read. A named pipe, a device (`/dev/zero`), a socket or a directory is
///   refused at once with a sentence naming what it is: the file is opened with `O_NONBLOCK`, so
///   opening a FIFO with no writer cannot hang.
/// - At most `limit` bytes are read; a larger file is refused, not truncated.
/// - Failures say what the system said in words (a symbolic link loop is not "no such file").
public enum RawFile {
    /// Why a file could not be read.
    public struct ReadError: Error, Sendable, Hashable {
        /// What went wrong, without the path: "it is a named pipe (FIFO), not a regular file; ...".
        public let reason: String
        public let kind: Kind

        public enum Kind: Sendable, Hashable {
            /// Nothing is at the path.
            case missing
            /// The file is larger than the limit.
            case tooLarge
            /// A pipe, a device, a directory, a socket, or a symbolic link not followed.
            case notRegularFile
            /// Any other failure of the system.
            case system
        }

        public init(reason: String, kind: Kind) {
            self.reason = reason
            self.kind = kind
        }
    }

    /// The file's bytes.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - directory: An open directory a relative `path` is read in (`openat`), rather than the working directory:
    ///     a folder's files read by name, with no walk of the folder's own path for each.
    ///   - limit: The largest size accepted, in bytes.
    ///   - followLinks: Whether a symbolic link at `path` is followed (`false` refuses it).
    ///   - inspect: Checks the open file's status (its permissions, say) before anything is read; what it
    ///     throws is passed on.
    /// - Throws: ``ReadError``, or what `inspect` throws.
    public static func read(
        _ path: String, in directory: Int32 = AT_FDCWD, limit: Int, followLinks: Bool = true, inspect: ((stat) throws -> Void)? = nil
    ) throws -> [UInt8] {
        var flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC
        if !followLinks { flags |= O_NOFOLLOW }
        let fd = openat(directory, path, flags)
        guard fd >= 0 else {
            let code = errno
            throw ReadError(
                reason: explain(code, followLinks: followLinks),
                kind: code == ENOENT ? .missing : code == ELOOP && !followLinks ? .notRegularFile : .system)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ReadError(reason: explain(errno, followLinks: followLinks), kind: .system) }
        if let kind = nonRegularKind(info.st_mode) {
            throw ReadError(reason: "it is \(kind), not a regular file; only regular files are read", kind: .notRegularFile)
        }
        try inspect?(info)
        if Int(info.st_size) > limit {
            throw ReadError(reason: "it is \(info.st_size) bytes, more than the \(limit) accepted", kind: .tooLarge)
        }
        // Straight into the array, for a file of the size it had at `fstat` and a byte more, to see the end; then
        // more if it grew. At least a page: a file that reports no size (in /proc, say) is not read a byte at a time.
        var failure: Int32 = 0
        var filled = false
        let size = Int(info.st_size)
        let capacity = min(max(size + 1, 4_096), limit < Int.max ? limit + 1 : limit)
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            while count < buffer.count {
                let asked = buffer.count - count
                let read = systemRead(fd, buffer.baseAddress.map { $0 + count }, asked)
                if read < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    failure = errno
                    return
                }
                if read == 0 { return }
                count += read
                // A read that stopped short exactly at the size `fstat` gave is at the end: the read that would
                // return nothing to say so is left out (a system call for every file lint reads). A short read
                // anywhere else (a network or FUSE file system's) is read on.
                if read < asked, size > 0, count == size { return }
            }
            filled = true
        }
        if failure != 0 { throw ReadError(reason: explain(failure, followLinks: followLinks), kind: .system) }
        var buffer = [UInt8](repeating: 0, count: filled ? 65_536 : 0)
        while filled {
            if bytes.count > limit { throw ReadError(reason: "it is larger than the \(limit) bytes accepted", kind: .tooLarge) }
            let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ReadError(reason: explain(errno, followLinks: followLinks), kind: .system)
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        if bytes.count > limit { throw ReadError(reason: "it is larger than the \(limit) bytes accepted", kind: .tooLarge) }
        return bytes
    }

    /// "a named pipe (FIFO)", "a directory", ... for anything that is not a regular file; nil for one.
    public static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// The system's error in words, with the cases people meet spelled out.
    public static func explain(_ code: Int32, followLinks: Bool = true) -> String {
        switch code {
        case ENOENT: "no such file or directory"
        case ELOOP: followLinks ? "too many levels of symbolic links (a symbolic link loop?)" : "it is a symbolic link; refusing to follow it"
        case EACCES: "permission denied"
        case EISDIR: "it is a directory, not a regular file"
        case ENOTDIR: "a part of the path is not a directory"
        default: String(cString: strerror(code))
        }
    }

    /// Whether `path` is a directory only its owner may use, and not a symbolic link; nil when nothing is there.
    public static func isPrivateDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? nil : false }
        return (info.st_mode & S_IFMT) == S_IFDIR && info.st_mode & 0o077 == 0
    }

    /// The bytes of `path`, a file beside the sessions in `directory`, read as a session file is: the directory private,
    /// the file regular, not a link, private, at most `limit` bytes. Nil when it is absent or anything about it is odd.
    public static func readPrivate(_ path: String, in directory: String, limit: Int) -> [UInt8]? {
        guard isPrivateDirectory(directory) == true else { return nil }
        return try? read(
            path, limit: limit, followLinks: false,
            inspect: { info in if info.st_mode & 0o077 != 0 { throw ReadError(reason: "not private", kind: .system) } })
    }

    /// `path` with every symbolic link and `.` or `..` resolved; nil when it cannot be.
    public static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// This process's executable, resolved: on Linux through /proc, elsewhere through the loader.
    public static func ownExecutable() -> String? {
        #if canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: 4096)
        var size = UInt32(buffer.count)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        return resolved(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        #else
        return resolved("/proc/self/exe")
        #endif
    }

    /// Whether something (anything, a dangling link included) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }
}

/// `read(2)`, under a name the static `read` does not hide.
@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
