import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowMCPAuth

/// How `oauthflow mcp` gets a server's tokens when no user signs in at its authorization server: through an enterprise
/// identity provider (`--via`), or with a workload's JWT (`--assertion-file`); the client either presents is named for
/// the authorization server the MCP server names (`--client-id`, `--client-secret-env`).
struct MCPGrantOptions: ParsableArguments {
    @Option(
        name: .customLong("via"),
        help: "An enterprise identity provider (a descriptor) to sign in through; its ID token is exchanged there for the server's token.")
    var via: String?

    @Option(
        name: .customLong("assertion-file"),
        help: "A file holding this workload's JWT (a projected service-account token), presented with no user; read afresh each time.")
    var assertionFile: String?

    @Option(name: .customLong("client-id"), help: "This client's id at the MCP server's authorization server, for --via or --assertion-file.")
    var clientID: String?

    @Option(name: .customLong("client-secret-env"), help: "The environment variable holding that client's secret.")
    var clientSecretVariable: String?

    func validate() throws {
        if via != nil, assertionFile != nil { throw ValidationError("--via and --assertion-file are two ways of getting the token: give one") }
        if clientSecretVariable != nil, clientID == nil { throw ValidationError("--client-secret-env needs --client-id") }
        if clientID != nil, via == nil, assertionFile == nil { throw ValidationError("--client-id is for --via or --assertion-file") }
        if assertionFile != nil, clientID == nil {
            throw ValidationError("--assertion-file needs --client-id: the id the authorization server knows this workload's client by")
        }
    }

    /// Whether anything is asked of these options.
    var isEmpty: Bool { via == nil && assertionFile == nil }

    /// `authorization` with the identity provider and the client applied: the identity provider resolved by name with
    /// its client from the usual places (`OAUTHFLOW_<IDP>_*`, the clients file), and the client given for the issuer
    /// the MCP server names (found without signing in or registering).
    ///
    /// - Throws: A descriptor or client settings that cannot be resolved; the discovery refusals.
    func applied(to authorization: MCPAuthorization, server: URL, registry: RegistryOptions) async throws -> MCPAuthorization {
        guard !isEmpty else { return authorization }
        var configuration = authorization.configuration
        if let via {
            let client = try CommandEnvironment.clients.settings(for: via)
            let provider = try registry.oauth(clients: [via: client]).provider(via)
            configuration.enterpriseIdentityProvider = MCPAuthorization.EnterpriseIdentityProvider(provider: provider, client: client)
        }
        if clientID != nil || assertionFile != nil {
            let issuer = try await authorization.inspect(server).issuer.absoluteString
            var settings = configuration.clients[issuer] ?? ClientSettings(clientID: clientID ?? "")
            if let clientID { settings.clientID = clientID }
            if let variable = clientSecretVariable {
                guard let value = CommandEnvironment.variables[variable], !value.isEmpty else {
                    throw ValidationError("$\(variable) (--client-secret-env) is unset or empty")
                }
                settings.secret = Secret(value)
            }
            if let assertionFile { settings.assertion = .file(assertionFile) }
            configuration.clients[issuer] = settings
        }
        return MCPAuthorization(configuration)
    }
}
