import Foundation
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// `providers list` reads the bundled descriptors from their shipped index (`BundledProviders/index.json`): the same
/// listing as parsing every descriptor, an entry used only for the bytes it was made from, and the index current.
@Suite struct ProviderListingTests {
    static let repositoryBundled = repositoryRoot.appendingPathComponent("Sources/OAuthFlow/BundledProviders", isDirectory: true)

    /// What a full load of `sources` lists: every descriptor parsed.
    static func parsed(_ sources: [(URL, ProviderRegistry.Origin)]) throws -> ProviderRegistry.Listing {
        let (found, skipped) = try ProviderRegistry.collect(sources: sources, logger: .disabled) {
            (file, _) -> ProviderRegistry.FileReading<ProviderDescriptor> in
            let document = DescriptorDocument.load(contentsOf: file)
            guard let descriptor = document.descriptor else { return .invalid(document.problems) }
            return .read(id: descriptor.id, descriptor)
        }
        let rows = found.keys.sorted().compactMap { id in
            found[id].map { ProviderRegistry.Listing.Row(provider: ProviderRegistry.Listing.Provider($0.item), origin: $0.origin) }
        }
        return ProviderRegistry.Listing(rows: rows, skipped: skipped)
    }

    /// A copy of the bundled providers, index included, to change.
    static func bundledCopy() throws -> TemporaryDirectory {
        let copy = try TemporaryDirectory()
        let source = try #require(BundledProviders.directory)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: copy.url.appendingPathComponent(name))
        }
        return copy
    }

    @Test func theShippedIndexIsCurrent() throws {
        let shipped = try String(contentsOf: Self.repositoryBundled.appendingPathComponent(BundledCatalog.fileName), encoding: .utf8)
        #expect(shipped == (try BundledCatalog.text(describing: Self.repositoryBundled)), "run `swift run oauthflow generate-docs`")
    }

    @Test func theBundledListingIsTheRegistrysAndComesFromTheIndex() throws {
        let directory = try #require(BundledProviders.directory)
        let entries = BundledCatalog.entries(in: directory)
        let files = try ProviderRegistry.descriptorFileNames(in: directory)
        #expect(files.count >= 100 && entries.count == files.count, "\(entries.count) index entries for \(files.count) files")
        for name in files {
            #expect(entries[name]?.describes(directory.appendingPathComponent(name)) == true, "\(name) is not described by the index")
        }
        let listing = try ProviderRegistry.listing(includeBundled: true)
        #expect(listing.rows == (try Self.parsed([(directory, .bundled)])).rows)
        #expect(listing.rows.count == (try ProviderRegistry.load(includeBundled: true)).all.count)
        #expect(listing.skipped.isEmpty)
    }

    /// The index is read: an entry changed in it shows, as long as the file's digest is the one it records.
    @Test func anEntryIsUsedForTheBytesItWasMadeFrom() throws {
        let copy = try Self.bundledCopy()
        defer { copy.cleanUp() }
        let index = copy.url.appendingPathComponent(BundledCatalog.fileName)
        let text = try String(contentsOf: index, encoding: .utf8)
        try text.replacingOccurrences(of: "\"display_name\":\"GitHub\"", with: "\"display_name\":\"From the index\"")
            .write(to: index, atomically: true, encoding: .utf8)
        let listing = try ProviderRegistry.listing(sources: [(copy.url, .bundled)], logger: .disabled)
        #expect(listing.rows.first { $0.provider.catalog.id == "github" }?.provider.catalog.displayName == "From the index")
        // Anywhere but the bundled source the index is not read.
        let elsewhere = try ProviderRegistry.listing(sources: [(copy.url, .directory(copy.url.path))], logger: .disabled)
        #expect(elsewhere.rows.first { $0.provider.catalog.id == "github" }?.provider.catalog.displayName == "GitHub")
    }

    /// An edited, broken, added or removed file, or an index missing or of another format: the listing is what
    /// parsing every file gives, skipped files and their errors included.
    @Test func filesTheIndexDoesNotDescribeAreParsed() throws {
        let copy = try Self.bundledCopy()
        defer { copy.cleanUp() }
        let github = copy.url.appendingPathComponent("github.yaml")
        let original = try String(contentsOf: github, encoding: .utf8)
        try original.replacingOccurrences(of: "display_name: GitHub", with: "display_name: Edited")
            .write(to: github, atomically: true, encoding: .utf8)
        #expect(try String(contentsOf: github, encoding: .utf8) != original)
        try "id: [broken\n".write(to: copy.url.appendingPathComponent("google.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: copy.url.appendingPathComponent("okta.yaml"))
        _ = try copy.write("added.yaml", TestDescriptor(id: "added").yaml)
        let sources: [(URL, ProviderRegistry.Origin)] = [(copy.url, .bundled)]
        let listing = try ProviderRegistry.listing(sources: sources, logger: .disabled)
        let parsed = try Self.parsed(sources)
        #expect(listing.rows == parsed.rows)
        #expect(listing.skipped == parsed.skipped && listing.skipped.map(\.name) == ["google"])
        #expect(listing.rows.first { $0.provider.catalog.id == "github" }?.provider.catalog.displayName == "Edited")
        #expect(listing.rows.contains { $0.provider.catalog.id == "added" } && !listing.rows.contains { $0.provider.catalog.id == "okta" })
        let index = copy.url.appendingPathComponent(BundledCatalog.fileName)
        let text = try String(contentsOf: index, encoding: .utf8)
        for replaced in ["{\n\"format\": 2,", "not json"] {
            try (text.replacingOccurrences(of: "{\n\"format\": 1,", with: replaced)).write(to: index, atomically: true, encoding: .utf8)
            #expect(BundledCatalog.entries(in: copy.url).isEmpty)
            #expect(try ProviderRegistry.listing(sources: sources, logger: .disabled).rows == parsed.rows)
        }
        try FileManager.default.removeItem(at: index)
        #expect(try ProviderRegistry.listing(sources: sources, logger: .disabled).rows == parsed.rows)
    }

    /// Later sources replace the bundled providers, as in a load; a duplicated id in one directory is skipped.
    @Test func overridesAndDuplicatesAreTheLoads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        _ = try directory.write("github.yaml", TestDescriptor(id: "github").yaml)
        _ = try directory.write("one.yaml", TestDescriptor(id: "twice").yaml)
        _ = try directory.write("two.yaml", TestDescriptor(id: "twice").yaml)
        let bundled = try #require(BundledProviders.directory)
        let sources: [(URL, ProviderRegistry.Origin)] = [(bundled, .bundled), (directory.url, .directory(directory.url.path))]
        let listing = try ProviderRegistry.listing(sources: sources, logger: .disabled)
        #expect(listing.rows == (try Self.parsed(sources)).rows)
        #expect(listing.rows.first { $0.provider.catalog.id == "github" }?.origin == .directory(directory.url.path))
        #expect(listing.skipped.map(\.name) == ["twice"])
    }

    /// Every member of an entry is read back as written, and an entry missing one or with one of another type is refused.
    @Test func catalogEntriesReadBackFromTheirJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let directory = try #require(BundledProviders.directory)
        let registry = try ProviderRegistry.load(includeBundled: true)
        for entry in registry.all.map(\.descriptor.catalogEntry) {
            let json = try #require(CompactJSON.parse(Array(try encoder.encode(entry))))
            #expect(ProviderRegistry.CatalogEntry(compact: json) == entry)
            guard case let .object(members) = json else { continue }
            for name in members.keys {
                var missing = members
                missing[name] = nil
                let optional = name.hasSuffix("_condition") || name == "docs_url"
                #expect((ProviderRegistry.CatalogEntry(compact: .object(missing)) != nil) == optional, "without \(name)")
                missing[name] = .number("1")
                #expect(ProviderRegistry.CatalogEntry(compact: .object(missing)) == nil, "\(name) as a number")
            }
        }
        #expect(!BundledCatalog.entries(in: directory).isEmpty)
    }
}
