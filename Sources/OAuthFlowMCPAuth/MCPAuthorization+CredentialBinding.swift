#if NIO
import Foundation
import OAuthFlow

/// A client the host gives (``Configuration/clients``) belongs to the authorization server whose issuer it is given
/// under, and to no other (RFC 9700 §4.4, RFC 7521 §8.2): the MCP server's metadata chooses among the authorization
/// servers the host has clients for, never moves a client to another. Each given client is stamped with its issuer
/// (`ClientSettings.authorizationServer`), so `OAuthClient` refuses to send its secret, key or assertion
/// anywhere else, whatever path asks.
extension MCPAuthorization {
    /// The client the host gave for `issuer`, bound to it.
    ///
    /// - Throws: ``MCPAuthorizationError`` `wrong_authorization_server` for settings given under `issuer` that say they
    ///   belong to another authorization server.
    func givenClient(for issuer: URL) throws -> ClientSettings? {
        guard var settings = configuration.clients[issuer.absoluteString] else { return nil }
        if let bound = settings.authorizationServer, bound.absoluteString != issuer.absoluteString {
            throw MCPAuthorizationError(
                .wrongAuthorizationServer,
                "the client \(settings.clientID) given in `clients` under \(issuer.absoluteString) says it belongs to the authorization server \(ServerDiscovery.shown(bound.absoluteString)) (`authorizationServer`): give it under that issuer, exactly; it is not used"
            )
        }
        settings.authorizationServer = issuer
        return settings
    }

    /// The authorization server to go to, of those `document` names: the first the host gave a client for, else the
    /// first. A host whose given clients present a workload's assertion, act on its own behalf, or name the server they
    /// are for (``ClientSettings/authorizationServer``, a command line's `--issuer`) uses only those clients: a server that
    /// names none of their issuers is refused before anything is sent to what it names.
    ///
    /// - Throws: ``MCPAuthorizationError`` `wrong_authorization_server`.
    func chosenAuthorizationServer(of document: ServerDiscovery.ProtectedResourceDocument, for server: ResourceIdentifier) throws -> URL {
        if let given = document.authorizationServers.first(where: { configuration.clients[$0.absoluteString] != nil }) { return given }
        let bound = configuration.clients.filter {
            configuration.clientCredentials || $0.value.assertion != nil || $0.value.authorizationServer != nil
        }.keys.sorted()
        guard bound.isEmpty else {
            let named = ServerDiscovery.shown(document.authorizationServers.map(\.absoluteString).joined(separator: ", "))
            let assertion = configuration.clients.values.contains { $0.assertion != nil }
            let credential =
                configuration.clientCredentials ? "the client credentials" : assertion ? "the workload assertion and its client" : "the client"
            throw MCPAuthorizationError(
                .wrongAuthorizationServer,
                "the MCP server \(server) names the authorization server \(named), not \(bound.joined(separator: ", ")), which \(credential) \(bound.count == 1 ? "is" : "are") given for (issuers are compared exactly): nothing is sent to \(named). If that server is the right one, register a client there and give it for that issuer"
            )
        }
        return document.authorizationServers[0]
    }
}

extension ErrorCode where Domain == MCPAuthorizationError {
    /// A client's credentials (its secret, its key, a workload's assertion) were given for another authorization server
    /// than the one the MCP server names, or a client given under one issuer says it belongs to another: nothing is sent.
    public static let wrongAuthorizationServer = Self("wrong_authorization_server")
}
#endif
