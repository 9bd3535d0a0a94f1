#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `oauthflow providers list` printed, with the identity of everything it read, so that the launcher prints the
/// same bytes again while nothing has changed, without starting the full command.
public struct ProviderListMemo: Sendable, Hashable {
    /// The command's arguments after the executable's name.
    public var arguments: [String]
    /// Whether standard output and standard error were terminals (what is escaped depends on it).
    public var terminals: [Bool]
    /// The full command's file, resolved, and its identity.
    public var fullCommand: String
    public var fullCommandIdentity: String
    /// `$XDG_CONFIG_HOME` (or `~/.config`), which names the user's descriptor directory.
    public var configHome: String
    /// The descriptor directories read, in order, and their fingerprint (``fingerprint(of:)``).
    public var directories: [String]
    public var fingerprint: Fingerprint
    /// What was written to standard output and standard error (slices of the file's bytes when read: nothing is copied).
    public var output: ArraySlice<UInt8>
    public var errors: ArraySlice<UInt8>

    /// The identity of some directories and of every entry in each, as bytes to compare, and the latest change time
    /// (seconds since 1970) among them.
    public struct Fingerprint: Sendable, Hashable {
        public var bytes: ArraySlice<UInt8>
        public var latestChange: Int

        public init(bytes: ArraySlice<UInt8>, latestChange: Int) {
            self.bytes = bytes
            self.latestChange = latestChange
        }
    }

    public init(
        arguments: [String], terminals: [Bool], fullCommand: String, fullCommandIdentity: String, configHome: String, directories: [String],
        fingerprint: Fingerprint, output: ArraySlice<UInt8>, errors: ArraySlice<UInt8>
    ) {
        self.arguments = arguments
        self.terminals = terminals
        self.fullCommand = fullCommand
        self.fullCommandIdentity = fullCommandIdentity
        self.configHome = configHome
        self.directories = directories
        self.fingerprint = fingerprint
        self.output = output
        self.errors = errors
    }

    static let header = "oauthflow providers-list memo 4"
    /// The largest memo read: a listing of many thousands of descriptors.
    static let maximumSize = 8 * 1024 * 1024

    /// The memo's file name in the session directory.
    public static let fileName = "providers-list.memo"

    /// `DIRECTORY/providers-list.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/" + fileName }

    /// The arguments the memo is kept for: a plain listing, as a table or as JSON. Any flag that changes what is read
    /// (`--providers-dir`, whose relative paths depend on the working directory) or logged (`--verbose`) is not.
    public static func remembers(_ arguments: [String]) -> Bool {
        arguments == ["providers", "list"] || arguments == ["providers", "list", "--json"]
    }

    /// For each of `directories`: its path, then `A` when it is absent, or `P`, its identity and each entry's name and identity (a
    /// descriptor, the bundled index, a subdirectory: whatever is there), in the order the directory lists them; nil
    /// when one cannot be inspected. An identity is seven 64-bit numbers as the machine stores them (device, inode, size,
    /// and modification and change times to the nanosecond): the bytes are compared, never read back. A directory that
    /// lists the same entries in another order gives other bytes, so the listing goes to the full command, which is
    /// never wrong, only slower. Each entry is inspected relative to its directory (`fstatat`), following a symbolic
    /// link as the reader does.
    public static func fingerprint(of directories: [String]) -> Fingerprint? {
        var bytes: [UInt8] = []
        let latest = walk(directories) { piece in
            bytes.append(contentsOf: piece)
            return true
        }
        return latest.map { Fingerprint(bytes: bytes[...], latestChange: $0) }
    }

    /// Whether ``fingerprint(of:)`` of `directories` would be `expected`, compared piece by piece as the directories
    /// are read, without making it: the launcher's check, which stops at the first difference.
    static func fingerprint(of directories: [String], matches expected: ArraySlice<UInt8>) -> Bool {
        var offset = 0
        let walked = expected.withUnsafeBytes { recorded in
            walk(directories) { piece in
                guard piece.count <= recorded.count - offset else { return false }
                if let base = recorded.baseAddress, let bytes = piece.baseAddress, memcmp(base + offset, bytes, piece.count) != 0 {
                    return false
                }
                offset += piece.count
                return true
            }
        }
        return walked != nil && offset == expected.count
    }

    /// Reads `directories` in the fingerprint's order, handing each piece of it to `take`, which returns false to stop.
    /// Returns the latest change time (seconds since 1970) among them; nil when one cannot be inspected or `take`
    /// stopped.
    private static func walk(_ directories: [String], _ take: (UnsafeRawBufferPointer) -> Bool) -> Int? {
        var latest = 0
        var info = stat()
        let newline: UInt8 = 0x0A
        func identity() -> Bool {
            #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
            #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
            #endif
            let identity: (Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (
                Int64(truncatingIfNeeded: info.st_dev), Int64(truncatingIfNeeded: info.st_ino), Int64(truncatingIfNeeded: info.st_size),
                Int64(modified.tv_sec), Int64(modified.tv_nsec), Int64(changed.tv_sec), Int64(changed.tv_nsec)
            )
            latest = max(latest, Int(changed.tv_sec))
            return withUnsafeBytes(of: identity) { take($0) } && withUnsafeBytes(of: newline) { take($0) }
        }
        for directory in directories {
            // The path, NUL, then `A` for a directory that is absent or `P` for one present, its identity and entries.
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            let absent = descriptor < 0 && errno == ENOENT
            let named = (directory.utf8 + [0, absent ? UInt8(ascii: "A") : UInt8(ascii: "P")]).withUnsafeBytes { take($0) }
            guard named, descriptor >= 0 || absent else {
                if descriptor >= 0 { close(descriptor) }
                return nil
            }
            if absent { continue }
            guard let stream = fdopendir(descriptor) else {
                close(descriptor)
                return nil
            }
            defer { closedir(stream) }
            guard fstat(descriptor, &info) == 0, identity() else { return nil }
            while let entry = readdir(stream) {
                // The name in the entry itself, NUL-terminated, valid until the next `readdir`.
                let inspected = withUnsafeMutablePointer(to: &entry.pointee.d_name) { field -> Bool in
                    let name = UnsafeRawPointer(field).assumingMemoryBound(to: CChar.self)
                    if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return true }
                    guard fstatat(descriptor, name, &info, 0) == 0 else { return false }
                    return take(UnsafeRawBufferPointer(start: name, count: strlen(name) + 1)) && identity()
                }
                guard inspected else { return nil }
            }
        }
        return latest
    }

    /// Whether every file recorded changed at least `margin` seconds before `now` (seconds since 1970): a file changed
    /// within the file system's timestamp granularity of the listing could change again unseen.
    public func isSettled(now: Int, margin: Int = 2) -> Bool {
        fingerprint.latestChange <= now - margin
    }

    /// Whether the memo answers `arguments` now: the same arguments and terminals, the same full command, the same
    /// configuration directory, and every directory it recorded, and every entry in each, the same.
    public func answers(arguments: [String], terminals: [Bool], fullCommand: String, configHome: String) -> Bool {
        guard Self.remembers(arguments), arguments == self.arguments, terminals == self.terminals, fullCommand == self.fullCommand,
            configHome == self.configHome, GitCredentialMemo.identity(of: fullCommand) == fullCommandIdentity
        else { return false }
        return Self.fingerprint(of: directories, matches: fingerprint.bytes)
    }

    /// The file's bytes: a header; lines of %-escaped, tab-separated fields (the arguments, the terminals, the full
    /// command, the configuration directory, the directories, the sizes of the fingerprint and the two outputs and the
    /// latest change); an empty line; then the fingerprint and the two outputs as they are.
    public func rendered() -> [UInt8] {
        var lines = [Self.header]
        func line(_ fields: [String]) { lines.append(fields.map(GitCredentialMemo.escape).joined(separator: "\t")) }
        line(["arguments"] + arguments)
        line(["terminals"] + terminals.map { $0 ? "1" : "0" })
        line(["full", fullCommand, fullCommandIdentity])
        line(["config", configHome])
        line(["directories"] + directories)
        line(["sizes", String(fingerprint.bytes.count), String(output.count), String(errors.count), String(fingerprint.latestChange)])
        return Array((lines.joined(separator: "\n") + "\n\n").utf8) + fingerprint.bytes + output + errors
    }

    /// A memo from ``rendered()``'s bytes; nil for anything else.
    public static func parse(bytes: [UInt8]) -> ProviderListMemo? {
        var fields: [String: [String]] = [:]
        var start = 0
        var first = true
        while true {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { return nil }
            let line = bytes[start..<end]
            start = end + 1
            if first {
                guard line.elementsEqual(header.utf8) else { return nil }
                first = false
                continue
            }
            if line.isEmpty { break }
            var parts: [String] = []
            for part in line.split(separator: 0x09, omittingEmptySubsequences: false) {
                guard let text = GitCredentialMemo.unescape(bytes: part) else { return nil }
                parts.append(text)
            }
            guard fields.updateValue(Array(parts.dropFirst()), forKey: parts[0]) == nil else { return nil }
        }
        guard let arguments = fields["arguments"], let terminals = fields["terminals"], terminals.allSatisfy({ $0 == "0" || $0 == "1" }),
            let full = fields["full"], full.count == 2, let config = fields["config"], config.count == 1, let directories = fields["directories"],
            let sizes = fields["sizes"]?.compactMap({ Int($0) }), sizes.count == 4,
            sizes[0...2].allSatisfy({ $0 >= 0 && $0 <= bytes.count - start }), bytes.count - start == sizes[0] + sizes[1] + sizes[2]
        else { return nil }
        let outputStart = start + sizes[0]
        let errorStart = outputStart + sizes[1]
        return ProviderListMemo(
            arguments: arguments, terminals: terminals.map { $0 == "1" }, fullCommand: full[0], fullCommandIdentity: full[1],
            configHome: config[0], directories: directories,
            fingerprint: Fingerprint(bytes: bytes[start..<outputStart], latestChange: sizes[3]),
            output: bytes[outputStart..<errorStart], errors: bytes[errorStart...])
    }

    /// The memo in `sessionDirectory`, read as a session file is; nil when it is absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> ProviderListMemo? {
        guard let bytes = RawFile.readPrivate(path(sessionDirectory: sessionDirectory), in: sessionDirectory, limit: maximumSize) else {
            return nil
        }
        return parse(bytes: bytes)
    }
}
