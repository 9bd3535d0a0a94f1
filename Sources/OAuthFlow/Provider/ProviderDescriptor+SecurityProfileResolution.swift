extension ProviderDescriptor {
    /// Refuses every setting that contradicts the descriptor's `security.profile`, at its key path, saying what the
    /// profile requires (code `security_profile`, which lint rule `fapi2_profile` reports); nothing without a profile.
    ///
    /// A setting that only leaves a choice to the server (`pushed: if_supported`, `iss_parameter: if_present`) is not
    /// refused: the engine holds it to the profile (``Provider/pushesAuthorizationRequests``,
    /// ``Provider/issuerParameterRule``). What only the server's metadata and answers reveal is refused at run time.
    func refuseContradictions(ofSecurityProfile refusals: inout PolicyRefusals) {
        guard let profile = security.profile, profile.includesFAPI2Security else { return }
        var r = FAPI2Refusals(profile: profile, refusals: refusals)
        refuseFAPI2Metadata(&r)
        refuseFAPI2MessageSigning(&r)
        refuseFAPI2AuthorizationRequest(&r)
        refuseFAPI2ClientAuthentication(&r)
        refuseFAPI2Algorithms(&r)
        refuseFAPI2SenderConstraint(&r)
        refuseFAPI2TokenPlacement(&r)
        refusals = r.refusals
    }

    /// The refusals of one descriptor under a FAPI 2.0 profile, with the words every one of them uses.
    private struct FAPI2Refusals {
        let profile: SecurityProfile
        var refusals: PolicyRefusals
        /// The profile as the messages name it.
        var claim: String { "FAPI 2.0 (`security.profile: \(profile.rawValue)`)" }
        /// The algorithms the profile allows, as the messages list them.
        let algorithms = JWSAlgorithm.listed(SecurityProfile.fapi2Algorithms)

        mutating func refuse(_ setting: [String], item: String? = nil, _ why: String) {
            refusals.refuse(setting, item: item, code: .securityProfile, why)
        }
    }

    private func refuseFAPI2Metadata(_ r: inout FAPI2Refusals) {
        // Metadata from the issuer itself, read at its well-known address, and an issuer that matches it exactly.
        if issuer == nil {
            r.refuse(["issuer"], "is missing; \(r.claim) reads every endpoint from the issuer's metadata, so the issuer must be named")
        }
        if discovery.mode == .none {
            r.refuse(
                ["discovery", "mode"],
                "is `none`; \(r.claim) takes endpoints only from the metadata the issuer publishes: write `mode: oidc` (or `rfc8414`)")
        }
        if discovery.url != nil {
            r.refuse(
                ["discovery", "url"],
                "is given; \(r.claim) reads the metadata at the issuer's well-known address only (OpenID Connect Discovery or RFC 8414): leave it out"
            )
        }
        for (key, _) in endpoints.all {
            r.refuse(["endpoints", key], "is given; \(r.claim) takes every endpoint from the issuer's metadata: leave `endpoints` out")
        }
        if !security.issuerAliases.isEmpty {
            r.refuse(["security", "issuer_aliases"], "is given; \(r.claim) accepts only the issuer itself, spelt exactly as its metadata spells it")
        }
        if security.idTokenIssuer != nil {
            r.refuse(["security", "id_token_issuer"], "is given; \(r.claim) accepts only the issuer itself in ID tokens, not a template")
        }
    }

    private func refuseFAPI2MessageSigning(_ r: inout FAPI2Refusals) {
        // Message Signing: a signed request object and a JWT-secured response, every time.
        if r.profile.signsMessages {
            let signing = "FAPI 2.0 Message Signing (`security.profile: \(r.profile.rawValue)`)"
            if authorization.requestObject != .always {
                r.refuse(
                    ["authorization", "request_object"],
                    "is `\(authorization.requestObject.rawValue)`; \(signing) signs every authorization request (RFC 9101): write `always`")
            }
            if !authorization.responseMode.isJWT {
                r.refuse(
                    ["authorization", "response_mode"],
                    "is `\(authorization.responseMode.rawValue)`; \(signing) takes only JWT-secured responses (JARM): write `jwt`, `query.jwt` or `form_post.jwt`"
                )
            }
        }
    }

    private func refuseFAPI2AuthorizationRequest(_ r: inout FAPI2Refusals) {
        // The authorization request: pushed, with PKCE S256, answered with `iss`.
        if authorization.pushed == .never {
            r.refuse(["authorization", "pushed"], "is `never`; \(r.claim) pushes every authorization request (RFC 9126): write `always`")
        }
        if security.pkce == .unsupported {
            r.refuse(["security", "pkce"], "is `unsupported`; \(r.claim) sends PKCE with S256 on every authorization request: write `required`")
        }
        if security.issParameter == .absent {
            r.refuse(
                ["security", "iss_parameter"],
                "is `absent`; \(r.claim) requires `iss` in every authorization response (RFC 9207): write `required`")
        }
    }

    private func refuseFAPI2ClientAuthentication(_ r: inout FAPI2Refusals) {
        // Client authentication: a private key or a certificate, the assertion addressed to the issuer.
        let allowedMethods = SecurityProfile.fapi2ClientAuthentication
        let methodsNamed = SecurityProfile.fapi2ClientAuthentication.map { "`\($0.rawValue)`" }.joined(separator: ", ")
        if let methods = clientAuth.methods {
            for (index, method) in methods.enumerated() where !allowedMethods.contains(method) {
                r.refuse(
                    ["client_auth", "methods"], item: String(index),
                    "lists `\(method.rawValue)`; \(r.claim) authenticates clients only with \(methodsNamed)")
            }
        } else if !allowedMethods.contains(clientAuth.method) {
            r.refuse(
                ["client_auth", "method"],
                "is `\(clientAuth.method.rawValue)`\(clientAuth.method == .none ? " (the default)" : ""); \(r.claim) authenticates clients only with \(methodsNamed)"
            )
        }
        if clientAuth.assertionAudience != .issuer {
            r.refuse(
                ["client_auth", "assertion_audience"],
                "is `\(clientAuth.assertionAudience.rawValue)`; \(r.claim) addresses client assertions to the issuer (`aud` the issuer, as a string): write `issuer`"
            )
        }
        for (index, name) in (clientAuth.assertionAlgs ?? []).enumerated() where !Self.isFAPI2Algorithm(name) {
            r.refuse(
                ["client_auth", "assertion_algs"], item: String(index),
                "lists `\(name)`; \(r.claim) signs client assertions with \(r.algorithms) only")
        }
    }

    private func refuseFAPI2Algorithms(_ r: inout FAPI2Refusals) {
        // Signatures the client checks.
        if `protocol` == .oidc {
            for (index, name) in security.idTokenAlgs.enumerated() where !Self.isFAPI2Algorithm(name) {
                let defaulted = security.idTokenAlgs == Security.standard.idTokenAlgs ? " (the default list)" : ""
                r.refuse(
                    ["security", "id_token_algs"], item: String(index),
                    "lists `\(name)`\(defaulted); \(r.claim) accepts ID tokens signed with \(r.algorithms) only: write `id_token_algs` with those")
            }
        }
        // Request objects and JWT-secured responses: an algorithm the descriptor states is refused; the default
        // lists, which hold RS256, are narrowed instead (`Provider.Policy.hold(to:)`).
        for (index, name) in (authorization.requestObjectAlgs ?? []).enumerated() where !Self.isFAPI2Algorithm(name) {
            r.refuse(
                ["authorization", "request_object_algs"], item: String(index),
                "lists `\(name)`; \(r.claim) signs request objects with \(r.algorithms) only")
        }
        if authorization.responseAlgs != Authorization().responseAlgs {
            for (index, name) in authorization.responseAlgs.enumerated() where !Self.isFAPI2Algorithm(name) {
                r.refuse(
                    ["authorization", "response_algs"], item: String(index),
                    "lists `\(name)`; \(r.claim) accepts JWT-secured responses signed with \(r.algorithms) only")
            }
        }
    }

    private func refuseFAPI2SenderConstraint(_ r: inout FAPI2Refusals) {
        // Sender-constrained tokens: DPoP, or certificates (mutual TLS) when the client authenticates with one or the
        // provider binds tokens to the certificate the token request presents.
        let certificates = clientAuth.supported.contains(where: \.usesCertificate) || security.tlsClientCertificateBoundAccessTokens
        if security.dpop == .never, !certificates {
            r.refuse(
                ["security", "dpop"],
                "is `never`, and no mutual-TLS client authentication or certificate-bound tokens are declared; \(r.claim) sends only sender-constrained tokens: write `dpop: required` (or list `tls_client_auth`, or set `tls_client_certificate_bound_access_tokens: true`, for tokens bound to the certificate)"
            )
        }
        if security.dpop != .never {
            for (index, name) in security.dpopSigningAlgs.enumerated() where !Self.isFAPI2Algorithm(name) {
                r.refuse(
                    ["security", "dpop_signing_alg_values_supported"], item: String(index),
                    "lists `\(name)`; \(r.claim) signs DPoP proofs with \(r.algorithms) only")
            }
        }
        if security.dpopBearerAnswer == .accept {
            r.refuse(
                ["security", "dpop_bearer_answer"],
                "is `accept`; \(r.claim) refuses tokens that are not sender-constrained, so a Bearer answer to a DPoP request fails: write `refuse`"
            )
        }
    }

    private func refuseFAPI2TokenPlacement(_ r: inout FAPI2Refusals) {
        // Tokens only in headers (RFC 6750 §2.1, RFC 9449 §7.1), never in a URL.
        if userinfo.placement != .header {
            r.refuse(
                ["userinfo", "placement"],
                "is `\(userinfo.placement.rawValue)`; \(r.claim) sends access tokens only in the `Authorization` header: write `header`")
        }
        if revocation.placement == .query {
            r.refuse(["revocation", "placement"], "is `query`; \(r.claim) never puts a token in a URL: write `body`")
        }
    }

    /// Whether `name` is an algorithm FAPI 2.0 allows.
    private static func isFAPI2Algorithm(_ name: String) -> Bool {
        JWSAlgorithm(rawValue: name).map(SecurityProfile.fapi2Algorithms.contains) ?? false
    }
}

extension Provider.Policy {
    /// The policy held to `profile`: the algorithms it leaves open narrowed to the profile's (client assertions when
    /// the descriptor lists none, request objects and JWT-secured responses, whose default lists hold RS256); what the
    /// descriptor states is refused instead, before this.
    mutating func hold(to profile: ProviderDescriptor.SecurityProfile?) {
        securityProfile = profile
        guard let profile, profile.includesFAPI2Security else { return }
        let allowed = ProviderDescriptor.SecurityProfile.fapi2Algorithms
        clientAssertion.algorithms = clientAssertion.algorithms.filter(allowed.contains)
        idTokenAlgorithms = idTokenAlgorithms.filter(allowed.contains)
        dpop.algorithms = dpop.algorithms.filter(allowed.contains)
        requestObjectAlgorithms = requestObjectAlgorithms.filter(allowed.contains)
        responseAlgorithms = responseAlgorithms.filter(allowed.contains)
    }
}
