import Foundation
import Logging

extension ProviderRegistry {
    /// Resolves the provider `name` with `variables` and, when its descriptor asks for discovery, fetches
    /// the discovery document through `environment`'s transport so that the result holds every endpoint.
    ///
    /// - Throws: ``ProviderError`` as ``ProviderDescriptor/resolve(_:)`` does; ``DiscoveryError``.
    public func resolve(
        _ name: String, variables: [String: String] = [:], environment: OAuthEnvironment = OAuthEnvironment()
    ) async throws -> Provider {
        try await descriptor(named: name).resolve(variables).discovered(environment: environment)
    }

    /// ``resolve(_:variables:environment:)`` with the discovery document cached by `discovery`.
    package func resolve(_ name: String, variables: [String: String] = [:], discovery: DiscoveryClient) async throws -> Provider {
        try await descriptor(named: name).resolve(variables).discovered(with: discovery)
    }
}
