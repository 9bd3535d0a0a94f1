/// What `oauthflow providers list` shows of every provider: each one's catalog entry and variables, where it came
/// from, and the files the load left out, as ``ProviderRegistry/load(directories:includeBundled:includeUserDirectory:environment:logger:)``
/// would have found them (``ProviderRegistry/listing(directories:includeBundled:includeUserDirectory:environment:logger:)``).
package struct ProviderListing: Sendable {
    /// What one descriptor says for the listing.
    package struct Provider: Sendable, Hashable {
        /// The catalog columns (Docs/providers.md); the id, display name and protocol among them.
        package let catalog: ProviderCatalogEntry
        /// Every variable the descriptor declares, sorted.
        package let variables: [String]

        package init(catalog: ProviderCatalogEntry, variables: [String]) {
            self.catalog = catalog
            self.variables = variables
        }

        /// What `descriptor` says.
        package init(_ descriptor: ProviderDescriptor) {
            self.init(catalog: descriptor.catalogEntry, variables: descriptor.variables.keys.sorted())
        }
    }

    /// A provider and where its descriptor came from.
    package struct Row: Sendable, Hashable {
        package let provider: Provider
        package let origin: ProviderRegistry.Origin
    }

    /// Every provider, sorted by id.
    package let rows: [Row]
    /// The files the load could not use, in the order they were read (``ProviderRegistry/skipped``).
    package let skipped: [ProviderRegistry.Skipped]
}
