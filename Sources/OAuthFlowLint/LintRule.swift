import OAuthFlow

/// What a rule is, for people and for the generated catalog.
public struct RuleDescription: Sendable {
    /// Snake-case id shown in brackets after each diagnostic.
    public let identifier: String
    /// Short title.
    public let name: String
    /// One sentence saying what the rule checks and why.
    public let summary: String
    public let severity: Severity
    /// Descriptors this rule must flag. Each is linted as `example.yaml`.
    public let triggeringExamples: [String]
    /// Descriptors this rule must accept.
    public let nonTriggeringExamples: [String]

    public init(
        identifier: String, name: String, summary: String, severity: Severity,
        triggering: [String], nonTriggering: [String]
    ) {
        self.identifier = identifier
        self.name = name
        self.summary = summary
        self.severity = severity
        self.triggeringExamples = triggering
        self.nonTriggeringExamples = nonTriggering
    }
}

/// A check over one descriptor file.
package protocol LintRule: Sendable {
    static var description: RuleDescription { get }
    init()
    /// The rule's findings in one file. Rules return values; they never print.
    func validate(_ file: LintFile) -> [Diagnostic]
    /// The rule as a check across files, or nil. The linter asks this instead of casting: a
    /// cast to a protocol searches the binary's ten thousand conformance records for each
    /// rule type, a millisecond and more of every run.
    var acrossFiles: (any CollectionLintRule)? { get }
}

extension LintRule {
    public var acrossFiles: (any CollectionLintRule)? { nil }
}

/// What one file contributes to a check across files: kept after the file itself is dropped,
/// so linting ten thousand files never holds ten thousand documents.
package struct CollectionEntry: Sendable {
    /// What must be unique (or otherwise compared) across files, such as an id.
    public let key: String
    /// Where a diagnostic about this file points.
    public let location: SourceLocation

    public init(key: String, location: SourceLocation) {
        self.key = key
        self.location = location
    }
}

/// A check across all files linted together (such as duplicate ids).
///
/// Files are checked in report order, each against what the files before it left: the first
/// entry with each key. A run over many files therefore keeps one entry per distinct key, and
/// a file's findings are known as soon as the file is read.
package protocol CollectionLintRule: LintRule {
    /// This file's entry, or nil when it has nothing to compare.
    func entry(for file: LintFile) -> CollectionEntry?
    /// The findings for `entry`, given the first entry with each key among the files before it.
    func validate(_ entry: CollectionEntry, earlier: [String: CollectionEntry]) -> [Diagnostic]
}

extension CollectionLintRule {
    public var acrossFiles: (any CollectionLintRule)? { self }

    public func validate(_ file: LintFile) -> [Diagnostic] { [] }

    /// The findings for `entry` against the files before it, which then counts among them:
    /// `earlier` keeps the first entry with each key.
    public func validate(_ entry: CollectionEntry, recordingIn earlier: inout [String: CollectionEntry]) -> [Diagnostic] {
        let diagnostics = validate(entry, earlier: earlier)
        if earlier[entry.key] == nil { earlier[entry.key] = entry }
        return diagnostics
    }

    /// The findings over every file's entry, in file order.
    public func validate(entries: [CollectionEntry]) -> [Diagnostic] {
        var earlier: [String: CollectionEntry] = [:]
        return entries.flatMap { validate($0, recordingIn: &earlier) }
    }

    /// The findings over files already read.
    public func validate(_ files: [LintFile]) -> [Diagnostic] {
        validate(entries: files.compactMap(entry(for:)))
    }
}

extension LintRule {
    /// A diagnostic from this rule at the value of `keyPath` in `file`.
    func diagnostic(_ file: LintFile, _ keyPath: [String], _ message: String, atKey: Bool = false, severity: Severity? = nil) -> Diagnostic {
        let location = atKey ? file.document.keyLocation(of: keyPath) : file.document.location(of: keyPath)
        return Diagnostic(
            location: location, severity: severity ?? Self.description.severity,
            ruleID: Self.description.identifier, message: message)
    }

    /// The resolver's refusals of the setting at `keyPath` (of its items instead, with `items`: a list's
    /// entries, a map's keys) as this rule's diagnostics, each at the value refused and with the resolver's
    /// message: what the resolver refuses is written there once, and lint reports it where it is written. A security
    /// profile's refusals (`security_profile`) are rule `fapi2_profile`'s alone, and a fixed parameter's undeclared
    /// variable (`unknown_variable`) rule `undeclared_variable`'s.
    func refusals(_ file: LintFile, at keyPath: [String], items: Bool = false, atKey: Bool = false) -> [Diagnostic] {
        file.refusals.compactMap { refusal in
            guard refusal.code != .securityProfile, refusal.code != .unknownVariable, let refused = refusal.keyPath,
                refused.count == keyPath.count + (items ? 1 : 0),
                refused.starts(with: keyPath)
            else {
                return nil
            }
            return diagnostic(file, refused, refusal.message, atKey: atKey)
        }
    }
}

/// A descriptor file being linted.
package struct LintFile {
    /// A URL setting of the descriptor, written as a key path only for a finding: a key path made for each of a
    /// file's dozen URLs, most of them never reported, was an array allocated and freed for each.
    enum URLSetting {
        case docs, issuer, discovery, endpoint(String), resource(Int)

        var keyPath: [String] {
            switch self {
            case .docs: ["docs_url"]
            case .issuer: ["issuer"]
            case .discovery: ["discovery", "url"]
            case .endpoint(let key): ["endpoints", key]
            case .resource(let index): ["resources", String(index), "url"]
            }
        }
    }

    /// A URL the descriptor holds, and where. A struct rather than a tuple: an array of tuples is destroyed element
    /// by element through the runtime's generic tuple witness, a tenth of a millisecond over a thousand files.
    struct URLField {
        let setting: URLSetting
        let template: URLTemplate

        var keyPath: [String] { setting.keyPath }
    }

    /// One `{placeholder}` of a URL: the URL's place in ``urls`` and the placeholder.
    struct PlaceholderUse {
        let field: Int
        let placeholder: URLTemplate.Placeholder
    }

    public let document: DescriptorDocument
    /// Every URL the descriptor holds, with its setting; worked out once, as several rules read them.
    let urls: [URLField]
    /// Every `{placeholder}` in those URLs, with where it stands.
    let placeholderUses: [PlaceholderUse]
    /// What the resolver refuses in the descriptor (`ProviderDescriptor.refusals`), each with its setting's key
    /// path; worked out once, as several rules report them.
    let refusals: [ProviderError]

    /// Takes `document` over (`consuming`): a parsed document is handed in once, and copying it
    /// would retain and then release every reference its descriptor holds.
    public init(document: consuming DescriptorDocument) {
        let urls: [URLField]
        if let descriptor = document.descriptor {
            urls = urlFields(descriptor)
            refusals = descriptor.refusals
        } else {
            urls = []
            refusals = []
        }
        self.document = document
        var uses: [PlaceholderUse] = []
        uses.reserveCapacity(2 * urls.count)
        for field in urls.indices {
            for placeholder in urls[field].template.placeholders { uses.append(PlaceholderUse(field: field, placeholder: placeholder)) }
        }
        self.urls = urls
        placeholderUses = uses
    }

    /// The decoded descriptor, when the file is structurally valid.
    public var descriptor: ProviderDescriptor? { document.descriptor }

    /// The file name without its `.yaml` or `.yml` extension.
    public var stem: String {
        var path = document.path
        // By bytes where an ASCII byte (or nothing) stands before a suffix: characters then break there, and
        // comparing characters (`hasSuffix`, then `removeLast`) says the same at many times the cost.
        let byBytes = path.withUTF8 { bytes -> String? in
            var start = bytes.count
            while start > 0, bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
            var end = bytes.count
            for suffix in Self.suffixes {
                let from = end - suffix.count
                guard from >= start, (0..<suffix.count).allSatisfy({ bytes[from + $0] == suffix[$0] }) else { continue }
                guard from == start || bytes[from - 1] < 0x80 else { return nil }
                end = from
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        return byBytes ?? stemByCharacters
    }

    /// `.yaml`, then `.yml`, as bytes.
    private static let suffixes = [Array(".yaml".utf8), Array(".yml".utf8)]

    /// ``stem`` worked out by characters, for a name where a character beyond ASCII stands before a suffix.
    private var stemByCharacters: String {
        let path = document.path
        var name = String(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path[...])
        for suffix in [".yaml", ".yml"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        return name
    }
}
