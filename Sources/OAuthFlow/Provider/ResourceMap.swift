import Foundation

/// Which protected resources a user may call, given the scopes granted.
///
/// The idea comes from the Cloudentity iOS sample's `scopeData.json`: a list of
/// `{scope, title, url}` entries, each of which becomes available when its scope
/// has been granted.
public struct ResourceMap: Sendable, Hashable {
    /// Every entry, in declared order.
    public let entries: [Resource]

    public init(_ entries: [Resource]) {
        self.entries = entries
    }

    /// Reads a `scopeData.json` file as the Cloudentity sample writes it.
    ///
    /// - Parameter data: A JSON (or YAML) array of `{scope, title, url}` objects.
    /// - Throws: A decoding error when an entry lacks a field or a URL is invalid.
    public init(scopeData data: Data) throws {
        let templates = try Self.templates(from: data)
        var entries: [Resource] = []
        for template in templates {
            guard let url = URL(string: template.url), url.scheme != nil else {
                throw ProviderError(.invalidResources, "resource `\(template.title)` has an invalid URL `\(template.url)`")
            }
            entries.append(Resource(scope: template.scope, title: template.title, url: url))
        }
        self.init(entries)
    }

    /// The entries whose scope was granted, in declared order.
    ///
    /// - Parameter granted: The scopes granted, as the token response reports them.
    public func resources(granted: some Sequence<String>) -> [Resource] {
        let granted = Set(granted)
        return entries.filter { granted.contains($0.scope) }
    }

    /// The entry with this title (case-insensitively), if any.
    public func resource(titled title: String) -> Resource? {
        entries.first { $0.title.caseInsensitiveCompare(title) == .orderedSame }
    }

    /// Reads entries within a descriptor's budgets (``DescriptorDocument/parseResources(_:path:)``).
    static func templates(from data: Data, path: String = "scopeData") throws -> [ProviderDescriptor.ResourceTemplate] {
        let (entries, problems) = DescriptorDocument.parseResources(data, path: path)
        guard problems.isEmpty else {
            throw ProviderError(.invalidResources, problems.prefix(5).map { "\($0.location): \($0.message)" }.joined(separator: "; "))
        }
        return entries
    }
}
