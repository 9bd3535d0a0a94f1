import Foundation

/// Pushed authorization requests (RFC 9126): the request POSTed first, the browser sent with its `request_uri`.
extension OAuthClient {
    /// Pushes the authorization request (RFC 9126 §2) and builds the URL the browser opens from the answer; with
    /// `requestObjectKey`, its parameters go signed in a request object (RFC 9126 §3, RFC 9101).
    func push(to target: Provider, proofKey: DPoPKey?, requestObjectKey: ClientConfiguration.SigningKey? = nil) async throws
        -> PendingAuthorization
    {
        guard let endpoint = target.endpoints.pushedAuthorization else {
            let why =
                target.capabilities.requiresPushedAuthorization
                ? "its discovery document requires pushed authorization requests" : "its descriptor says `authorization.pushed: always`"
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no pushed authorization request endpoint, but \(why); set `endpoints.pushed_authorization`")
        }
        let request = try PendingAuthorization.Request(provider: target, client: configuration, proofKey: proofKey)
        let sentAt = clock.now()
        let parameters =
            if let requestObjectKey {
                try await requestObjectParameters(request, target: target, key: requestObjectKey, pushed: true)
            } else { request.parameters }
        let response = try await post(to: endpoint, parameters, encoding: .form, purpose: .par)
        let pushed = try PushedRequest(response, endpoint: endpoint, provider: provider.id)
        return try request.pending(
            url: try PendingAuthorization.url(
                target, [(target.policy.clientIDParameter, configuration.clientID), ("request_uri", pushed.requestURI)]),
            requestExpiresAt: sentAt.addingTimeInterval(pushed.lifetime), now: sentAt)
    }
}
