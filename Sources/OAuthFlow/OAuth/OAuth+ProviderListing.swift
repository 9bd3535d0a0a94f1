extension OAuth {
    /// What `oauthflow providers list` shows of every provider this configuration offers: what ``registry()`` loads,
    /// without parsing the bundled descriptors the shipped index describes.
    ///
    /// - Throws: ``ProviderError`` as ``registry()`` does.
    public func providerListing() throws -> ProviderRegistry.Listing {
        try ProviderRegistry.listing(
            directories: configuration.providerDirectories, includeBundled: configuration.includeBundledProviders,
            includeUserDirectory: configuration.includeUserProviders, environment: configuration.environmentVariables,
            logger: environment.logger)
    }
}
