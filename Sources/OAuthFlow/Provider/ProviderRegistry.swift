import Foundation
import Logging

/// The providers a host can sign in with, selected by name: those bundled with OAuthFlow, then the host's
/// directories, then (when asked) the user's, a later descriptor replacing an earlier one with the same id.
///
/// ```swift
/// let registry = try ProviderRegistry.load()
/// let auth0 = try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])
/// ```
public struct ProviderRegistry: Sendable {
    /// Where a descriptor came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        case bundled
        case directory(String)
        case user(String)

        public var description: String {
            switch self {
            case .bundled: "bundled providers"
            case let .directory(path): path
            case let .user(path): "user directory \(path)"
            }
        }
    }

    /// A loaded descriptor and where it came from.
    public struct Entry: Sendable, Hashable {
        public let descriptor: ProviderDescriptor
        public let origin: Origin
    }

    /// A descriptor file the load left out, or an id two files in one directory declare.
    public struct Skipped: Sendable, Hashable {
        /// The provider it concerns: the file's name without `.yaml`/`.yml`, or the duplicated id.
        public let name: String
        /// Why, with the positioned problems of the file.
        public let error: ProviderError
    }

    private let entries: [String: Entry]

    /// The files the load could not use, in the order they were read. Each affects only its own
    /// provider: ``descriptor(named:)`` throws its ``Skipped/error`` for that name.
    public let skipped: [Skipped]

    /// The ids of every provider, sorted.
    public var ids: [String] { entries.keys.sorted() }

    /// Every provider, sorted by id.
    public var all: [Entry] { ids.compactMap { entries[$0] } }

    /// Builds a registry from descriptors already in memory.
    public init(_ descriptors: [ProviderDescriptor]) {
        var entries: [String: Entry] = [:]
        for descriptor in descriptors {
            entries[descriptor.id] = Entry(descriptor: descriptor, origin: .directory(descriptor.sourcePath ?? "memory"))
        }
        self.entries = entries
        self.skipped = []
    }

    /// This registry with `descriptors` (in memory) added, each replacing the provider with its id and any file of that
    /// name the load skipped.
    package func replacing(with descriptors: [ProviderDescriptor]) -> ProviderRegistry {
        guard !descriptors.isEmpty else { return self }
        var entries = self.entries
        for descriptor in descriptors {
            entries[descriptor.id] = Entry(descriptor: descriptor, origin: .directory(descriptor.sourcePath ?? "memory"))
        }
        return ProviderRegistry(entries: entries, skipped: skipped.filter { entries[$0.name] == nil })
    }

    private init(entries: [String: Entry], skipped: [Skipped]) {
        self.entries = entries
        self.skipped = skipped
    }

    /// Loads the registry from the standard sources.
    ///
    /// - Parameters:
    ///   - directories: Extra directories, in the order they should override each other.
    ///   - includeBundled: Whether to start from the providers bundled with OAuthFlow.
    ///   - includeUserDirectory: Whether to read the user's provider directory, `$XDG_CONFIG_HOME/oauthflow/providers`;
    ///     off by default. The `oauthflow` CLI turns it on.
    ///   - environment: Where `XDG_CONFIG_HOME` and `HOME` are read from.
    ///   - logger: Receives a line for every override and every skipped file, at info level.
    /// - Returns: The registry, with the files it could not read (or two files of one directory with one id) listed
    ///   in ``skipped``.
    /// - Throws: ``ProviderError`` with code ``ErrorCode/invalidDescriptor`` when a
    ///   directory cannot be listed.
    public static func load(
        directories: [URL] = [],
        includeBundled: Bool = true,
        includeUserDirectory: Bool = false,
        environment: [String: String] = [:],
        logger: Logger = .disabled
    ) throws -> ProviderRegistry {
        let sources = sources(
            directories: directories, includeBundled: includeBundled, includeUserDirectory: includeUserDirectory,
            environment: environment, logger: logger)
        let (found, skipped) = try collect(sources: sources, logger: logger) { (file, origin) -> FileReading<ProviderDescriptor> in
            let read = { (file: URL) -> FileReading<ProviderDescriptor> in
                let document = DescriptorDocument.load(contentsOf: file)
                guard let descriptor = document.descriptor else { return .invalid(document.problems) }
                return .read(id: descriptor.id, descriptor)
            }
            return origin == .bundled ? BundledProviders.reading(of: file, read: read) : read(file)
        }
        return ProviderRegistry(entries: found.mapValues { Entry(descriptor: $0.item, origin: $0.origin) }, skipped: skipped)
    }

    /// What reading one descriptor file for a load gave: the provider it declares, or the file's problems.
    enum FileReading<Item: Sendable>: Sendable {
        case read(id: String, Item)
        case invalid([DescriptorProblem])
    }

    /// Reads every descriptor file of `sources` in order with `read`, as ``load(directories:includeBundled:includeUserDirectory:environment:logger:)``
    /// describes: a later source replaces an earlier one's provider, a file that cannot be read or repeats an id
    /// within its directory is skipped, and each decision is logged.
    ///
    /// A directory's files are read before any is decided on, on every core when there are many (``readAll(_:origin:read:)``);
    /// the decisions and their log lines then follow in file order, as if each file had been read in turn.
    static func collect<Item: Sendable>(
        sources: [(URL, Origin)], logger: Logger, read: @escaping @Sendable (URL, Origin) -> FileReading<Item>
    ) throws -> (entries: [String: (item: Item, origin: Origin)], skipped: [Skipped]) {
        var entries: [String: (item: Item, origin: Origin)] = [:]
        var skipped: [Skipped] = []
        for (directory, origin) in sources {
            var seenHere: [String: String] = [:]
            let files = try descriptorFiles(in: directory)
            for (file, reading) in zip(files, readAll(files, origin: origin, read: read)) {
                let id: String
                let item: Item
                switch reading {
                case let .read(readID, readItem):
                    (id, item) = (readID, readItem)
                case let .invalid(problems):
                    let name = file.deletingPathExtension().lastPathComponent
                    logger.info("provider file skipped", metadata: ["file": "\(file.path)", "problems": "\(problems.count)"])
                    skipped.append(
                        Skipped(
                            name: name,
                            error: ProviderError(
                                .invalidDescriptor, "the descriptor file \(file.path) is invalid (run `oauthflow lint` for details):",
                                provider: name, problems: problems)))
                    continue
                }
                if let other = seenHere[id] {
                    logger.info("provider skipped", metadata: ["provider": "\(id)", "file": "\(file.path)"])
                    skipped.append(
                        Skipped(
                            name: id,
                            error: ProviderError(
                                .duplicateID, "two descriptors in one directory declare the id `\(id)`: \(other) and \(file.path)",
                                provider: id)))
                    continue
                }
                seenHere[id] = file.path
                if let previous = entries[id] {
                    logger.info(
                        "provider overridden",
                        metadata: [
                            "provider": "\(id)", "by": "\(file.path)", "replaces": "\(previous.origin)",
                        ])
                }
                entries[id] = (item, origin)
            }
        }
        return (entries, skipped)
    }

    /// What `read` gives for each file, in order. Files are independent, so many are shared out across the cores.
    private static func readAll<Item: Sendable>(
        _ files: [URL], origin: Origin, read: @escaping @Sendable (URL, Origin) -> FileReading<Item>
    ) -> [FileReading<Item>] {
        guard files.count >= parallelReadingThreshold else { return files.map { read($0, origin) } }
        let slots = ReadingSlots<FileReading<Item>>(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            slots.store(read(files[index], origin), at: index)
        }
        return slots.values
    }

    /// The fewest files of one directory read on every core: below it, handing them out costs more than it saves.
    static let parallelReadingThreshold = 32

    /// The directories a registry reads, in override order.
    static func sources(
        directories: [URL], includeBundled: Bool, includeUserDirectory: Bool,
        environment: [String: String], logger: Logger
    ) -> [(URL, Origin)] {
        var sources: [(URL, Origin)] = []
        if includeBundled {
            if let bundled = BundledProviders.directory {
                sources.append((bundled, .bundled))
            } else {
                logger.warning(
                    "the bundled providers were not found: \(BundledProviders.bundleName).resources is not beside the executable; only other directories are read"
                )
            }
        }
        sources += directories.map { ($0, .directory($0.path)) }
        if includeUserDirectory {
            let user = userProvidersDirectory(environment: environment)
            if FileManager.default.fileExists(atPath: user.path) {
                sources.append((user, .user(user.path)))
            }
        }
        return sources
    }

    /// One provider by id, reading only the files named after it (`ID.yaml`, `ID.yml`) in each
    /// source, the last one winning as in ``load(directories:includeBundled:includeUserDirectory:environment:logger:)``.
    ///
    /// Lint requires a descriptor's file to be named after its id, so this finds what a full
    /// load finds without parsing every other descriptor: what a CLI that runs on every
    /// `git` command needs. When no file is named after the id (or one names another id),
    /// it falls back to the full load, with its did-you-mean error.
    /// - Throws: ``ProviderError`` as ``load(directories:includeBundled:includeUserDirectory:environment:logger:)``
    ///   and ``descriptor(named:)`` do.
    public static func descriptor(
        named name: String,
        directories: [URL] = [],
        includeBundled: Bool = true,
        includeUserDirectory: Bool = false,
        environment: [String: String] = [:],
        logger: Logger = .disabled
    ) throws -> ProviderDescriptor {
        func full() throws -> ProviderDescriptor {
            try load(
                directories: directories, includeBundled: includeBundled, includeUserDirectory: includeUserDirectory,
                environment: environment, logger: logger
            ).descriptor(named: name)
        }
        // Only a plain id can be a file name; anything else gets the full load's answer.
        guard Pattern.matchesWhole(name, pattern: DescriptorSchema.identifierPattern) else { return try full() }
        var found: ProviderDescriptor?
        for (directory, _) in sources(
            directories: directories, includeBundled: includeBundled,
            includeUserDirectory: includeUserDirectory, environment: environment, logger: logger)
        {
            for suffix in ["yaml", "yml"] {
                let file = directory.appendingPathComponent("\(name).\(suffix)")
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                let document = DescriptorDocument.load(contentsOf: file)
                guard let descriptor = document.descriptor else {
                    throw ProviderError(
                        .invalidDescriptor, "the descriptor of `\(name)` is invalid (run `oauthflow lint` for details):",
                        provider: name, problems: document.problems)
                }
                guard descriptor.id == name else { return try full() }
                if found != nil { logger.info("provider overridden", metadata: ["provider": "\(name)", "by": "\(file.path)"]) }
                found = descriptor
            }
        }
        return try found ?? full()
    }

    /// The descriptor with this id.
    ///
    /// - Throws: ``ProviderError``: the ``Skipped/error`` of a file named after the id that the
    ///   load skipped (``ErrorCode/invalidDescriptor`` with its positioned problems, or
    ///   ``ErrorCode/duplicateID``), even when an earlier source has the id, since that
    ///   file was meant to replace it; otherwise ``ErrorCode/unknownProvider``,
    ///   suggesting the nearest id when there is one.
    public func descriptor(named name: String) throws -> ProviderDescriptor {
        if let problem = skipped.last(where: { $0.name == name }) { throw problem.error }
        if let entry = entries[name] { return entry.descriptor }
        // A name longer than any id is cut in the message, and gets no spelling suggestion (its cost grows with the length).
        let longest = 64
        var message = "no provider named `\(name.count > longest ? name.prefix(longest) + "…" : name)`"
        if name.count <= longest, let suggestion = Spelling.closest(to: name, among: ids) {
            message += "; did you mean `\(suggestion)`?"
        } else {
            message += "; known providers: \(ids.joined(separator: ", "))"
            message += " (a descriptor of your own is read from the directories the registry is given: `--providers-dir DIR` for the CLI)"
        }
        if !skipped.isEmpty {
            message += "; skipped as unreadable: \(skipped.map { "`\($0.name)`" }.joined(separator: ", ")) (run `oauthflow lint` for details)"
        }
        throw ProviderError(.unknownProvider, message, provider: name)
    }

    /// The entry (descriptor and origin) with this id, if any.
    public func entry(named name: String) -> Entry? {
        entries[name]
    }

    /// The user's provider directory: `$XDG_CONFIG_HOME/oauthflow/providers`.
    public static func userProvidersDirectory(environment: [String: String]) -> URL {
        XDGDirectory.config(environment: environment).appendingPathComponent("oauthflow/providers", isDirectory: true)
    }

    /// The directory of the descriptors that ship with OAuthFlow, when it can be found.
    public static var bundledDirectory: URL? { BundledProviders.directory }

    /// The `.yaml` and `.yml` files directly inside `directory`, sorted by name.
    public static func descriptorFiles(in directory: URL) throws -> [URL] {
        try descriptorFileNames(in: directory).map { directory.appendingPathComponent($0, isDirectory: false) }
    }

    /// Why `path` could not be listed, in the system's words: a file, a link loop or nothing there, where Foundation's
    /// error says only "the operation could not be completed".
    private static func listingFailure(_ path: String, _ error: any Error) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return SafeFile.explain(errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is a file, not a directory" }
        return TerminalText.escaped(error.localizedDescription)
    }

    /// The names of ``descriptorFiles(in:)``, sorted: a long listing costs a few bytes a file, not a `URL` each.
    public static func descriptorFileNames(in directory: URL) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ProviderError(
                .invalidDescriptor, "cannot list the provider directory \(directory.path): \(Self.listingFailure(directory.path, error))")
        }
        return names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }.sorted()
    }
}
