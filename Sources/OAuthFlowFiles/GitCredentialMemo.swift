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
        /// The authorization server that issued the session the full command answered with, after it checked that
        /// session against the mapping (its tenant's variables): the launcher answers only while the session it
        /// reads names the same, and leaves a session signed in since for another server to the full command.
        public var authorizationServer: String?

        public init(
            protocolName: String, host: String, path: String?, providerID: String?, account: String, username: String,
            authorizationServer: String? = nil
        ) {
            self.protocolName = protocolName
            self.host = host
            self.path = path
            self.providerID = providerID
            self.account = account
            self.username = username
            self.authorizationServer = authorizationServer
        }

        /// Whether this entry is for the request with these attributes. Only an https request is answered from the
        /// memo: a plain-http one goes to the full command, which answers it only for a remote on this machine.
        public func answers(_ attributes: [String: String]) -> Bool {
            protocolName == "https" && attributes["protocol"] == protocolName && attributes["host"] == host && attributes["path"] == path
        }
    }

    public var clientsFile: String
    public var clientsIdentity: String
    public var entries: [Entry]

    /// The most entries kept; the oldest go first.
    public static let capacity = 32
    static let header = "oauthflow git-credential memo 2"

    public init(clientsFile: String, clientsIdentity: String, entries: [Entry]) {
        self.clientsFile = clientsFile
        self.clientsIdentity = clientsIdentity
        self.entries = entries
    }

    /// The memo's file name in the session directory.
    public static let fileName = "git-credential.memo"

    /// `DIRECTORY/git-credential.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/" + fileName }

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
            let fields = [
                entry.protocolName, entry.host, entry.path.map { "=" + $0 } ?? "", entry.providerID ?? "", entry.account, entry.username,
                entry.authorizationServer.map { "=" + $0 } ?? "",
            ]
            lines.append(fields.map(Self.escape).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A memo from ``rendered()``'s text; nil for anything else.
    public static func parse(_ text: String) -> GitCredentialMemo? {
        parse(bytes: Array(text.utf8))
    }

    /// A memo from ``rendered()``'s bytes; nil for anything else: invalid UTF-8, a control character
    /// ``rendered()`` never writes as it is (anything but the line and field separators), or a `%` escape that
    /// is not two hex digits.
    ///
    /// It reads the bytes and makes strings only of the fields (the launcher runs it on every request git
    /// sends, before anything else it needs).
    public static func parse(bytes: [UInt8]) -> GitCredentialMemo? {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count >= 2, lines[0].elementsEqual(header.utf8) else { return nil }
        guard let clients = fields(lines[1]), clients.count == 3, clients[0] == "clients" else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count - 2)
        for line in lines.dropFirst(2) {
            guard let fields = fields(line), fields.count == 7 else { return nil }
            let (protocolName, host, path, provider, account, username) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
            let server = fields[6]
            guard !protocolName.isEmpty, !host.isEmpty, !account.isEmpty, path.isEmpty || path.hasPrefix("="), server.isEmpty || server.hasPrefix("=")
            else { return nil }
            entries.append(
                Entry(
                    protocolName: protocolName, host: host, path: path.isEmpty ? nil : String(path.dropFirst()),
                    providerID: provider.isEmpty ? nil : provider, account: account, username: username,
                    authorizationServer: server.isEmpty ? nil : String(server.dropFirst())))
        }
        return GitCredentialMemo(clientsFile: clients[1], clientsIdentity: clients[2], entries: entries)
    }

    /// One line's tab-separated fields, unescaped; nil when one is not valid.
    private static func fields(_ line: ArraySlice<UInt8>) -> [String]? {
        var result: [String] = []
        for field in line.split(separator: 0x09, omittingEmptySubsequences: false) {
            guard let text = unescape(bytes: field) else { return nil }
            result.append(text)
        }
        return result
    }

    /// The memo in `sessionDirectory`, read as a session file is (private, regular, not a link); nil when it
    /// is absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> GitCredentialMemo? {
        guard let bytes = RawFile.readPrivate(path(sessionDirectory: sessionDirectory), in: sessionDirectory, limit: 256 * 1024) else { return nil }
        return parse(bytes: bytes)
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

    /// The text of an escaped field: `%XX` (two hex digits) as its byte, every other byte as it is but the control
    /// characters ``escape(_:)`` never leaves; nil for anything else, or for bytes that are not UTF-8.
    static func unescape(bytes: some Collection<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                guard byte >= 0x20, byte != 0x7F else { return nil }
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            out.append(high << 4 | low)
        }
        return UTF8Validation.string(out)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
