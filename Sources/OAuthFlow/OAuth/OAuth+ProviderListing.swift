extension OAuth {
    /// What `oauthflow providers list` shows of every provider this configuration offers: what ``registry()`` loads,
    /// without parsing the bundled descriptors the shipped index describes (``ProviderRegistry/listing(directories:includeBundled:includeUserDirectory:environment:logger:)``).
    ///
    /// - Throws: ``ProviderError`` as ``registry()`` does.
    package func providerListing() throws -> ProviderListing {
        try ProviderRegistry.listing(
            directories: configuration.providerDirectories, includeBundled: configuration.includeBundledProviders,
            includeUserDirectory: configuration.includeUserProviders, environment: configuration.environmentVariables,
            logger: environment.logger)
    }
}
