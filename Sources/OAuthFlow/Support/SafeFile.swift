import Foundation
import OAuthFlowFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads small files that a user or another program may have replaced with something odd, as ``RawFile``
/// does (regular files only, never hanging on a FIFO, at most a limit, failures in words), into `Data`,
/// with the path in its errors.
package enum SafeFile {
    /// Why a file could not be read.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        public let path: String
        /// What went wrong, without the path: "it is a named pipe (FIFO), not a regular file; ...".
        public let reason: String
        public let kind: Kind

        /// Missing, too large, not a regular file, or another failure of the system (``RawFile/ReadError/Kind``).
        public typealias Kind = RawFile.ReadError.Kind

        public var description: String { "\(path): \(reason)" }
    }

    /// The file's bytes.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The largest size accepted, in bytes.
    ///   - followLinks: Whether a symbolic link at `path` is followed (`false` refuses it).
    ///   - inspect: Checks the open file's status (its permissions, say) before anything is read;
    ///     what it throws is passed on.
    /// - Throws: ``ReadError``, or what `inspect` throws.
    public static func read(_ path: String, limit: Int, followLinks: Bool = true, inspect: ((stat) throws -> Void)? = nil) throws -> Data {
        do {
            return Data(try RawFile.read(path, limit: limit, followLinks: followLinks, inspect: inspect))
        } catch let error as RawFile.ReadError {
            throw ReadError(path: path, reason: error.reason, kind: error.kind)
        }
    }

    /// "a named pipe (FIFO)", "a directory", ... for anything that is not a regular file; nil for one.
    public static func nonRegularKind(_ mode: mode_t) -> String? { RawFile.nonRegularKind(mode) }

    /// A file's modification time in seconds since 1970, whichever name the platform gives the field.
    public static func modificationTime(of info: stat) -> TimeInterval {
        #if canImport(Darwin)
        Double(info.st_mtimespec.tv_sec)
        #else
        Double(info.st_mtim.tv_sec)
        #endif
    }

    /// The system's error in words, with the cases people meet spelled out.
    public static func explain(_ code: Int32, followLinks: Bool = true) -> String { RawFile.explain(code, followLinks: followLinks) }
}
