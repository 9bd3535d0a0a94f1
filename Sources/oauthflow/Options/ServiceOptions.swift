import ArgumentParser
import Foundation
import OAuthFlow

/// Options of the commands that get a token for a service (`token client`, `token exchange`, `call --service`):
/// the provider, its client (as `login` resolves it) and what the token is for.
struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("scope"), help: "A scope to ask for; repeat for each.")
    var scopes: [String] = []

    @Option(name: .customLong("resource"), help: "An API as an RFC 8707 resource (an absolute URI); repeat for each.")
    var resources: [String] = []

    @Option(name: .customLong("audience"), help: "An API as an audience (Auth0); repeat for each.")
    var audiences: [String] = []

    @Option(name: .customLong("client-id"), help: "The client id (default: OAUTHFLOW_<PROVIDER>_CLIENT_ID or the clients file).")
    var clientID: String?

    @Option(name: .customLong("client-secret-env"), help: "An environment variable holding the client secret.")
    var clientSecretEnvironment: String?

    @Option(
        name: .customLong("client-auth"),
        help: "How the client authenticates (default: the first method the provider lists that the client has a credential for).")
    var clientAuth: String?

    @OptionGroup var variableOptions: VariableOptions
    @OptionGroup var registryOptions: RegistryOptions

    func validate() throws {
        try ClientAuthOption.validate(clientAuth)
    }

    /// What the token is for.
    var request: ServiceTokenRequest { ServiceTokenRequest(scopes: scopes, resources: resources, audiences: audiences) }

    /// The provider's service tokens, cached in the default token directory so that later runs reuse them.
    func serviceTokens(provider name: String) throws -> ServiceTokens {
        let overrides = ClientSettings.Overrides(
            clientID: clientID, secretVariable: clientSecretEnvironment, authMethod: ClientAuthOption.method(clientAuth),
            variables: variableOptions.values)
        return try ServiceTokens.configured(descriptor: try registryOptions.descriptor(named: name), overrides: overrides, store: FileTokenStore())
    }
}
