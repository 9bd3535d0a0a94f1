import Foundation

/// The security profile at run time (`security.profile`): what only the server's metadata, the client's credentials
/// and the token endpoint's answers reveal. The resolver has already refused a descriptor that contradicts it.
extension OAuthClient {
    /// Refuses, before anything is pushed or opened, an authorization the provider's profile does not allow: for FAPI
    /// 2.0, metadata from the issuer that names a pushed authorization request endpoint and lists S256, a client that
    /// authenticates with a key FAPI 2.0 allows or a certificate, and tokens that will be sender-constrained (a DPoP
    /// key, or the client's certificate, which authenticates the client or which the token requests present).
    ///
    /// - Parameters:
    ///   - target: The provider the request is built for, discovered.
    ///   - proofKey: The session's DPoP key, or nil when DPoP is not used.
    /// - Throws: ``FlowError`` `security_profile` saying what falls short.
    func holdToSecurityProfile(_ target: Provider, proofKey: DPoPKey?) throws {
        guard let profile = target.policy.securityProfile, profile.includesFAPI2Security else { return }
        let held = "provider `\(provider.id)` is held to \(profile.title) (`security.profile: \(profile.rawValue)`)"
        let metadata = "the metadata of \(target.issuer?.absoluteString ?? "its issuer")"
        guard target.usesDiscovery, target.isDiscovered else {
            throw FlowError(.securityProfile, "\(held), which takes endpoints only from the issuer's metadata, and it uses no discovery")
        }
        guard target.endpoints.pushedAuthorization != nil else {
            throw FlowError(
                .securityProfile,
                "\(held), which pushes every authorization request (RFC 9126), but \(metadata) names no `pushed_authorization_request_endpoint`")
        }
        guard target.capabilities.codeChallengeMethods?.contains(PKCE.method) == true else {
            let listed = target.capabilities.codeChallengeMethods.map { $0.isEmpty ? "lists none" : "lists \($0.joined(separator: ", "))" }
            throw FlowError(
                .securityProfile,
                "\(held), which uses PKCE with S256, but the `code_challenge_methods_supported` of \(metadata) \(listed ?? "is missing")")
        }
        let method = try configuration.authenticationMethod(for: provider)
        guard ProviderDescriptor.SecurityProfile.fapi2ClientAuthentication.contains(method) else {
            throw FlowError(
                .securityProfile, "\(held), which authenticates clients with `private_key_jwt` or mutual TLS, not `\(method.rawValue)`")
        }
        if method == .privateKeyJWT, let key = configuration.signingKey,
            !ProviderDescriptor.SecurityProfile.fapi2Algorithms.contains(key.algorithm)
        {
            let allowed = JWSAlgorithm.listed(ProviderDescriptor.SecurityProfile.fapi2Algorithms)
            let hint = key.algorithm == .rs256 ? ": sign with the RSA key as PS256 (`ClientConfiguration.SigningKey(pem:algorithm: .ps256)`)" : ""
            throw FlowError(
                .securityProfile,
                "\(held), whose client assertions are signed with \(allowed), but the client's key signs \(key.algorithm.rawValue)\(hint)")
        }
        // Certificate-bound without DPoP: the client authenticates with its certificate, or its token requests present
        // it (`security.tls_client_certificate_bound_access_tokens`, whose certificate `startAuthorization` required).
        if proofKey == nil, !method.usesCertificate, !target.policy.certificateBoundTokens {
            throw FlowError(
                .securityProfile,
                "\(held), which sends only sender-constrained tokens, but \(metadata) lists no DPoP algorithm the descriptor allows (`security.dpop_signing_alg_values_supported`) and the client authenticates without a certificate"
            )
        }
    }

    /// Refuses a token answer that is not sender-constrained when the provider's profile requires it: tokens issued to
    /// a request without a DPoP proof must be bound to the client's certificate (mutual TLS): presented by a client that
    /// authenticates with one, or named by the answer's `cnf.x5t#S256`.
    ///
    /// - Throws: ``FlowError`` `security_profile`.
    func requireSenderConstrained(_ tokens: TokenSet) throws {
        guard let profile = provider.policy.securityProfile, profile.includesFAPI2Security, tokens.tokenType != "dpop",
            !tokens.isCertificateBound, (try? configuration.authenticationMethod(for: provider))?.usesCertificate != true
        else { return }
        throw FlowError(
            .securityProfile,
            "provider `\(provider.id)` is held to \(profile.title) (`security.profile: \(profile.rawValue)`), and its token endpoint issued `token_type: \(tokens.tokenType)` tokens bound neither to a DPoP key nor to a client certificate; they are not kept"
        )
    }
}
