/// What the full command checked of a session before it handed its access token out, so that the launcher hands
/// out the same token again only while nothing that check read has changed.
///
/// The full command writes it (`session-origin.memo`, 0600, in the session directory) once `OAuth.storedSession`'s
/// check passed.
public struct SessionOriginMemo: Sendable, Hashable {
    /// One session's check.
    public struct Entry: Sendable, Hashable {
        /// The session's file stem (``StateFiles/sessionStem(providerID:account:)``).
        public var stem: String
        /// The authorization server the session records; nil for a session stored before it recorded one.
        public var authorizationServer: String?
        public var clientID: String
        /// Each file or directory read, by path, with its identity (``GitCredentialMemo/identity(of:)``) before.
        public var files: [String: String]

        public init(stem: String, authorizationServer: String?, clientID: String, files: [String: String]) {
            self.stem = stem
            self.authorizationServer = authorizationServer
            self.clientID = clientID
            self.files = files
        }
    }

    public var entries: [Entry]

    /// The most entries kept; the oldest go first.
    public static let capacity = 32
    static let header = "oauthflow session-origin memo 1"

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The memo's file name in the session directory.
    public static let fileName = "session-origin.memo"

    /// `DIRECTORY/session-origin.memo`.
    public static func path(sessionDirectory: String) -> String { sessionDirectory + "/" + fileName }

    /// The files the check reads for the provider `providerID` that the launcher can name by itself: `ID.yaml` and
    /// `ID.yml` in the user's descriptor directory and that directory (`CONFIG_HOME/oauthflow/providers`), and the
    /// clients file (`CONFIG_HOME/oauthflow/clients.yaml`), whose variables the provider is resolved with.
    public static func userFiles(providerID: String, configHome: String) -> [String] {
        let directory = configHome + "/oauthflow/providers"
        return [directory, directory + "/" + providerID + ".yaml", directory + "/" + providerID + ".yml", configHome + "/oauthflow/clients.yaml"]
    }

    /// The memo with `entry` added (replacing one for the same session), newest last, at most ``capacity``.
    public func adding(_ entry: Entry) -> SessionOriginMemo {
        var kept = entries.filter { $0.stem != entry.stem }
        kept.append(entry)
        return SessionOriginMemo(entries: Array(kept.suffix(Self.capacity)))
    }

    /// Whether the check still vouches for the session in the file `stem` whose recorded server and client are
    /// these: an entry names them, every file it recorded has the same identity now, and it recorded each of
    /// `required`.
    public func vouches(stem: String, authorizationServer: String?, clientID: String, required: [String]) -> Bool {
        guard let entry = entries.last(where: { $0.stem == stem }), entry.authorizationServer == authorizationServer,
            entry.clientID == clientID, required.allSatisfy({ entry.files[$0] != nil })
        else { return false }
        return entry.files.allSatisfy { path, identity in GitCredentialMemo.identity(of: path) == identity }
    }

    /// The file's text: a header, then one line per entry, fields separated by tabs and %-escaped: the stem, the
    /// server (`=` before it, empty for none), the client id, then each file's path and identity.
    public func rendered() -> String {
        var lines = [Self.header]
        for entry in entries {
            var fields = [entry.stem, entry.authorizationServer.map { "=" + $0 } ?? "", entry.clientID]
            for path in entry.files.keys.sorted() {
                fields += [path, entry.files[path] ?? ""]
            }
            lines.append(fields.map(GitCredentialMemo.escape).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A memo from ``rendered()``'s bytes; nil for anything else.
    public static func parse(bytes: [UInt8]) -> SessionOriginMemo? {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty, lines[0].elementsEqual(header.utf8) else { return nil }
        var entries: [Entry] = []
        for line in lines.dropFirst() {
            var fields: [String] = []
            for field in line.split(separator: 0x09, omittingEmptySubsequences: false) {
                guard let text = GitCredentialMemo.unescape(bytes: field) else { return nil }
                fields.append(text)
            }
            guard fields.count >= 3, fields.count % 2 == 1, !fields[0].isEmpty, fields[1].isEmpty || fields[1].hasPrefix("=") else { return nil }
            var files: [String: String] = [:]
            for index in stride(from: 3, to: fields.count, by: 2) {
                guard files.updateValue(fields[index + 1], forKey: fields[index]) == nil else { return nil }
            }
            let server = fields[1].isEmpty ? nil : String(fields[1].dropFirst())
            entries.append(Entry(stem: fields[0], authorizationServer: server, clientID: fields[2], files: files))
        }
        return SessionOriginMemo(entries: entries)
    }

    /// The memo in `sessionDirectory`, read as a session file is (private, regular, not a link); nil when it is
    /// absent or anything about it is odd.
    public static func read(sessionDirectory: String) -> SessionOriginMemo? {
        guard let bytes = RawFile.readPrivate(path(sessionDirectory: sessionDirectory), in: sessionDirectory, limit: 256 * 1024) else { return nil }
        return parse(bytes: bytes)
    }
}
