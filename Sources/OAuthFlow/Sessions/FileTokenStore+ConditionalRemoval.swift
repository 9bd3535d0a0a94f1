import Foundation
import OAuthFlowFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore {
    /// Removes the session only while its file holds `refreshToken`, and only the file that was compared.
    ///
    /// A sign-in in another process saves without the lock: its file may replace the session file at any moment. So
    /// the file is read with its identity (device and inode), compared, and moved aside under a private name; only when
    /// the file moved aside is the one compared is it deleted. A newer file that landed in between is put back (unless
    /// a newer one still stands there), so it is never the one removed. A refresh record left behind goes with a
    /// removed session, as with ``remove(_:)``.
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        // A record a killed refresh left is made the session first, as every read does.
        guard let current = try await load(key), current.tokens.refreshToken == refreshToken else { return false }
        return try removeComparing(key, whileHolding: refreshToken)
    }

    /// The comparison and the removal of ``remove(_:whileHolding:)``; `between` runs after the comparison (the tests'
    /// other process saving there).
    func removeComparing(_ key: SessionKey, whileHolding refreshToken: Secret?, between: () -> Void = {}) throws -> Bool {
        let path = path(for: key)
        var compared = stat()
        let data: Data
        do {
            data = try SafeFile.read(path, limit: 1 << 20, followLinks: false) { info in compared = info }
        } catch let error as SafeFile.ReadError where error.kind == .missing {
            return false
        }
        guard compared.st_mode & 0o077 == 0, let session = try? Self.decode(data, path: path), session.tokens.refreshToken == refreshToken else {
            return false
        }
        let aside =
            directory.path + "/." + StateFiles.sessionStem(providerID: key.providerID, account: key.account) + "-removing-"
            + UUID().uuidString + ".tmp"
        between()
        guard rename(path, aside) == 0 else {
            if errno == ENOENT { return false }
            throw systemError("cannot remove", path)
        }
        var moved = stat()
        if lstat(aside, &moved) == 0, moved.st_dev == compared.st_dev, moved.st_ino == compared.st_ino {
            unlink(aside)
            unlink(receivedPath(for: key))
            syncDirectory()
            return true
        }
        // Another process saved in between: its session goes back, unless an even newer one stands there by now.
        if link(aside, path) != 0, errno != EEXIST {
            // A file system without hard links: moved back over the path instead.
            rename(aside, path)
        }
        unlink(aside)
        syncDirectory()
        return false
    }
}
