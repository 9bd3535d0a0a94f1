import Foundation

/// The one gate a client's credentials pass before they leave: they go only to the authorization server they were
/// given for (RFC 9700 §4.4, RFC 7521 §8.2), and a JWT bearer grant's assertion only where its `aud` says (RFC 7523 §3).
///
/// Every request that carries client authentication or an assertion (the token, pushed authorization, device
/// authorization, introspection and revocation endpoints, the JWT bearer grant, token exchange) goes through ``post``
/// or the revocation request, which call ``requireCredentialBinding(sendingTo:)`` before anything is sent.
extension OAuthClient {
    /// The clock skew allowed on an assertion's `nbf`, in seconds.
    static let assertionLeeway: TimeInterval = 60

    /// Refuses, before anything is sent, a client whose credentials were given for another authorization server than
    /// this provider's issuer, compared exactly as RFC 8414 §3.3 compares issuers.
    ///
    /// - Throws: ``FlowError`` `wrong_authorization_server`.
    func requireCredentialBinding() throws {
        guard let bound = configuration.authorizationServer?.absoluteString else { return }
        let issuer = provider.issuer?.absoluteString
        guard issuer != bound else { return }
        let named = issuer.map { "is \(TerminalText.escaped($0))" } ?? "names no issuer"
        throw FlowError(
            .wrongAuthorizationServer,
            "the credentials of client \(TerminalText.escaped(configuration.clientID)) were given for the authorization server \(TerminalText.escaped(bound)), and provider `\(provider.id)` \(named) (issuers are compared exactly): nothing is sent to it. Give the client for the server it is registered at (`ClientSettings.authorizationServer`, `issuer` in the clients file)"
        )
    }

    /// ``requireCredentialBinding()``, and, for credentials given for an authorization server, that `endpoint` is that
    /// server's: on the issuer's origin, or named by the issuer's own metadata (read from its well-known location) when
    /// the descriptor asks for discovery. A descriptor that names another server's endpoint under the issuer the
    /// credentials were given for (a file dropped in, `providers add --force`) gets nothing; Google's token endpoint,
    /// on another host than its issuer, passes because Google's metadata names it. A descriptor without discovery (or
    /// with an explicit `discovery.url`) is the only word on its endpoints, and is taken; so is one whose issuer's
    /// metadata cannot be read now (logged).
    ///
    /// - Throws: ``FlowError`` `wrong_authorization_server`.
    func requireCredentialBinding(sendingTo endpoint: URL) async throws {
        try requireCredentialBinding()
        guard let bound = configuration.authorizationServer, !Origin.same(endpoint, bound), let location = provider.discovery,
            !location.isExplicit
        else { return }
        // Metadata that cannot be read vouches for nothing and refuses nothing: the descriptor's word stands, as for one
        // without discovery (whoever writes the descriptor could leave discovery out as well).
        guard let metadata = try? await discovery.metadata(at: location.url, issuers: provider.issuers, provider: provider.id) else {
            logger.warning(
                "the issuer's metadata could not be read to check an endpoint off the issuer's host; the descriptor's endpoint is used",
                metadata: ["provider": "\(provider.id)", "endpoint": "\(Origin(endpoint)?.description ?? "")"])
            return
        }
        let aliases = [
            "token_endpoint", "revocation_endpoint", "introspection_endpoint", "device_authorization_endpoint",
            "pushed_authorization_request_endpoint",
        ].map(metadata.mtlsAlias)
        let named =
            [
                metadata.tokenEndpoint, metadata.revocationEndpoint, metadata.introspectionEndpoint, metadata.deviceAuthorizationEndpoint,
                metadata.pushedAuthorizationRequestEndpoint,
            ] + aliases
        guard !named.contains(where: { $0.map { Origin.same($0, endpoint) } ?? false }) else { return }
        throw FlowError(
            .wrongAuthorizationServer,
            "the credentials of client \(TerminalText.escaped(configuration.clientID)) were given for the authorization server \(TerminalText.escaped(bound.absoluteString)), and provider `\(provider.id)` would send them to \(TerminalText.escaped(Origin(endpoint)?.description ?? endpoint.absoluteString)), which is not on the issuer's host and which the issuer's metadata does not name: nothing is sent to it. Correct the descriptor's endpoints, or leave them to discovery"
        )
    }

    /// Refuses a JWT bearer grant's assertion that is not for this authorization server or not valid now, before it is
    /// presented (RFC 7523 §3): its `aud` (a string or an array) must name the issuer or the token endpoint exactly, its
    /// `exp` must be a JSON number in the future, and its `nbf`, when present, a number already past (within
    /// ``assertionLeeway``). Nothing of the assertion is quoted.
    ///
    /// - Throws: ``FlowError`` `unusable_assertion`; `missing_endpoint` when there is no token endpoint.
    func checkAssertion(_ assertion: Secret) async throws {
        func refuse(_ why: String) -> FlowError {
            FlowError(.unusableAssertion, "the JWT bearer assertion \(why); it is not presented to provider `\(provider.id)`")
        }
        guard let jws = try? CompactJWS(assertion.value) else { throw refuse("is not a JWT") }
        let tokenEndpoint = try await endpoint(\.token, "token").absoluteString
        let server = [provider.issuer?.absoluteString, tokenEndpoint].compactMap { $0 }
        guard let audiences = audienceClaim(jws.claims), !audiences.isEmpty else { throw refuse("names no audience (`aud`)") }
        guard audiences.contains(where: { server.contains($0) }) else {
            let shown = audiences.prefix(5).map { TerminalText.escaped(String($0.prefix(200))) }.joined(separator: " ")
            throw refuse(
                "is for \(shown) (`aud`), not for this authorization server (\(server.map { TerminalText.escaped($0) }.joined(separator: " or ")))")
        }
        let now = clock.now().timeIntervalSince1970
        guard let expiry = jws.claims["exp"]?.numericDate else {
            throw refuse(jws.claims["exp"] == nil ? "has no expiry (`exp`)" : "has an `exp` that is not a JSON number (RFC 7519 §2)")
        }
        guard expiry > now else { throw refuse("expired at \(Date(timeIntervalSince1970: expiry)) (`exp`)") }
        if let notBefore = jws.claims["nbf"] {
            guard let start = notBefore.numericDate else { throw refuse("has an `nbf` that is not a JSON number (RFC 7519 §2)") }
            guard start - Self.assertionLeeway <= now else { throw refuse("is not valid before \(Date(timeIntervalSince1970: start)) (`nbf`)") }
        }
    }
}
