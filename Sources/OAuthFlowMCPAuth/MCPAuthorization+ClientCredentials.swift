#if NIO
import Foundation
import OAuthFlow

/// Tokens for the client itself (the client credentials grant, RFC 6749 §4.4; MCP extension
/// `io.modelcontextprotocol/oauth-client-credentials`): for a host that acts on its own behalf, with no user and no browser.
/// The client is the host's, given in ``Configuration/clients`` for the authorization server's issuer, with its secret
/// (`client_secret_basic` or `client_secret_post`) or its key (`private_key_jwt`, the assertion addressed to the issuer);
/// it is never registered for this.
extension MCPAuthorization {
    /// The client that asks for tokens for itself at `server`: the host's for its issuer.
    ///
    /// - Throws: ``MCPAuthorizationError`` `no_client` when the host gave none; `unsupported_server` when the server
    ///   does not list the client credentials grant.
    func serviceClient(at server: ServerDiscovery.AuthorizationServerDocument, provider: Provider) throws -> ClientSettings {
        let issuer = server.issuer.absoluteString
        guard let given = try givenClient(for: server.issuer) else {
            throw MCPAuthorizationError(
                .noClient,
                "a client that acts on its own behalf (`clientCredentials`) must be registered at \(issuer) beforehand and given in `clients` under \(issuer); none is registered dynamically for it"
            )
        }
        guard provider.policy.grantTypes.contains(.clientCredentials) else {
            throw MCPAuthorizationError(
                .unsupportedServer,
                "the authorization server \(issuer) does not list the client credentials grant (`grant_types_supported` lacks client_credentials)")
        }
        return given
    }

    /// Asks for a token for the client itself, for `scopes` and the `resource`, stores it as the server's session and sends
    /// it from now on; once however many callers ask. No refresh token is expected: the next 401 asks again.
    @discardableResult
    func clientCredentialsToken(_ context: AuthorizationState.Context, scopes: [String]) async throws -> TokenSet {
        let session = try await state.signIn(context.server) { [self] in
            let configuration = context.settings.serviceConfiguration()
            let client = client(of: context.provider, configuration)
            let tokens = try await client.clientCredentialsToken(
                OAuthClient.ServiceTokenRequest(scopes: scopes, resources: [context.resource.absoluteString]))
            let stored = StoredSession(
                key: context.key, issuedBy: context.provider, clientID: context.settings.clientID, redirectURI: nil, tokens: tokens,
                updatedAt: environment.clock.now(), clientAuthentication: try? configuration.authenticationMethod(for: context.provider))
            try await self.configuration.store.save(stored)
            logger.info("token issued to the client itself", metadata: ["server": "\(context.server)", "client_id": "\(context.settings.clientID)"])
            return stored
        }
        await context.manager.reload()
        try await adopt(session.tokens, in: context, fresh: true)
        return session.tokens
    }
}
#endif
