import Foundation
import OAuthFlow

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension DescriptorDraft {
    /// What every lint rule says about the draft, as the file `path` (by default `ID.yaml`).
    public func lint(as path: String? = nil) -> [Diagnostic] {
        Linter().lint(text: text, path: path ?? "\(id).yaml")
    }

    /// Writes the draft as `ID.yaml` in `directory` (made when missing), atomically, once it lints clean under
    /// `--strict`.
    ///
    /// - Parameters:
    ///   - directory: Where `ID.yaml` is written.
    ///   - replacing: Whether a file already there is replaced; without it, one is never touched, even if it
    ///     appears while the draft is written.
    /// - Returns: The file written.
    /// - Throws: ``AddProviderError``: `notClean` with the findings, `fileExists`, `io`.
    public func write(into directory: URL, replacing: Bool = false) throws -> URL {
        let file = directory.appendingPathComponent("\(id).yaml", isDirectory: false)
        let findings = lint(as: file.path).filter { $0.severity != .info }
        guard findings.isEmpty else {
            throw AddProviderError(
                .notClean, "the descriptor drafted from \(issuer.absoluteString) does not lint clean, so it was not written", findings: findings)
        }
        if !replacing, FileManager.default.fileExists(atPath: file.path) || Self.somethingIsAt(file.path) {
            throw AddProviderError(
                .fileExists, "\(file.path) already exists; it is replaced only when asked to")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AddProviderError(.io, "cannot create \(directory.path): \(error.localizedDescription)")
        }
        let temporary = directory.appendingPathComponent(".\(id).\(UUID().uuidString).tmp", isDirectory: false).path
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary), options: [.withoutOverwriting])
        } catch {
            throw AddProviderError(.io, "cannot write \(temporary): \(error.localizedDescription)")
        }
        defer { unlink(temporary) }
        var handle = open(temporary, O_RDONLY | O_CLOEXEC)
        if handle >= 0 {
            fsync(handle)
            close(handle)
        }
        // link() fails when the name is taken, at the moment of linking: no check-then-write race. rename() replaces.
        let result = replacing ? rename(temporary, file.path) : link(temporary, file.path)
        guard result == 0 else {
            let code = errno
            if code == EEXIST {
                throw AddProviderError(
                    .fileExists,
                    "\(file.path) already exists; it is replaced only when asked to")
            }
            throw AddProviderError(.io, "cannot write \(file.path): \(String(cString: strerror(code)))")
        }
        handle = open(directory.path, O_RDONLY | O_CLOEXEC)
        if handle >= 0 {
            fsync(handle)
            close(handle)
        }
        return file
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    private static func somethingIsAt(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
