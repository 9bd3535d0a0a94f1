extension ProviderDescriptor.Security {
    /// Refuses the `plain` PKCE method (RFC 9700 §2.1.1).
    func checkPKCE(_ refusals: inout PolicyRefusals) {
        if pkceMethod != .s256 {
            refusals.refuse(["security", "pkce_method"], "is `\(pkceMethod.rawValue)`; OAuthFlow sends only `S256` (RFC 9700 §2.1.1)")
        }
    }

    /// Refuses an ID token issuer template that could never apply, or a list of multi-tenant values with no template or
    /// no variable in the issuer to take them: a descriptor copied from an older one would otherwise refuse every ID
    /// token of a multi-tenant sign-in as from another issuer, without saying why.
    func checkIssuerTemplate(issuer: String?, _ refusals: inout PolicyRefusals) {
        switch (idTokenIssuer, multiTenantValues.isEmpty) {
        case (.some, true):
            refusals.refuse(
                ["security", "id_token_issuer"],
                "applies only while a variable of the issuer takes one of `security.multi_tenant_values` (Entra: `common`, `organizations`, `consumers`), and none is listed: it would never apply"
            )
        case (nil, false):
            refusals.refuse(["security", "multi_tenant_values"], "says when `security.id_token_issuer` applies, and there is none")
        case (.some, false) where issuer.map({ URLTemplate($0).placeholders.isEmpty }) ?? true:
            refusals.refuse(["security", "multi_tenant_values"], "names values of the issuer's variables, and the issuer has none")
        default:
            break
        }
    }

    /// The ID token algorithms, each unknown one refused.
    func idTokenAlgorithms(_ refusals: inout PolicyRefusals) -> [JWSAlgorithm] {
        refusals.algorithms(idTokenAlgs, ["security", "id_token_algs"]) { "lists `\($0)`, which is not an algorithm OAuthFlow verifies" }
    }

    func dpopPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.DPoPPolicy {
        let algorithms = refusals.algorithms(dpopSigningAlgs, ["security", "dpop_signing_alg_values_supported"], accepted: JWSAlgorithm.dpopKey) {
            "lists `\($0)`; OAuthFlow signs DPoP proofs with \(JWSAlgorithm.listed(JWSAlgorithm.dpopKey))"
        }
        if dpop != .never, dpopSigningAlgs.isEmpty {
            refusals.refuse(["security", "dpop_signing_alg_values_supported"], "is empty, so no DPoP key can be made")
        }
        return .init(use: dpop, algorithms: algorithms, bearerAnswer: dpopBearerAnswer)
    }

    /// Refuses an OpenID Connect provider whose ID tokens would go unchecked for replay (`nonce: false`), and
    /// `nonce_echoed: false` where it says nothing (OpenID Connect Core §3.1.2.1, §3.1.3.7; RFC 9700 §4.5.3).
    ///
    /// A provider whose ID tokens never carry the nonce (LinkedIn) keeps `nonce` on and says so with
    /// `nonce_echoed: false`: its tokens are then verified in every other way, and the missing nonce is the
    /// descriptor's stated choice, not a check left out.
    func checkNonce(protocol: ProviderProtocol, _ refusals: inout PolicyRefusals) {
        let sent = nonce ?? (`protocol` == .oidc)
        if `protocol` == .oidc, !sent {
            refusals.refuse(
                ["security", "nonce"],
                "is `false` for an OpenID Connect provider, whose ID tokens would then be accepted without the check against replay and code injection; keep it on, with `nonce_echoed: false` for a provider whose ID tokens never carry the nonce, or make the provider `protocol: oauth2`"
            )
        }
        if !nonceEchoed, `protocol` != .oidc || !sent {
            refusals.refuse(
                ["security", "nonce_echoed"],
                "is `false`, which is about the nonce of OpenID Connect ID tokens: it needs `protocol: oidc` and `nonce: true`")
        }
    }
}

extension Provider.Policy {
    /// DPoP: when it is used, the key algorithms in the client's order, and what a Bearer answer means.
    public struct DPoPPolicy: Sendable, Hashable {
        public var use: ProviderDescriptor.DPoPMode
        public var algorithms: [JWSAlgorithm]
        public var bearerAnswer: ProviderDescriptor.BearerAnswer
    }
}
