import Foundation
import OAuthFlow

/// Runs lint rules over descriptor files.
public struct Linter: Sendable {
    /// Every rule OAuthFlow ships, in catalog order.
    public static let allRules: [any LintRule.Type] = [
        MalformedYAMLRule.self,
        UnknownKeyRule.self,
        WrongTypeRule.self,
        MissingRequiredFieldRule.self,
        IDMatchesFileNameRule.self,
        DuplicateIDRule.self,
        EndpointsOrDiscoveryRule.self,
        DeviceGrantRule.self,
        HTTPSEndpointsRule.self,
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
        AccessTokenRule.self,
        LogoutRule.self,
        WebOnlyRedirectRule.self,
        GeneratedSecretRule.self,
        OIDCOpenIDScopeRule.self,
        OIDCNonceRule.self,
        ReservedParameterRule.self,
        OfflineAccessConsentRule.self,
        LiteralSecretRule.self,
        PrivateUseSchemeRule.self,
        LocalhostLoopbackRule.self,
        ResourcesFileRule.self,
        ProfileSourcesRule.self,
    ]

    private let rules: [any LintRule]

    public init(rules: [any LintRule.Type] = Linter.allRules) {
        self.rules = rules.map { $0.init() }
    }

    /// Lints files and directories.
    ///
    /// - Parameter paths: Files, or directories whose `.yaml`/`.yml` files are linted.
    /// - Returns: Every diagnostic, sorted by file, line and column.
    /// - Throws: When a path does not exist or a directory cannot be listed.
    public func lint(paths: [URL]) throws -> [Diagnostic] {
        try lintStreaming(paths: paths).diagnostics
    }

    /// Lints files and directories one file at a time, on every core.
    ///
    /// Each file is read, checked by every per-file rule and dropped; only its diagnostics and
    /// what cross-file rules need (``CollectionEntry``) are kept. Memory therefore stays flat
    /// however many files there are, and the files are shared out across the cores.
    /// - Returns: Every diagnostic, sorted by file, line and column, and how many files were checked.
    /// - Throws: When a path does not exist or a directory cannot be listed.
    public func lintStreaming(paths: [URL]) throws -> (diagnostics: [Diagnostic], files: Int) {
        let files = try Self.files(in: paths)
        let perFile = rules.filter { !($0 is any CollectionLintRule) }
        let collections = rules.compactMap { $0 as? any CollectionLintRule }
        let results = ResultSlots(count: files.count, collections: collections.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let file = LintFile(document: DescriptorDocument.load(contentsOf: files[index]))
            let diagnostics = perFile.flatMap { $0.validate(file) }
            results.store(index, diagnostics: diagnostics, entries: collections.map { $0.entry(for: file) })
        }
        var diagnostics = results.diagnostics
        for (position, rule) in collections.enumerated() {
            diagnostics += rule.validate(entries: results.entries(of: position))
        }
        return (Self.sorted(diagnostics), files.count)
    }

    /// Diagnostics in report order: by file, line, column and rule.
    public static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.sorted {
            ($0.location.path, $0.location.line, $0.location.column, $0.ruleID)
                < ($1.location.path, $1.location.line, $1.location.column, $1.ruleID)
        }
    }

    /// The descriptor files named by `paths`: files as they are, directories' `.yaml`/`.yml` files.
    ///
    /// - Throws: When a path does not exist or a directory cannot be listed.
    public static func files(in paths: [URL]) throws -> [URL] {
        var files: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                // A dangling link or a link loop is there all the same: reading it says which.
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: path.path)) != nil {
                    files.append(path)
                    continue
                }
                throw LintError("no such file or directory: \(path.relativePath)")
            }
            if isDirectory.boolValue {
                files += try ProviderRegistry.descriptorFiles(in: path)
            } else {
                files.append(path)
            }
        }
        return files
    }

    /// Lints descriptor text, as an editor integration or a test would.
    public func lint(text: String, path: String) -> [Diagnostic] {
        lint([LintFile(document: DescriptorDocument.parse(Data(text.utf8), path: path))])
    }

    /// Lints files already read.
    public func lint(_ files: [LintFile]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for rule in rules {
            if let collection = rule as? any CollectionLintRule {
                diagnostics += collection.validate(files)
            } else {
                for file in files { diagnostics += rule.validate(file) }
            }
        }
        return Self.sorted(diagnostics)
    }
}

/// Per-file results written from several threads, each into its own slot.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var diagnosticsByFile: [[Diagnostic]]
    private var entriesByFile: [[CollectionEntry?]]

    init(count: Int, collections: Int) {
        diagnosticsByFile = Array(repeating: [], count: count)
        entriesByFile = Array(repeating: Array(repeating: nil, count: collections), count: count)
    }

    func store(_ index: Int, diagnostics: [Diagnostic], entries: [CollectionEntry?]) {
        lock.withLock {
            diagnosticsByFile[index] = diagnostics
            entriesByFile[index] = entries
        }
    }

    var diagnostics: [Diagnostic] { lock.withLock { diagnosticsByFile.flatMap { $0 } } }

    /// One collection rule's entries, in file order.
    func entries(of rule: Int) -> [CollectionEntry] { lock.withLock { entriesByFile.compactMap { $0[rule] } } }
}

/// A failure of the linter itself, not of a descriptor.
public struct LintError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
