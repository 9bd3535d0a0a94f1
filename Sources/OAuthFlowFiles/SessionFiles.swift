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
}
