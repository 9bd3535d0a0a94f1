/// What `oauthflow providers list` printed, with the identity of everything it read, so that the launcher prints the
/// same bytes again while nothing has changed, without starting the full command.
///
/// The full command writes it after a plain `providers list` (or `providers list --json`): the arguments, whether
/// standard output and error were terminals, the full command's own file, the configuration directory the user's
/// descriptors are found from, and the identity (``GitCredentialMemo/identity(of:)``: device, inode, size, and
/// modification and change times to the nanosecond) of each descriptor directory it read and of every entry in it.
/// The launcher answers from it only when each of those is the same now; anything else, and any other argument, goes
/// to the full command, which decides as it always does. The listing holds no secret; the memo lives beside the
/// sessions all the same, and is read as they are (private, regular, not a link).
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
    /// Every file read and every entry of every directory read, with its identity (`absent` for a directory that was not there).
    public var files: [String: String]
    /// What was written to standard output and standard error.
    public var output: [UInt8]
    public var errors: [UInt8]

    public init(
        arguments: [String], terminals: [Bool], fullCommand: String, fullCommandIdentity: String, configHome: String, files: [String: String],
        output: [UInt8], errors: [UInt8]
    ) {
        self.arguments = arguments
        self.terminals = terminals
        self.fullCommand = fullCommand
        self.fullCommandIdentity = fullCommandIdentity
        self.configHome = configHome
        self.files = files
        self.output = output
        self.errors = errors
    }

    static let header = "oauthflow providers-list memo 1"
    /// The largest memo read: a listing of many thousands of descriptors.
    static let maximumSize = 8 * 1024 * 1024

    /// `DIRECTORY/providers-list.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/providers-list.memo" }

    /// The arguments the memo is kept for: a plain listing, as a table or as JSON. Any flag that changes what is read
    /// (`--providers-dir`, whose relative paths depend on the working directory) or logged (`--verbose`) is not.
    public static func remembers(_ arguments: [String]) -> Bool {
        arguments == ["providers", "list"] || arguments == ["providers", "list", "--json"]
    }

    /// The identity of each of `directories` and of every entry in each (a descriptor file, a subdirectory, the
    /// bundled index), keyed by path; nil when one cannot be inspected. A directory that is not there is `absent`.
    public static func identities(of directories: [String]) -> [String: String]? {
        var found: [String: String] = [:]
        for directory in directories {
            guard let identity = GitCredentialMemo.identity(of: directory) else { return nil }
            found[directory] = identity
            if identity == "absent" { continue }
            guard let names = entries(of: directory) else { return nil }
            for name in names {
                let path = directory + "/" + name
                guard let entry = GitCredentialMemo.identity(of: path) else { return nil }
                found[path] = entry
            }
        }
        return found
    }

    /// The names in `directory` but `.` and `..`; nil when it cannot be listed.
    static func entries(of directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether the change time of every file is at least `margin` seconds before `now` (seconds since 1970): a file
    /// changed within the file system's timestamp granularity of the listing could change again unseen.
    public func isSettled(now: Int, margin: Int = 2) -> Bool {
        files.values.allSatisfy { identity in
            if identity == "absent" { return true }
            guard let changed = identity.split(separator: " ").last?.split(separator: ".").first, let seconds = Int(changed) else { return false }
            return seconds <= now - margin
        }
    }

    /// Whether the memo answers `arguments` now: the same arguments and terminals, the same full command, the same
    /// configuration directory, and every file it recorded (and every entry of each directory) the same.
    public func answers(arguments: [String], terminals: [Bool], fullCommand: String, configHome: String) -> Bool {
        guard Self.remembers(arguments), arguments == self.arguments, terminals == self.terminals, fullCommand == self.fullCommand,
            configHome == self.configHome, GitCredentialMemo.identity(of: fullCommand) == fullCommandIdentity
        else { return false }
        let directories = files.keys.filter { path in
            guard let slash = path.lastIndex(of: "/") else { return true }
            return files[String(path[..<slash])] == nil
        }
        return Self.identities(of: directories) == files
    }

    /// The file's bytes: a header; lines of %-escaped, tab-separated fields (the arguments, the terminals, the full
    /// command, the configuration directory, the sizes of the two outputs, then one line per file); an empty line;
    /// then the two outputs as they were written.
    public func rendered() -> [UInt8] {
        var lines = [Self.header]
        func line(_ fields: [String]) { lines.append(fields.map(GitCredentialMemo.escape).joined(separator: "\t")) }
        line(["arguments"] + arguments)
        line(["terminals"] + terminals.map { $0 ? "1" : "0" })
        line(["full", fullCommand, fullCommandIdentity])
        line(["config", configHome])
        line(["output", String(output.count), String(errors.count)])
        for path in files.keys.sorted() { line(["file", path, files[path] ?? ""]) }
        return Array((lines.joined(separator: "\n") + "\n\n").utf8) + output + errors
    }

    /// A memo from ``rendered()``'s bytes; nil for anything else.
    public static func parse(bytes: [UInt8]) -> ProviderListMemo? {
        var fields: [String: [String]] = [:]
        var files: [String: String] = [:]
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
            if parts[0] == "file" {
                guard parts.count == 3, files.updateValue(parts[2], forKey: parts[1]) == nil else { return nil }
            } else {
                guard fields.updateValue(Array(parts.dropFirst()), forKey: parts[0]) == nil else { return nil }
            }
        }
        guard let arguments = fields["arguments"], let terminals = fields["terminals"], terminals.allSatisfy({ $0 == "0" || $0 == "1" }),
            let full = fields["full"], full.count == 2, let config = fields["config"], config.count == 1,
            let sizes = fields["output"], sizes.count == 2, let outputSize = Int(sizes[0]), let errorSize = Int(sizes[1]),
            outputSize >= 0, errorSize >= 0, bytes.count - start == outputSize + errorSize
        else { return nil }
        return ProviderListMemo(
            arguments: arguments, terminals: terminals.map { $0 == "1" }, fullCommand: full[0], fullCommandIdentity: full[1],
            configHome: config[0], files: files, output: Array(bytes[start..<start + outputSize]),
            errors: Array(bytes[(start + outputSize)...]))
    }

    /// The memo in `sessionDirectory`, read as a session file is; nil when it is absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> ProviderListMemo? {
        guard let bytes = RawFile.readPrivate(path(sessionDirectory: sessionDirectory), in: sessionDirectory, limit: maximumSize) else {
            return nil
        }
        return parse(bytes: bytes)
    }
}
