#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `oauthflow providers list` printed, with the identity of everything it read, so that the launcher prints the
/// same bytes again while nothing has changed, without starting the full command.
///
/// The full command writes it after a plain `providers list` (or `providers list --json`): the arguments, whether
/// standard output and error were terminals, the full command's own file and its identity, the configuration directory
/// the user's descriptors are found from, and the fingerprint of each descriptor directory it read: the identity
/// (device, inode, size, and modification and change times to the nanosecond) of the directory and of every entry in
/// it, by name. The launcher answers from it only when each of those is the same now; anything else, and any other
/// argument, goes to the full command, which decides as it always does. The listing holds no secret; the memo lives
/// beside the sessions all the same, and is read as they are (private, regular, not a link).
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
    /// What was written to standard output and standard error.
    public var output: [UInt8]
    public var errors: [UInt8]

    /// The identity of some directories and of every entry in each, as bytes to compare, and the latest change time
    /// (seconds since 1970) among them.
    public struct Fingerprint: Sendable, Hashable {
        public var bytes: [UInt8]
        public var latestChange: Int
    }

    public init(
        arguments: [String], terminals: [Bool], fullCommand: String, fullCommandIdentity: String, configHome: String, directories: [String],
        fingerprint: Fingerprint, output: [UInt8], errors: [UInt8]
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

    static let header = "oauthflow providers-list memo 2"
    /// The largest memo read: a listing of many thousands of descriptors.
    static let maximumSize = 8 * 1024 * 1024

    /// `DIRECTORY/providers-list.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/providers-list.memo" }

    /// The arguments the memo is kept for: a plain listing, as a table or as JSON. Any flag that changes what is read
    /// (`--providers-dir`, whose relative paths depend on the working directory) or logged (`--verbose`) is not.
    public static func remembers(_ arguments: [String]) -> Bool {
        arguments == ["providers", "list"] || arguments == ["providers", "list", "--json"]
    }

    /// For each of `directories`: its path, then `absent`, or its identity and, sorted by name, each entry's name and
    /// identity (a descriptor, the bundled index, a subdirectory: whatever is there); nil when one cannot be inspected.
    /// Each entry is inspected relative to its directory (`fstatat`), following a symbolic link as the reader does.
    public static func fingerprint(of directories: [String]) -> Fingerprint? {
        var bytes: [UInt8] = []
        var latest = 0
        func append(_ info: stat) {
            #if canImport(Darwin)
            let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
            #else
            let (modified, changed) = (info.st_mtim, info.st_ctim)
            #endif
            for value in [
                Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino), Int(truncatingIfNeeded: info.st_size),
                Int(modified.tv_sec), Int(modified.tv_nsec), Int(changed.tv_sec), Int(changed.tv_nsec),
            ] {
                appendDecimal(value, to: &bytes)
                bytes.append(0x20)
            }
            latest = max(latest, Int(changed.tv_sec))
        }
        for directory in directories {
            bytes += directory.utf8
            bytes.append(0)
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                guard errno == ENOENT else { return nil }
                bytes += "absent\n".utf8
                continue
            }
            guard let stream = fdopendir(descriptor) else {
                close(descriptor)
                return nil
            }
            defer { closedir(stream) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            append(info)
            bytes.append(0x0A)
            // Each name with its terminating NUL, as `fstatat` takes it and the fingerprint writes it.
            var names: [[CChar]] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    Array(raw.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }) + [0]
                }
                if name != [0x2E, 0] && name != [0x2E, 0x2E, 0] { names.append(name) }
            }
            names.sort { $0.lexicographicallyPrecedes($1) { UInt8(bitPattern: $0) < UInt8(bitPattern: $1) } }
            for name in names {
                guard fstatat(descriptor, name, &info, 0) == 0 else { return nil }
                bytes += name.map { UInt8(bitPattern: $0) }
                append(info)
                bytes.append(0x0A)
            }
        }
        return Fingerprint(bytes: bytes, latestChange: latest)
    }

    /// `value` in decimal, a minus sign first when it is negative.
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(0x2D) }
        let magnitude = value.magnitude
        var power: UInt = 1
        while power <= magnitude / 10 { power *= 10 }
        while power > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / power % 10))
            power /= 10
        }
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
        return Self.fingerprint(of: directories)?.bytes == fingerprint.bytes
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
            let sizes = fields["sizes"]?.compactMap({ Int($0) }), sizes.count == 4, sizes[0...2].allSatisfy({ $0 >= 0 }),
            bytes.count - start == sizes[0] + sizes[1] + sizes[2]
        else { return nil }
        let outputStart = start + sizes[0]
        let errorStart = outputStart + sizes[1]
        return ProviderListMemo(
            arguments: arguments, terminals: terminals.map { $0 == "1" }, fullCommand: full[0], fullCommandIdentity: full[1],
            configHome: config[0], directories: directories,
            fingerprint: Fingerprint(bytes: Array(bytes[start..<outputStart]), latestChange: sizes[3]),
            output: Array(bytes[outputStart..<errorStart]), errors: Array(bytes[errorStart...]))
    }

    /// The memo in `sessionDirectory`, read as a session file is; nil when it is absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> ProviderListMemo? {
        guard let bytes = RawFile.readPrivate(path(sessionDirectory: sessionDirectory), in: sessionDirectory, limit: maximumSize) else {
            return nil
        }
        return parse(bytes: bytes)
    }
}
