#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowMCPAuth

/// The client `oauthflow mcp` uses at a server's authorization server when it is not registered there dynamically: a
/// client registered beforehand (`--client-id`, `--client-secret-env`) that the user signs in with, or that presents an
/// identity assertion from an enterprise identity provider (`--via`) or a workload's JWT (`--assertion-file`). It is
/// given for one authorization server, named by the user (`--issuer`), never for whichever one the MCP server's
/// metadata names.
struct MCPGrantOptions: ParsableArguments {
    @Option(
        name: .customLong("via"),
        help: "An enterprise identity provider (a descriptor) to sign in through; its ID token is exchanged there for the server's token.")
    var via: String?

    @Option(
        name: .customLong("assertion-file"),
        help: "A file holding this workload's JWT (a projected service-account token), presented with no user; read afresh each time.")
    var assertionFile: String?

    @Option(
        name: .customLong("client-id"),
        help: "This client's id at the MCP server's authorization server (registered beforehand; no Dynamic Client Registration).")
    var clientID: String?

    @Option(name: .customLong("client-secret-env"), help: "The environment variable holding that client's secret.")
    var clientSecretVariable: String?

    @Option(
        name: .customLong("issuer"),
        help: "The issuer of the authorization server --client-id, its secret and the assertion are for, exactly as its metadata writes it.")
    var issuer: String?

    func validate() throws {
        if via != nil, assertionFile != nil { throw ValidationError("--via and --assertion-file are two ways of getting the token: give one") }
        if clientSecretVariable != nil, clientID == nil { throw ValidationError("--client-secret-env needs --client-id") }
        if assertionFile != nil, clientID == nil {
            throw ValidationError("--assertion-file needs --client-id: the id the authorization server knows this workload's client by")
        }
        if issuer != nil, clientID == nil { throw ValidationError("--issuer names the authorization server of --client-id: give both") }
        if clientID != nil, issuer == nil {
            throw ValidationError(
                "--client-id, its secret and the assertion are given for one authorization server: name it with --issuer URL, its issuer exactly as its metadata writes it (`oauthflow mcp inspect URL` prints it); they are never sent to whichever server the MCP server names"
            )
        }
        if let issuer, !Self.isIssuer(issuer) {
            throw ValidationError("--issuer \(issuer) is not an issuer: an https URL (or http to a loopback host) without a query or fragment")
        }
    }

    /// Whether `text` can be an issuer identifier (RFC 8414 §2): an absolute https URL, or http to a loopback host, with
    /// a host and no query or fragment.
    static func isIssuer(_ text: String) -> Bool {
        guard let url = URL(string: text), url.host?.isEmpty == false, url.query == nil, url.fragment == nil else { return false }
        return (try? FlowError.requireSecure(url)) != nil
    }

    /// The flag to fix after a refusal the library words in terms of `clients`: the client is given with `--issuer`.
    func advice(_ error: any Error) -> String? {
        let refused =
            (error as? MCPAuthorizationError)?.code == .wrongAuthorizationServer || (error as? FlowError)?.code == .wrongAuthorizationServer
        guard refused, let issuer else { return nil }
        return
            "--client-id is given for \(Output.line(issuer)) (--issuer); if the MCP server's authorization server is the right one, register a client there and name its issuer with --issuer"
    }

    /// The command's authorization (made by `make`, ``MCPOptions/authorization(browser:timeout:events:)`` by default)
    /// with these options applied; a failure is printed with their advice, and exits 1.
    func authorization(
        _ options: MCPOptions, _ make: (MCPOptions) throws -> MCPAuthorization = { try $0.authorization() }
    ) async throws -> MCPAuthorization {
        try await Output.running(advice: advice) { try await applied(to: try make(options), server: options.server, registry: options.registry) }
    }

    /// Whether anything is asked of these options.
    var isEmpty: Bool { via == nil && assertionFile == nil && clientID == nil }

    /// `authorization` with the identity provider and the client applied: the identity provider resolved by name with
    /// its client from the usual places (`OAUTHFLOW_<IDP>_*`, the clients file), and the client given for `--issuer`,
    /// bound to it; the MCP server must name that issuer (checked by discovery alone, nothing with a credential sent).
    ///
    /// - Throws: A descriptor or client settings that cannot be resolved; the discovery refusals; ``CommandFailure`` when
    ///   the MCP server names another authorization server.
    func applied(to authorization: MCPAuthorization, server: URL, registry: RegistryOptions) async throws -> MCPAuthorization {
        guard !isEmpty else { return authorization }
        var configuration = authorization.configuration
        if let via {
            let client = try CommandEnvironment.clients.settings(for: via)
            let provider = try registry.oauth(clients: [via: client]).provider(via)
            configuration.enterpriseIdentityProvider = MCPAuthorization.EnterpriseIdentityProvider(provider: provider, client: client)
        }
        guard let clientID, let issuer, let bound = URL(string: issuer) else { return MCPAuthorization(configuration) }
        var settings = ClientSettings(clientID: clientID)
        if let variable = clientSecretVariable {
            guard let value = CommandEnvironment.variables[variable], !value.isEmpty else {
                throw ValidationError("$\(variable) (--client-secret-env) is unset or empty")
            }
            settings.secret = Secret(value)
        }
        if let assertionFile { settings.assertion = .file(assertionFile) }
        settings.authorizationServer = bound
        configuration.clients[issuer] = settings
        let applied = MCPAuthorization(configuration)
        // Discovery only (nothing with a credential is sent): the server must name the issuer the client is given for.
        let named = try await applied.inspect(server)
        guard named.issuer.absoluteString == issuer else {
            let listed = named.authorizationServers.map { Output.line($0.absoluteString) }.joined(separator: ", ")
            throw CommandFailure(
                "the MCP server \(Output.line(server.absoluteString)) names the authorization server \(listed), not \(Output.line(issuer)), which --client-id, its secret and the assertion are given for (--issuer; issuers are compared exactly): nothing is sent to it. If that server is the right one, register a client there and name it with --issuer"
            )
        }
        return applied
    }
}
#endif
