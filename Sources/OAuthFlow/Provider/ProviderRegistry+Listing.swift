import Foundation
import Logging

extension ProviderRegistry {
    /// What `oauthflow providers list` shows: the providers and skipped files
    /// ``load(directories:includeBundled:includeUserDirectory:environment:logger:)`` finds, with the same log lines,
    /// each provider's catalog entry and variables.
    ///
    /// A bundled descriptor is not parsed when ``BundledCatalog`` holds its entry and the file's bytes are the ones
    /// that entry was made from (their SHA-256): the listing reads the entry instead. Any other file is read as the
    /// load reads it.
    /// - Throws: ``ProviderError`` as the load does.
    package static func listing(
        directories: [URL] = [],
        includeBundled: Bool = true,
        includeUserDirectory: Bool = false,
        environment: [String: String] = [:],
        logger: Logger = .disabled
    ) throws -> ProviderRegistry.Listing {
        try listing(
            sources: sources(
                directories: directories, includeBundled: includeBundled, includeUserDirectory: includeUserDirectory,
                environment: environment, logger: logger),
            logger: logger)
    }

    /// The listing of `sources`, the one marked ``Origin/bundled`` read with its ``BundledCatalog``.
    static func listing(sources: [(URL, Origin)], logger: Logger) throws -> ProviderRegistry.Listing {
        let catalog = sources.first { $0.1 == .bundled }.map { BundledCatalog.entries(in: $0.0) } ?? [:]
        let (found, skipped) = try collect(sources: sources, logger: logger) { (file, origin) -> FileReading<ProviderRegistry.Listing.Provider> in
            if origin == .bundled, let entry = catalog[file.lastPathComponent], entry.describes(file) {
                return .read(id: entry.provider.catalog.id, entry.provider)
            }
            let document = DescriptorDocument.load(contentsOf: file)
            guard let descriptor = document.descriptor else { return .invalid(document.problems) }
            return .read(id: descriptor.id, ProviderRegistry.Listing.Provider(descriptor))
        }
        let rows = found.keys.sorted().compactMap { id in found[id].map { ProviderRegistry.Listing.Row(provider: $0.item, origin: $0.origin) } }
        return ProviderRegistry.Listing(rows: rows, skipped: skipped)
    }
}

extension ProviderRegistry {
    /// What `oauthflow providers list` shows of every provider: each one's catalog entry and variables, where it came
    /// from, and the files the load left out, as ``ProviderRegistry/load(directories:includeBundled:includeUserDirectory:environment:logger:)``
    /// would have found them.
    public struct Listing: Sendable {
        /// What one descriptor says for the listing.
        public struct Provider: Sendable, Hashable {
            /// The catalog columns (Docs/providers.md); the id, display name and protocol among them.
            public let catalog: CatalogEntry
            /// Every variable the descriptor declares, sorted.
            public let variables: [String]

            package init(catalog: CatalogEntry, variables: [String]) {
                self.catalog = catalog
                self.variables = variables
            }

            /// What `descriptor` says.
            package init(_ descriptor: ProviderDescriptor) {
                self.init(catalog: descriptor.catalogEntry, variables: descriptor.variables.keys.sorted())
            }
        }

        /// A provider and where its descriptor came from.
        public struct Row: Sendable, Hashable {
            public let provider: Provider
            public let origin: ProviderRegistry.Origin
        }

        /// Every provider, sorted by id.
        public let rows: [Row]
        /// The files the load could not use, in the order they were read (``ProviderRegistry/skipped``).
        public let skipped: [ProviderRegistry.Skipped]
    }
}
