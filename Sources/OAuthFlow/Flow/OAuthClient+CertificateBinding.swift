import Foundation

/// Certificate-bound tokens (RFC 8705 §3) and the mutual-TLS endpoint aliases (§5): which requests present the client's
/// certificate, where they go, and which tokens are bound to it.
extension OAuthClient {
    /// The certificate a request to the authorization server presents: the configuration's ``ClientConfiguration/tlsIdentity``
    /// when the client authenticates with it (`tls_client_auth`, `self_signed_tls_client_auth`), `keepingBinding` (the
    /// request renews or revokes certificate-bound tokens), or `requestingTokens` at a provider that binds tokens to the
    /// certificate (`security.tls_client_certificate_bound_access_tokens`); nil otherwise.
    ///
    /// - Throws: ``FlowError`` `certificateBinding` when the certificate is needed and the configuration holds none.
    func presentedCertificate(keepingBinding: Bool, requestingTokens: Bool = false) throws -> TLSClientIdentity? {
        let method = try? configuration.authenticationMethod(for: provider)
        let binds = requestingTokens && provider.policy.certificateBoundTokens
        guard method?.usesCertificate == true || keepingBinding || binds else { return nil }
        guard let identity = configuration.tlsIdentity else {
            throw FlowError(
                .certificateBinding,
                keepingBinding
                    ? "provider `\(provider.id)` bound this session's tokens to a client certificate (RFC 8705), and the client configuration holds none (`tlsIdentity`, `certificate_file` in the clients file); nothing is sent without it"
                    : "provider `\(provider.id)` binds its tokens to the client certificate (RFC 8705, `security.tls_client_certificate_bound_access_tokens`), and the client configuration holds none (`tlsIdentity`, `certificate_file` in the clients file)"
            )
        }
        return identity
    }

    /// Where a request that presents the client certificate goes instead of `endpoint`: its alias in the metadata's
    /// `mtls_endpoint_aliases` (RFC 8705 §5), or `endpoint` itself when there is none.
    func mutualTLSEndpoint(_ endpoint: URL) async throws -> URL {
        let known = provider.usesDiscovery ? try await discoveredProvider() : provider
        return known.endpoints.mutualTLSAlias(of: endpoint) ?? endpoint
    }

    /// The certificate a request that carries `tokens` presents (the configuration's, when they are certificate-bound),
    /// and where it goes (`endpoint`'s mutual-TLS alias then).
    ///
    /// - Throws: ``FlowError`` `certificateBinding` when the tokens are bound and the configuration holds no certificate,
    ///   another one, or the URL is not https.
    func certificateRoute(for tokens: TokenSet, to endpoint: URL) async throws -> (identity: TLSClientIdentity?, url: URL) {
        guard tokens.isCertificateBound else { return (nil, endpoint) }
        let url = try await mutualTLSEndpoint(endpoint)
        return (try tokens.presentedIdentity(configuration.tlsIdentity, to: url), url)
    }

    /// `tokens` marked as bound to the certificate they were issued with: the answer's (or the access token's)
    /// `cnf.x5t#S256` when it says one, else the certificate the token request presented; unbound when neither.
    func certificateBinding(of tokens: TokenSet, presented: TLSClientIdentity?) -> TokenSet {
        var marked = tokens
        marked.certificateThumbprint = Self.certificateConfirmation(of: tokens) ?? presented?.thumbprint
        return marked
    }

    /// The `x5t#S256` of the `cnf` member of a token answer or of its access token's JWT payload (RFC 8705 §3.1), read
    /// without checking the token's signature: the client only learns which certificate to present.
    static func certificateConfirmation(of tokens: TokenSet) -> String? {
        if case let .object(confirmation)? = tokens.additionalFields["cnf"], let thumbprint = confirmation["x5t#S256"]?.stringValue {
            return thumbprint
        }
        let parts = tokens.accessToken.value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            case let .object(claims)? = try? ServerJSON.value(payload),
            case let .object(confirmation)? = claims["cnf"]
        else { return nil }
        return confirmation["x5t#S256"]?.stringValue
    }
}
