/// Removing a stored session's files, as ``FileTokenStore`` and the launcher's `credential git erase` do.
public enum SessionFiles {
    /// Removes `DIRECTORY/STEM.json` and the refresh record `STEM.received.json` beside it (which must not bring
    /// the session back), then syncs the directory. An absent file is not an error.
    ///
    /// - Returns: The `errno` of a failed removal of the session file, or nil.
    public static func remove(providerID: String, account: String, directory: String) -> Int32? {
        let stem = directory + "/" + StateFiles.sessionStem(providerID: providerID, account: account)
        if unlink(stem + ".json") != 0, errno != ENOENT { return errno }
        unlink(stem + ".received.json")
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        return nil
    }

    /// Removes the session as ``remove(providerID:account:directory:)`` does, under the session's lock
    /// (`STEM.json.lock`, the one `FileTokenStore`'s refreshes and sign-outs hold), waiting for it: a refresh under way
    /// in another process finishes first, and is not written back after the removal. For a process that holds no lock
    /// of its own on the session (the launcher's `credential git erase`); a holder of the lock calls
    /// ``remove(providerID:account:directory:)``, since a second lock of the file in one process would wait for ever.
    ///
    /// - Returns: The `errno` of a failed lock or removal, or nil.
    public static func removeLocked(providerID: String, account: String, directory: String) -> Int32? {
        // The directory itself, not a link to one: the lock file is made in it.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directoryFD >= 0 else { return errno }
        defer { close(directoryFD) }
        let lockName = StateFiles.sessionStem(providerID: providerID, account: account) + ".json.lock"
        let fd = openat(directoryFD, lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var result: Int32
        // blocks: the launcher's main thread, in a process of its own with no task pool, waits for the refresh to finish.
        repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
        guard result == 0 else { return errno }
        defer { flock(fd, LOCK_UN) }
        return remove(providerID: providerID, account: account, directory: directory)
    }
}
