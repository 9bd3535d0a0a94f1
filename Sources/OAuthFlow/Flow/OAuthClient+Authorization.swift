import Foundation
import Logging

/// The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636): what the browser opens.
extension OAuthClient {
    /// Builds the authorization request: the URL to open, and what the callback will be checked against.
    ///
    /// When the provider takes pushed authorization requests (``Provider/pushesAuthorizationRequests``), every
    /// parameter is POSTed to it first, with client authentication, and the URL carries only `client_id` and
    /// `request_uri` (RFC 9126). When tokens are to be DPoP-bound, the session's key is made here and its
    /// thumbprint sent as `dpop_jkt` (RFC 9449 §10). When the provider takes signed request objects
    /// (`authorization.request_object`), the parameters go in a JWT signed with the client's private key (RFC 9101).
    /// - Throws: ``FlowError`` (`missingEndpoint`, `pushedAuthorization`, `dpop`, `requestObject`; `clientAuthentication` for a
    ///   public client of a provider that takes no PKCE), ``AuthorizationServerError``
    ///   when the pushed request is refused, ``DiscoveryError``, ``TransportError``.
    public func startAuthorization() async throws -> PendingAuthorization {
        // A client that cannot authenticate at the token endpoint could only fail after the user consented.
        let method = try configuration.authenticationMethod(for: provider)
        // RFC 9700 §2.1.1: a public client uses PKCE, which the engine does not send to a provider that takes none.
        if method == .none, provider.policy.pkce == .unsupported {
            throw FlowError(
                .clientAuthentication,
                "provider `\(provider.id)` takes no PKCE (`security.pkce: unsupported`), and a public client (no secret, key or certificate) must use it (RFC 9700 §2.1.1): give client `\(configuration.clientID)` its credential; nothing was sent"
            )
        }
        // Nor one whose tokens the provider binds to a certificate it does not hold.
        _ = try presentedCertificate(keepingBinding: false, requestingTokens: true)
        let target = try await providerForAuthorization()
        let key = try proofKey(for: target)
        try holdToSecurityProfile(target, proofKey: key)
        let signer = try requestObjectKey(for: target)
        let pending: PendingAuthorization
        if target.pushesAuthorizationRequests {
            pending = try await push(to: target, proofKey: key, requestObjectKey: signer)
        } else if let signer {
            let request = try PendingAuthorization.Request(provider: target, client: configuration, proofKey: key)
            let parameters = try await requestObjectParameters(request, target: target, key: signer, pushed: false)
            pending = try request.pending(url: PendingAuthorization.url(target, parameters), requestExpiresAt: nil, now: clock.now())
        } else {
            pending = try PendingAuthorization.start(provider: target, client: configuration, proofKey: key, now: clock.now())
        }
        logger.debug(
            "authorization started",
            metadata: [
                "provider": "\(provider.id)", "scopes": "\(pending.scopes.joined(separator: " "))", "pushed": "\(pending.requestExpiresAt != nil)",
                "dpop": "\(key != nil)", "request_object": "\(signer != nil)",
            ])
        return pending
    }

    /// The provider an authorization request is built for. Discovery runs first only when the request needs it:
    /// no authorization endpoint in the descriptor, `pushed: always` without `endpoints.pushed_authorization`, or
    /// `dpop: if_supported` or `request_object: if_supported`, or authorization details whose types the descriptor does
    /// not declare (discovery's `authorization_details_types_supported` may). A provider with static endpoints otherwise starts offline, and pushes with
    /// `if_supported` when its descriptor names the endpoint or it was discovered before (as
    /// ``ProviderRegistry/resolve(_:variables:discovery:)`` does).
    private func providerForAuthorization() async throws -> Provider {
        guard provider.usesDiscovery else { return provider }
        let policy = provider.policy
        let mayNeed =
            provider.endpoints.authorization == nil || policy.pushedAuthorization == .always && provider.endpoints.pushedAuthorization == nil
            || policy.dpop.use == .ifSupported || policy.requestObject == .ifSupported
            // Authorization details without declared types are checked against discovery's (RFC 9396 §10).
            || !configuration.authorizationDetails.isEmpty && policy.authorizationDetailsTypes == nil
        return mayNeed ? try await discoveredProvider() : knownProvider
    }
}
