import Foundation
import Logging
import OAuthFlow

/// Only same-origin relative paths may be returned to (no open redirect).
public enum ReturnPath {
    /// `path` when it is a same-origin absolute path (`/a/b?c`), else `/`.
    ///
    /// Refused: absolute and scheme-relative URLs (`https://…`, `//host`), backslashes
    /// (browsers read `/\host` as `//host`), control and non-ASCII characters, and
    /// anything longer than 1,024 bytes.
    public static func accept(_ path: String?) -> String {
        guard let path, path.hasPrefix("/"), path.utf8.count <= 1024 else { return "/" }
        let bytes = Array(path.utf8)
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return "/" }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { return "/" }
        // A percent-encoded slash or backslash right after the first one would decode into `//`.
        let lower = path.lowercased()
        if lower.hasPrefix("/%2f") || lower.hasPrefix("/%5c") { return "/" }
        return path
    }
}
