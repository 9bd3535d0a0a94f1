import OAuthFlow

/// A descriptor file being linted: a class, so that each rule is lent one reference to it, where a struct holding a
/// whole descriptor was copied for each rule called on a file held in an array (a retain and a release of each part).
package final class LintFile: Sendable {
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
        (urls, placeholderUses, refusals) = Self.derived(from: document)
        self.document = document
    }

    /// What the rules read of `document` more than once, read from it in place: a descriptor bound out of it is a copy.
    private static func derived(from document: borrowing DescriptorDocument) -> ([URLField], [PlaceholderUse], [ProviderError]) {
        let urls = document.descriptor?.urlFields ?? []
        let refusals = document.descriptor?.refusals ?? []
        var uses: [PlaceholderUse] = []
        uses.reserveCapacity(2 * urls.count)
        for field in urls.indices {
            for placeholder in urls[field].template.placeholders { uses.append(PlaceholderUse(field: field, placeholder: placeholder)) }
        }
        return (urls, uses, refusals)
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

extension ProviderDescriptor {
    /// Every URL the descriptor holds, with its setting.
    var urlFields: [LintFile.URLField] {
        var fields: [LintFile.URLField] = []
        let endpointURLs = endpoints.all, resourceTemplates = resources ?? []
        fields.reserveCapacity(3 + endpointURLs.count + resourceTemplates.count)
        if let docs = docsURL { fields.append(LintFile.URLField(setting: .docs, template: URLTemplate(docs))) }
        if let issuer = issuer { fields.append(LintFile.URLField(setting: .issuer, template: URLTemplate(issuer))) }
        if let discovery = discovery.url { fields.append(LintFile.URLField(setting: .discovery, template: URLTemplate(discovery))) }
        for (key, template) in endpointURLs { fields.append(LintFile.URLField(setting: .endpoint(key), template: URLTemplate(template))) }
        for index in resourceTemplates.indices {
            fields.append(LintFile.URLField(setting: .resource(index), template: URLTemplate(resourceTemplates[index].url)))
        }
        return fields
    }
}
