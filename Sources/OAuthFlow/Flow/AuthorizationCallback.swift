import Foundation

/// The parameters of an authorization response (RFC 6749 §4.1.2), from the redirect's
/// query or from a `form_post` body.
public struct AuthorizationCallback: Sendable {
    /// The parameters, first occurrence of each name.
    public let parameters: [String: String]
    /// Names that appeared more than once, which RFC 6749 §3.1 forbids.
    let repeated: Set<String>
    /// Whether the parameters are the claims of a verified JWT-secured response (JARM), not the redirect's own.
    var isFromResponseJWT = false

    /// Reads the redirect URL the browser was sent to.
    ///
    /// - Parameters:
    ///   - url: The full redirect URL.
    ///   - redirectURI: The redirect URI of the request; scheme, host, port and path must match.
    /// - Throws: ``FlowError`` when the URL is for another redirect URI.
    public init(url: URL, expectedRedirectURI redirectURI: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        else {
            throw FlowError(.invalidCallback, "the callback URL cannot be parsed")
        }
        let samePlace =
            components.scheme?.lowercased() == expected.scheme?.lowercased()
            && components.host?.lowercased() == expected.host?.lowercased()
            && (components.port == expected.port || Loopback.isLoopbackHost(expected.host ?? "") && expected.port == nil)
            && (components.path.isEmpty ? "/" : components.path) == (expected.path.isEmpty ? "/" : expected.path)
        guard samePlace else {
            throw FlowError(.invalidCallback, "the callback is not for the redirect URI of this request")
        }
        // RFC 6749 Appendix B: response parameters are form-encoded, so `+` is a space.
        self.init(items: FormEncoding.decode(components.percentEncodedQuery ?? ""))
    }

    /// Reads an `application/x-www-form-urlencoded` body (`response_mode=form_post`).
    public init(formBody: Data) throws {
        guard let text = String(data: formBody, encoding: .utf8) else {
            throw FlowError(.invalidCallback, "the callback body is not UTF-8")
        }
        self.init(items: FormEncoding.decode(text))
    }

    init(items: [(String, String)]) {
        var parameters: [String: String] = [:]
        var repeated: Set<String> = []
        for (name, value) in items {
            if parameters[name] == nil { parameters[name] = value } else { repeated.insert(name) }
        }
        self.parameters = parameters
        self.repeated = repeated
    }

    /// Checks the callback against the request it answers, in the order that matters
    /// for security: `state` (CSRF), `iss` (mix-up, RFC 9207), then the server's error or `code`.
    /// An error redirect without `iss` is reported as the provider's error, marked unauthenticated,
    /// even when `iss_parameter` is `required`: it spends nothing. One naming another issuer is refused.
    ///
    /// - Returns: The authorization code.
    /// - Throws: ``AuthorizationServerError`` when the server reported an error;
    ///   ``FlowError`` when the callback is rejected.
    public func validate(for pending: PendingAuthorization, provider: Provider) throws -> Secret {
        for name in ["state", "code", "iss", "error"] where repeated.contains(name) {
            throw FlowError(.invalidCallback, "the callback repeats the `\(name)` parameter")
        }
        // state first: an error redirect from a forged request must not be believed either.
        guard let state = parameters["state"], pending.state.constantTimeEquals(state) else {
            throw FlowError(
                .stateMismatch,
                parameters["state"] == nil
                    ? "the callback has no `state`; it may be forged (CSRF)"
                    : "the callback's `state` does not match the request's; it may be forged (CSRF)")
        }
        if let error = parameters["error"] {
            // An error response spends nothing, so one without `iss` is reported rather than
            // called a mix-up; one naming another issuer is still refused as a mix-up.
            let unauthenticated = parameters["iss"] == nil && provider.issuerParameterRule == .required
            if !unauthenticated { try checkIssuer(provider) }
            let serverError = AuthorizationServerError(
                error: error, errorDescription: parameters["error_description"],
                errorURI: parameters["error_uri"])
            throw unauthenticated
                ? serverError.hinted(
                    "this error redirect carried no `iss`, so it is unauthenticated: RFC 9207 could not verify that provider `\(provider.id)` sent it (nothing was sent to the token endpoint)"
                )
                : serverError
        }
        try checkIssuer(provider)
        guard let code = parameters["code"], !code.isEmpty else {
            throw FlowError(.missingCode, "the callback has neither `code` nor `error`")
        }
        return Secret(code)
    }

    private func checkIssuer(_ provider: Provider) throws {
        let policy = provider.issuerParameterRule
        guard let iss = parameters["iss"] else {
            if policy == .required {
                let source = provider.policy.issParameter == .required ? "" : " (its metadata says `authorization_response_iss_parameter_supported`)"
                throw FlowError(
                    .issuerMismatch,
                    "the callback has no `iss`, which provider `\(provider.id)` always sends\(source): possible mix-up attack (RFC 9207 §2.4); nothing was sent to the token endpoint"
                )
            }
            return
        }
        // RFC 9207 §2.4: a present `iss` is compared with the issuer, whatever the descriptor expects; under `absent`
        // without an issuer declared there is nothing to compare it with.
        guard policy != .absent || provider.issuer != nil else { return }
        guard let issuer = provider.issuer?.absoluteString else {
            throw FlowError(.issuerMismatch, "the callback names issuer `\(iss)` but provider `\(provider.id)` declares none")
        }
        guard provider.isIssuer(iss) else {
            throw FlowError(
                .issuerMismatch,
                "the callback comes from issuer `\(iss)`, not `\(issuer)`: possible mix-up attack (RFC 9207); nothing was sent to the token endpoint")
        }
    }
}
