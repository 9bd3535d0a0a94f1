/// What the full `oauthflow credential git` last decided for a request, so that the launcher can answer the
/// same request again without reading clients.yaml (YAML needs the full command).
///
/// The full command writes it (`git-credential.memo`, 0600, in the private session directory) after it
/// answered from clients.yaml's `credential_helpers.git`, with the clients file's identity (device, inode,
/// size, modification and change times) as it read it. The launcher uses an entry only while the clients
/// file at the same path still has that identity, for the exact request (protocol, host and path as git
/// sent them): any edit of clients.yaml, or another XDG directory, sends it back to the full command.
public struct GitCredentialMemo: Sendable, Hashable {
    /// One decision: the request, and the session that answers it (nil provider: no mapping; git asks its
    /// next helper).
    public struct Entry: Sendable, Hashable {
        public var protocolName: String
        public var host: String
        public var path: String?
        public var providerID: String?
        public var account: String
        public var username: String

        public init(protocolName: String, host: String, path: String?, providerID: String?, account: String, username: String) {
            self.protocolName = protocolName
            self.host = host
            self.path = path
            self.providerID = providerID
            self.account = account
            self.username = username
        }

        /// Whether this entry is for the request with these attributes.
        public func answers(_ attributes: [String: String]) -> Bool {
            attributes["protocol"] == protocolName && attributes["host"] == host && attributes["path"] == path
        }
    }

    public var clientsFile: String
    public var clientsIdentity: String
    public var entries: [Entry]

    /// The most entries kept; the oldest go first.
    public static let capacity = 32
    static let header = "oauthflow git-credential memo 1"

    public init(clientsFile: String, clientsIdentity: String, entries: [Entry]) {
        self.clientsFile = clientsFile
        self.clientsIdentity = clientsIdentity
        self.entries = entries
    }

    /// `DIRECTORY/git-credential.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/git-credential.memo" }

    /// The identity of the file at `path` as text: device, inode, size, modification and change times to the
    /// nanosecond; `absent` when nothing is there; nil when it cannot be inspected.
    public static func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT ? "absent" : nil }
        #if canImport(Darwin)
        let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #else
        let (modified, changed) = (info.st_mtim, info.st_ctim)
        #endif
        return "\(info.st_dev) \(info.st_ino) \(info.st_size) \(modified.tv_sec).\(modified.tv_nsec) \(changed.tv_sec).\(changed.tv_nsec)"
    }

    /// The memo with `entry` added (replacing one for the same request), newest last, at most ``capacity``.
    public func adding(_ entry: Entry) -> GitCredentialMemo {
        var kept = entries.filter { !($0.protocolName == entry.protocolName && $0.host == entry.host && $0.path == entry.path) }
        kept.append(entry)
        return GitCredentialMemo(clientsFile: clientsFile, clientsIdentity: clientsIdentity, entries: Array(kept.suffix(Self.capacity)))
    }

    /// The entry for a request, if the clients file is still the one the memo was made from.
    public func entry(for attributes: [String: String], clientsFile path: String) -> Entry? {
        guard path == clientsFile, Self.identity(of: path) == clientsIdentity else { return nil }
        return entries.last { $0.answers(attributes) }
    }

    /// The file's text: a header, the clients file and its identity, then one line per entry, fields
    /// separated by tabs and %-escaped.
    public func rendered() -> String {
        var lines = [Self.header, "clients\t\(Self.escape(clientsFile))\t\(Self.escape(clientsIdentity))"]
        for entry in entries {
            let fields = [entry.protocolName, entry.host, entry.path.map { "=" + $0 } ?? "", entry.providerID ?? "", entry.account, entry.username]
            lines.append(fields.map(Self.escape).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A memo from ``rendered()``'s text; nil for anything else.
    public static func parse(_ text: String) -> GitCredentialMemo? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2, lines[0] == header else { return nil }
        let clients = lines[1].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard clients.count == 3, clients[0] == "clients", let file = unescape(clients[1]), let identity = unescape(clients[2]) else { return nil }
        var entries: [Entry] = []
        for line in lines.dropFirst(2) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { unescape(String($0)) }
            guard fields.count == 6, let protocolName = fields[0], let host = fields[1], let path = fields[2], let provider = fields[3],
                let account = fields[4], let username = fields[5], !protocolName.isEmpty, !host.isEmpty, !account.isEmpty
            else { return nil }
            guard path.isEmpty || path.hasPrefix("=") else { return nil }
            entries.append(
                Entry(
                    protocolName: protocolName, host: host, path: path.isEmpty ? nil : String(path.dropFirst()),
                    providerID: provider.isEmpty ? nil : provider, account: account, username: username))
        }
        return GitCredentialMemo(clientsFile: file, clientsIdentity: identity, entries: entries)
    }

    /// The memo in `sessionDirectory`, read as a session file is (private, regular, not a link); nil when it
    /// is absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> GitCredentialMemo? {
        guard RawFile.isPrivateDirectory(sessionDirectory) == true,
            let bytes = try? RawFile.read(
                path(sessionDirectory: sessionDirectory), limit: 256 * 1024, followLinks: false,
                inspect: { info in if info.st_mode & 0o077 != 0 { throw RawFile.ReadError(reason: "not private", kind: .system) } }),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        return parse(text)
    }

    /// `%`, tab, line breaks and other control characters as `%XX`.
    static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "%") || byte < 0x20 || byte == 0x7F {
                out += Array(("%" + StateFiles.hexDigits(byte)).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unescape(_ text: String) -> String? {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next(), let low = bytes.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else {
                return nil
            }
            out.append(value)
        }
        return String(validating: out, as: UTF8.self)
    }
}
