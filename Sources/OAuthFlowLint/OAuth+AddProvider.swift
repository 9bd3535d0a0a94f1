import Foundation
import OAuthFlow

extension OAuth {
    /// Adds a self-hosted provider by its issuer alone, as `oauthflow providers add` does: reads the issuer's
    /// metadata, drafts a descriptor stating what it says (``OAuthFlow/DescriptorDraft``), lints it, and writes it.
    ///
    /// ```swift
    /// let added = try await oauth.addProvider(issuer: "https://sso.example.com/realms/ops", id: "ops-sso")
    /// ```
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier (https, or http to a loopback host).
    ///   - id: The provider id; by default one made of the issuer's host and path.
    ///   - options: What the caller knows beyond the metadata (`DescriptorDraft.Options`).
    ///   - directory: Where to write `ID.yaml`; by default the user's providers directory when the configuration
    ///     reads it, else the last of `OAuth.Configuration.providerDirectories`.
    ///   - replacing: Whether a file already there is replaced.
    /// - Returns: The draft and the file written.
    /// - Throws: `DiscoveryError` when the metadata cannot be had or used, ``AddProviderError`` when the file
    ///   is not written.
    public func addProvider(
        issuer: String, id: String? = nil, options: DescriptorDraft.Options = DescriptorDraft.Options(), directory: URL? = nil,
        replacing: Bool = false
    ) async throws -> AddedProvider {
        let target: URL
        if let directory {
            target = directory
        } else if configuration.includeUserProviders {
            target = ProviderRegistry.userProvidersDirectory(environment: configuration.environmentVariables)
        } else if let last = configuration.providerDirectories.last {
            target = last
        } else {
            throw AddProviderError(.noDirectory, "the configuration names no providers directory to write to; pass one")
        }
        let draft = try await DescriptorDraft.read(issuer: issuer, id: id, options: options, environment: environment)
        return AddedProvider(draft: draft, file: try draft.write(into: target, replacing: replacing))
    }
}
