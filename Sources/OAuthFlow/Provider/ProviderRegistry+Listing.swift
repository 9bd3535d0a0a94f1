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
    ) throws -> ProviderListing {
        try listing(
            sources: sources(
                directories: directories, includeBundled: includeBundled, includeUserDirectory: includeUserDirectory,
                environment: environment, logger: logger),
            logger: logger)
    }

    /// The listing of `sources`, the one marked ``Origin/bundled`` read with its ``BundledCatalog``.
    static func listing(sources: [(URL, Origin)], logger: Logger) throws -> ProviderListing {
        let catalog = sources.first { $0.1 == .bundled }.map { BundledCatalog.entries(in: $0.0) } ?? [:]
        let (found, skipped) = try collect(sources: sources, logger: logger) { (file, origin) -> FileReading<ProviderListing.Provider> in
            if origin == .bundled, let entry = catalog[file.lastPathComponent], entry.describes(file) {
                return .read(id: entry.provider.catalog.id, entry.provider)
            }
            let document = DescriptorDocument.load(contentsOf: file)
            guard let descriptor = document.descriptor else { return .invalid(document.problems) }
            return .read(id: descriptor.id, ProviderListing.Provider(descriptor))
        }
        let rows = found.keys.sorted().compactMap { id in found[id].map { ProviderListing.Row(provider: $0.item, origin: $0.origin) } }
        return ProviderListing(rows: rows, skipped: skipped)
    }
}
