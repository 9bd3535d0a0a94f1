import Foundation

extension ProtectedResource {
    /// Trusts `descriptors`: one whose tokens are JWTs resolved with `variables`, one whose tokens are introspected
    /// with its `client`'s variables and that client as the API's introspection client.
    static func trusting(
        _ descriptors: [ProviderDescriptor], settings: Settings, environment: OAuthEnvironment,
        variables: (String) -> [String: String], client: (String) throws -> ClientSettings, discovery: (String) -> DiscoveryClient?
    ) throws -> ProtectedResource {
        var providers: [Provider] = []
        var clients: [String: ClientConfiguration] = [:]
        for descriptor in descriptors {
            if descriptor.accessTokens.format == .jwt {
                providers.append(try descriptor.resolve(variables(descriptor.id)))
            } else {
                let settings = try client(descriptor.id)
                providers.append(try descriptor.resolve(settings.variables))
                clients[descriptor.id] = settings.serviceConfiguration()
            }
        }
        return try ProtectedResource(
            providers: providers, settings: settings, introspectionClients: clients, environment: environment, discovery: discovery)
    }
}
