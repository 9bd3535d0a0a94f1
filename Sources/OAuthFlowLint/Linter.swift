import Foundation
import OAuthFlow

/// Runs lint rules over descriptor files.
public struct Linter: Sendable {
    /// Every rule OAuthFlow ships, in catalog order.
    package static let allRules: [any LintRule.Type] = [
        MalformedYAMLRule.self,
        UnknownKeyRule.self,
        WrongTypeRule.self,
        MissingRequiredFieldRule.self,
        IDMatchesFileNameRule.self,
        DuplicateIDRule.self,
        EndpointsOrDiscoveryRule.self,
        DeviceGrantRule.self,
        HTTPSEndpointsRule.self,
        EndpointFragmentRule.self,
        IssuerNoQueryOrFragmentRule.self,
        IssuerForIssParameterRule.self,
        IssuerValidationRule.self,
        UndeclaredVariableRule.self,
        UnusedVariableRule.self,
        VariableOutsideHostOrPathRule.self,
        VariableDefinitionRule.self,
        AuthorizationCodeOnlyRule.self,
        PKCEForPublicClientsRule.self,
        PKCEMethodS256Rule.self,
        ClientAuthConsistencyRule.self,
        StateWithoutPKCERule.self,
        PushedAndDPoPRule.self,
        AuthorizationDetailsTypesRule.self,
        StepUpRule.self,
        FAPI2ProfileRule.self,
        AccessTokenRule.self,
        LogoutRule.self,
        WebOnlyRedirectRule.self,
        GeneratedSecretRule.self,
        OIDCOpenIDScopeRule.self,
        ScopeSyntaxRule.self,
        OIDCNonceRule.self,
        ReservedParameterRule.self,
        UserinfoRequestRule.self,
        TokenInQueryRule.self,
        OfflineAccessConsentRule.self,
        LiteralSecretRule.self,
        PrivateUseSchemeRule.self,
        LocalhostLoopbackRule.self,
        ResourcesFileRule.self,
        ProfileSourcesRule.self,
    ]

    private let rules: [any LintRule]

    /// A linter with every rule OAuthFlow ships.
    public init() {
        self.init(rules: Linter.allRules)
    }

    package init(rules: [any LintRule.Type] = Linter.allRules) {
        self.rules = rules.map { $0.init() }
    }

    /// What each rule OAuthFlow ships checks, in catalog order (Docs/lint-rules.md is generated from it).
    public static var ruleDescriptions: [RuleDescription] { allRules.map { $0.description } }

    /// Lints files and directories.
    ///
    /// - Parameter paths: Files, or directories whose `.yaml`/`.yml` files are linted.
    /// - Returns: Every diagnostic, sorted by file, line and column.
    /// - Throws: When a directory cannot be listed (a path that is not there is a finding at that path).
    public func lint(paths: [URL]) throws -> [Diagnostic] {
        try lintStreaming(paths: paths).diagnostics
    }

    /// Lints files and directories a few files at a time, on every core.
    ///
    /// - Returns: Every diagnostic, sorted by file, line and column, and how many files were checked.
    /// - Throws: When a directory cannot be listed (a path that is not there is a finding at that path).
    public func lintStreaming(paths: [URL]) throws -> (diagnostics: [Diagnostic], files: Int) {
        var diagnostics: [Diagnostic] = []
        let files = try lintStreaming(paths: paths) { diagnostics += $0 }
        return (diagnostics, files)
    }

    /// Lints files and directories a few files at a time, on every core, handing over the
    /// diagnostics in report order as the files are read.
    ///
    /// - Parameters:
    ///   - paths: Files, or directories whose `.yaml`/`.yml` files are linted.
    ///   - emit: Called with each batch's diagnostics, in report order (possibly none).
    /// - Returns: How many files were checked.
    /// - Throws: When a directory cannot be listed (a path that is not there is a finding at that path).
    public func lintStreaming(paths: [URL], emit: ([Diagnostic]) throws -> Void) throws -> Int {
        let files = try Self.reportPaths(in: paths).sorted()
        // Each folder named is opened once and its files read by name in it, where the kernel walked the folder's
        // whole path again for each file (a fortieth of lint's time for 1,000 files seven folders deep).
        let folders = files.openFolders()
        defer { for folder in folders where folder >= 0 { close(folder) } }
        let perFile = rules.filter { $0.acrossFiles == nil }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let collections = rules.compactMap(\.acrossFiles)
        var earlier = Array(repeating: [String: CollectionEntry](), count: collections.count)
        for start in stride(from: 0, to: files.files.count, by: Self.batchSize) {
            let batch = start..<min(start + Self.batchSize, files.files.count)
            let results = ResultSlots(count: batch.count)
            let groupSize = Self.groupSize(of: batch.count, cores: cores)
            let groups = (batch.count + groupSize - 1) / groupSize
            DispatchQueue.concurrentPerform(iterations: groups) { group in
                let offsets = group * groupSize..<min((group + 1) * groupSize, batch.count)
                let paths = offsets.map { offset in
                    let index = batch.lowerBound + offset
                    let (path, folder) = files.opening(index, in: folders)
                    return (path: path, directory: folder, reportedAs: files.files[index].path)
                }
                // The group's files, as many at a time as `groupBytes` allows: one stage for all of them, then each rule.
                var done = 0
                while done < paths.count {
                    let read = DescriptorDocument.load(paths[done...], bytes: Self.groupBytes, as: LintFile.init(document:))
                    let found = Self.findings(of: read, by: perFile)
                    for position in read.indices {
                        results.store(
                            offsets.lowerBound + done + position, diagnostics: found[position],
                            entries: collections.map { $0.entry(for: read[position]) })
                    }
                    done += read.count
                }
            }
            var diagnostics: [Diagnostic] = []
            for offset in 0..<batch.count {
                var found = results.diagnostics(of: offset)
                for (position, entry) in results.entries(of: offset).enumerated() {
                    guard let entry else { continue }
                    found += collections[position].validate(entry, recordingIn: &earlier[position])
                }
                diagnostics += Self.sorted(found)
            }
            try emit(diagnostics)
        }
        return files.files.count
    }

    /// Files read between two hand-overs: enough to keep every core busy, few enough that memory stays small.
    private static let batchSize = 256

    /// Files a thread reads and checks together, each stage of reading for all of them and then each rule for all of
    /// them: the code of a stage or a rule is brought into the processor's cache once for up to 32 files, not once for
    /// each (a group of 32 took 0.94 of the CPU time of a group of 8, and of 16 0.97; Docs/benchmarks.md). A batch of
    /// few files is cut into smaller groups, down to 8, so that each core still gets two of them.
    static func groupSize(of count: Int, cores: Int) -> Int {
        max(8, min(32, count / (2 * max(1, cores))))
    }

    /// The most bytes of files a thread reads before it checks them, whatever the group's count: with descriptors of a
    /// few kilobytes a group is read at once; with files near the 1 MiB limit a thread holds one or two at a time.
    private static let groupBytes = 1 << 20

    /// Diagnostics in report order: by file, line, column and rule.
    public static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        // Most files have none or one: a list of fewer than two is in order as it is (`sorted` copies it all the same).
        guard diagnostics.count > 1 else { return diagnostics }
        return diagnostics.sorted {
            ($0.location.path, $0.location.line, $0.location.column, $0.ruleID)
                < ($1.location.path, $1.location.line, $1.location.column, $1.ruleID)
        }
    }

    /// The descriptor files named by `paths`: files as they are, directories' `.yaml`/`.yml` files.
    ///
    /// - Throws: When a directory cannot be listed (a path that is not there is a finding at that path).
    public static func files(in paths: [URL]) throws -> [URL] {
        try fileNames(in: paths).map { argument, name in
            name.isEmpty ? paths[argument] : paths[argument].appendingPathComponent(name, isDirectory: false)
        }
    }

    /// ``files(in:)`` as each file's report path (its `relativePath`) and the argument it came
    /// from, in ``ReportPaths``: ten thousand `URL`s take megabytes, their paths a tenth of that.
    static func reportPaths(in paths: [URL]) throws -> ReportPaths {
        var list = ReportPaths(arguments: paths)
        // Several arguments may name one file (`a.yaml ./a.yaml`, `dir dir/a.yaml`): it is read once, as
        // first named, not reported as its own duplicate. One argument lists each file once already.
        var seen: Set<String>? = paths.count > 1 ? [] : nil
        var canonicalArguments: [String?] = Array(repeating: nil, count: paths.count)
        // A directory's files are reported as its relative path joined with each name, the path
        // `appendingPathComponent` makes, without a URL for each file.
        let folders = paths.map { $0.relativePath.hasSuffix("/") ? $0.relativePath : $0.relativePath + "/" }
        for (argument, name) in try fileNames(in: paths) {
            let base = paths[argument]
            if seen != nil {
                let canonical = canonicalArguments[argument] ?? Self.canonicalPath(base.path)
                canonicalArguments[argument] = canonical
                guard seen?.insert(name.isEmpty ? canonical : canonical + "/" + name).inserted == true else { continue }
            }
            list.files.append(
                name.isEmpty
                    ? (base.relativePath, argument, false)
                    : (Self.joined(folders[argument], name), argument, true))
        }
        return list
    }

    /// `folder` and `name` in one string of exactly their size: kept for every file of the run, where
    /// `+` would leave each with room to grow (a megabyte over 30,000 files).
    private static func joined(_ folder: String, _ name: String) -> String {
        var path = ""
        path.reserveCapacity(folder.utf8.count + name.utf8.count)
        path += folder
        path += name
        return path
    }

    /// The path with every link and `.`/`..` resolved, or as it is when it does not resolve (a dangling link).
    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return (path as NSString).standardizingPath }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Files to lint, each kept as its report path and the command-line argument it came from;
    /// the path to open is made again only while the file is read.
    struct ReportPaths: Sendable {
        var files: [(path: String, argument: Int, inDirectory: Bool)] = []
        /// Each argument's file-system path, and the path of the folder its relative path is read against.
        private let argumentPaths: [String]
        private let basePaths: [String?]
        /// The length, in UTF-8 bytes, of what stands before a file's name in the report path of a file found in
        /// each argument (the argument's relative path and a `/`).
        private let folderLengths: [Int]

        init(arguments: [URL]) {
            argumentPaths = arguments.map(\.path)
            basePaths = arguments.map { $0.baseURL?.path }
            folderLengths = arguments.map { $0.relativePath.hasSuffix("/") ? $0.relativePath.utf8.count : $0.relativePath.utf8.count + 1 }
        }

        /// Each argument opened as a folder (`O_DIRECTORY`), for the files found in it; -1 for an argument that is
        /// not a folder, or holds no file to read, or cannot be opened (its files are then read by their paths).
        func openFolders() -> [Int32] {
            var folders = [Int32](repeating: -1, count: argumentPaths.count)
            var found = [Bool](repeating: false, count: argumentPaths.count)
            for file in files where file.inDirectory { found[file.argument] = true }
            for argument in argumentPaths.indices where found[argument] {
                folders[argument] = open(argumentPaths[argument], O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
            return folders
        }

        /// What to open for `files[index]`: its name in its argument's folder, when that folder is open in `folders`
        /// (``openFolders()``); its path otherwise (``path(_:)``), with `AT_FDCWD`.
        func opening(_ index: Int, in folders: [Int32]) -> (path: String, folder: Int32) {
            let file = files[index]
            guard file.inDirectory, folders[file.argument] >= 0 else { return (path(index), AT_FDCWD) }
            return (String(Substring(file.path.utf8.dropFirst(folderLengths[file.argument]))), folders[file.argument])
        }

        /// The same files in report order, by path.
        func sorted() -> ReportPaths {
            var sorted = self
            sorted.files.sort { $0.path < $1.path }
            return sorted
        }

        /// The file to open for `files[index]`: the argument itself, or its report path read against
        /// the argument's base folder, as `appendingPathComponent` made it; a path, not a `URL` for each file.
        func path(_ index: Int) -> String {
            let file = files[index]
            guard file.inDirectory else { return argumentPaths[file.argument] }
            guard let base = basePaths[file.argument], !file.path.hasPrefix("/") else { return file.path }
            return base.hasSuffix("/") ? base + file.path : base + "/" + file.path
        }
    }

    /// Each file as the index of the argument that names it, with its name in it when the argument is a
    /// directory (empty when the argument is the file).
    private static func fileNames(in paths: [URL]) throws -> [(argument: Int, name: String)] {
        var files: [(argument: Int, name: String)] = []
        for (argument, path) in paths.enumerated() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                // Read as a file all the same: reading it says what is wrong (nothing there, a dangling link, a link
                // loop) as a finding at that path, and the other paths are still linted, in whatever format.
                files.append((argument, ""))
                continue
            }
            if isDirectory.boolValue {
                files += try ProviderRegistry.descriptorFileNames(in: path).map { (argument, $0) }
            } else {
                files.append((argument, ""))
            }
        }
        return files
    }

    /// Lints descriptor text, as an editor integration or a test would.
    public func lint(text: String, path: String) -> [Diagnostic] {
        lint([LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: path))])
    }

    /// Lints files already read.
    package func lint(_ files: [LintFile]) -> [Diagnostic] {
        var diagnostics = Self.findings(of: files, by: rules.filter { $0.acrossFiles == nil }).flatMap { $0 }
        for collection in rules.compactMap(\.acrossFiles) { diagnostics += collection.validate(files) }
        return Self.sorted(diagnostics)
    }

    /// Each file's findings of `rules` (rules that check one file at a time), in rule order. Rule by rule over the
    /// files, not file by file over the rules: a rule's code is then read into the processor's instruction cache once
    /// for all of them, where forty rules in turn for each file evicted each other every time (Docs/benchmarks.md,
    /// "What the measurements decided").
    private static func findings(of files: [LintFile], by rules: [any LintRule]) -> [[Diagnostic]] {
        var found = [[Diagnostic]](repeating: [], count: files.count)
        for rule in rules {
            for position in files.indices {
                // Most rules find nothing in most files: an empty list appended to an empty one still goes through
                // the array's reallocation path (36 times a file of the template corpus).
                let diagnostics = rule.validate(files[position])
                if !diagnostics.isEmpty { found[position] += diagnostics }
            }
        }
        return found
    }
}

/// Per-file results written from several threads, each into its own slot.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var diagnosticsByFile: [[Diagnostic]]
    private var entriesByFile: [[CollectionEntry?]]

    init(count: Int) {
        diagnosticsByFile = Array(repeating: [], count: count)
        entriesByFile = Array(repeating: [], count: count)
    }

    func store(_ index: Int, diagnostics: [Diagnostic], entries: [CollectionEntry?]) {
        lock.withLock {
            diagnosticsByFile[index] = diagnostics
            entriesByFile[index] = entries
        }
    }

    func diagnostics(of file: Int) -> [Diagnostic] { lock.withLock { diagnosticsByFile[file] } }

    /// One file's entry for each collection rule, in rule order.
    func entries(of file: Int) -> [CollectionEntry?] { lock.withLock { entriesByFile[file] } }
}
