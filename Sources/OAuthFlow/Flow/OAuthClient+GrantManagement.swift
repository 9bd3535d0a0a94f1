import Foundation
import Logging

/// The grant management API (FAPI Grant Management for OAuth 2.0 §6): the grant a session's tokens belong to, queried
/// and revoked with those tokens.
extension OAuthClient {
    /// The grant `tokens` belong to (their ``TokenSet/grantID``), as the provider's grant management API describes it:
    /// a GET of `grant_management_endpoint/grant_id` with the access token (§6.4), DPoP-bound or certificate-bound
    /// tokens with their proof or certificate (at the endpoint's mutual-TLS alias).
    ///
    /// - Returns: The grant; nil when the server does not know it (HTTP 404: revoked, §6.6, or never this client's).
    /// - Throws: ``FlowError`` `grantManagement` (the tokens name no grant, the answer is not a grant) or
    ///   `missingEndpoint` (the provider publishes no `grant_management_endpoint`), ``AuthorizationServerError`` for other
    ///   error answers (401 `invalid_token`, 403 `insufficient_scope`), ``TransportError``.
    public func grant(of tokens: TokenSet) async throws -> ManagedGrant? {
        let (grantID, response) = try await grantRequest(.get, tokens)
        if response.status == 404 { return nil }
        let answer: [String: JSONValue]
        do {
            answer = try ServerJSON.object(response.body)
        } catch {
            throw FlowError(.grantManagement, "the grant management API's answer (HTTP \(response.status)) \(error), not one JSON object")
        }
        return try ManagedGrant(id: grantID, answer: answer)
    }

    /// Revokes the grant `tokens` belong to (their ``TokenSet/grantID``): a DELETE of `grant_management_endpoint/grant_id`
    /// with the access token (§6.5). The server revokes the grant's refresh tokens and access tokens with it, these among
    /// them; the host ends the session it keeps them in.
    ///
    /// - Returns: Whether the server revoked it: false when it did not know the grant (HTTP 404, revoked before).
    /// - Throws: as ``grant(of:)``.
    @discardableResult
    public func revokeGrant(of tokens: TokenSet) async throws -> Bool {
        let (_, response) = try await grantRequest(.delete, tokens)
        logger.debug("grant revoked", metadata: ["provider": "\(provider.id)", "status": "\(response.status)"])
        return response.status != 404
    }

    /// Sends `method` for `tokens`' grant to the grant management endpoint; a 2xx or 404 answer is returned, others throw.
    private func grantRequest(_ method: TransportRequest.Method, _ tokens: TokenSet) async throws -> (String, TransportResponse) {
        guard let grantID = tokens.grantID else {
            throw FlowError(
                .grantManagement,
                "these tokens name no grant (`grant_id`): provider `\(provider.id)` gave none when they were issued; ask for one with `grantManagement` on the client configuration"
            )
        }
        try ManagedGrant.Action.check(grantID)
        let endpoint = try await endpoint(\.grantManagement, "grant management")
        let (identity, base) = try await certificateRoute(for: tokens, to: endpoint)
        // One path segment (§6.3): `/` and the characters that end a path are escaped.
        let segment = grantID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))) ?? grantID
        var text = base.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        guard base.query == nil, base.fragment == nil, let url = URL(string: text + "/" + segment) else {
            throw FlowError(.grantManagement, "provider `\(provider.id)`'s grant management endpoint \(base.absoluteString) cannot take a grant_id")
        }
        let request = TransportRequest(method: method, url: url, headers: ["Accept": "application/json"], clientIdentity: identity)
        let response = try await tokens.send(
            request, environment: environment.instrumented(.grantManagement, provider: provider.id), clientIdentity: identity, provider: provider.id)
        guard (200..<300).contains(response.status) || response.status == 404 else {
            throw Self.resourceError(SentSecrets(values: [tokens.accessToken.value]).scrub(response))
        }
        return (grantID, response)
    }
}
