extension ProviderDescriptor.RevocationSettings {
    func resolved(_ refusals: inout PolicyRefusals) -> Self {
        if tokens.isEmpty {
            refusals.refuse(["revocation", "tokens"], "is empty; leave out `endpoints.revocation` for a provider that revokes nothing")
        }
        if placement == .bearer, let index = tokens.firstIndex(of: .refreshToken) {
            refusals.refuse(
                ["revocation", "tokens"], item: String(index),
                "lists `refresh_token`, but `placement: bearer` sends the token as the request's Bearer token, which a refresh token never is (RFC 6750)"
            )
        }
        if method == .get, placement == .body {
            refusals.refuse(["revocation", "method"], "is `GET`, which has no body: use `placement: query` or `bearer`")
        }
        if typeHintParameter == tokenParameter {
            refusals.refuse(["revocation", "type_hint_parameter"], "is `\(tokenParameter)`, the parameter carrying the token")
        }
        // Most descriptors add no parameter: the engine's names are listed only for one that does.
        guard !extraParams.isEmpty else { return self }
        let engineParameters = [
            tokenParameter, typeHintParameter, "client_id", "client_secret", "client_assertion", "client_assertion_type",
        ]
        for name in extraParams.keys.sorted() where engineParameters.contains(name) {
            refusals.refuse(["revocation", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a revocation request")
        }
        return self
    }
}
