import Foundation
import Logging

/// Requests to the token endpoint and the other endpoints a client authenticates at (RFC 6749 §2.3, RFC 7523, RFC 8705): client authentication, the body encoding, and the hints for errors a wrong setting causes.
extension OAuthClient {
    /// Adds a hint to the token endpoint's errors that a wrong `token_request.body_encoding` causes,
    /// only when the answer really points at the encoding: `unsupported_grant_type` (a `grant_type`
    /// was sent), or `invalid_request` whose description says a parameter that was sent is missing.
    /// A refresh refused otherwise is not about the encoding: its hint is to sign in again.
    ///
    /// - Parameters:
    ///   - parameters: The parameters the request sent (before client authentication is added).
    ///   - parse: Reads the answer; its ``AuthorizationServerError`` gets the hint.
    func explainingEncoding<T>(sent parameters: [(String, String)] = [], _ parse: () throws -> T) throws -> T {
        do {
            return try parse()
        } catch let error as AuthorizationServerError where ["unsupported_grant_type", "invalid_request"].contains(error.error) {
            var sent = Set(parameters.map(\.0))
            if let method = try? configuration.authenticationMethod(for: provider), method != .clientSecretBasic {
                sent.insert(provider.policy.clientIDParameter)
            }
            let description = (error.errorDescription ?? "").lowercased()
            let saysMissing = ["missing", "required", "absent", "not present", "not provided", "must be provided"]
                .contains { description.contains($0) }
            let namesSent = sent.contains { name in
                description.contains(name) || description.contains(name.replacingOccurrences(of: "_", with: " "))
            }
            if error.error == "unsupported_grant_type" || saysMissing && namesSent {
                let encoding = provider.policy.tokenRequest.encoding
                let other = encoding == .form ? "json" : "form"
                throw error.hinted(
                    "the token request was sent \(encoding == .form ? "form-encoded" : "as JSON") (`token_request.body_encoding: \(encoding.rawValue)`); if the provider expects the other encoding, set `body_encoding: \(other)`"
                )
            }
            if parameters.contains(where: { $0 == ("grant_type", "refresh_token") }) {
                throw error.hinted("the provider refused the refresh, so this session cannot be refreshed; sign in again")
            }
            throw error
        } catch let error as AuthorizationServerError
            where error.error == "invalid_client" && provider.policy.tokenRequest.encoding == .json
            && (try? configuration.authenticationMethod(for: provider)) != .clientSecretBasic
        {
            // The client's id (and secret) went in a JSON body: a server that reads only form bodies saw none.
            throw error.hinted(
                "the client was identified in a JSON body (`token_request.body_encoding: json`); if the provider reads form-encoded bodies only, it saw no client_id: set `body_encoding: form`"
            )
        } catch let error as AuthorizationServerError where error.refusesClient {
            // A server that refuses an assertion often refuses its audience (idpyoidc: "Not for me!"), which no method change fixes.
            // A refusal that names another cause (the algorithm, the signature, the key, the lifetime) is not about `aud`.
            let description = (error.errorDescription ?? "").lowercased()
            let otherCause = ["alg", "signature", "key", "expired", "exp ", "jti", "not yet valid", "certificate"].contains {
                description.contains($0)
            }
            guard !otherCause, let method = try? configuration.authenticationMethod(for: provider),
                method == .privateKeyJWT || method == .clientSecretJWT,
                let endpoint = knownProvider.endpoints.token, let audience = try? assertionAudience(endpoint: endpoint)
            else { throw error }
            let setting = provider.policy.clientAssertion.audience
            let other: ProviderDescriptor.AssertionAudience = setting == .issuer ? .tokenEndpoint : .issuer
            throw error.hinted(
                "the \(method.rawValue) assertion was sent with `aud` `\(audience)` (`client_auth.assertion_audience: \(setting.rawValue)`); if the provider expects its \(other == .issuer ? "issuer" : "token endpoint") there, set `assertion_audience: \(other.rawValue)`"
            )
        }
    }

    /// A request to the token endpoint with the fixed parameters added; a redirect answer is refused.
    ///
    /// - Parameters:
    ///   - refreshing: Whether it is a refresh, which goes to `endpoints.refresh` when the provider names one.
    ///   - keepingBinding: Whether it renews certificate-bound tokens: the client certificate goes with it.
    func tokenRequest(
        _ parameters: [(String, String)], proofKey: DPoPKey? = nil, refreshing: Bool = false, keepingBinding: Bool = false,
        arrival: (@Sendable (TransportResponse) -> Void)? = nil
    ) async throws -> TransportResponse {
        let endpoint: URL
        if refreshing, let refresh = provider.endpoints.refresh {
            endpoint = refresh
        } else {
            endpoint = try await self.endpoint(\.token, "token")
        }
        let fixed = provider.policy.tokenRequest.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let response = try await post(
            to: endpoint, parameters + fixed, proofKey: proofKey, keepingBinding: keepingBinding, requestingTokens: true, arrival: arrival)
        if (300..<400).contains(response.status) {
            throw FlowError(
                .unexpectedStatus,
                "the token endpoint answered HTTP \(response.status) (a redirect); OAuthFlow does not follow redirects with credentials")
        }
        logger.trace("token endpoint answered", metadata: ["provider": "\(provider.id)", "status": "\(response.status)"])
        return response
    }

    /// The client secret to send: the configured one, or, when the descriptor says the secret is a JWT the
    /// client signs (`client_auth.generated_secret`), one signed with the client's key, reused until a sixth of
    /// its lifetime is left.
    func clientSecret() async throws -> Secret? {
        guard let policy = provider.policy.generatedSecret, let key = configuration.signingKey else { return configuration.clientSecret }
        let now = clock.now()
        if let kept = lastGeneratedSecret, kept.expiresAt.timeIntervalSince(now) > policy.lifetime / 6 { return kept.secret }
        let clientID = configuration.clientID
        let secret = try await ClientAssertion.generatedSecret(
            clientID: clientID, issuer: policy.issuer.replacingOccurrences(of: "{client_id}", with: clientID),
            audience: policy.audience.replacingOccurrences(of: "{client_id}", with: clientID), key: key, now: now, lifetime: policy.lifetime)
        lastGeneratedSecret = (secret, now.addingTimeInterval(policy.lifetime))
        return secret
    }

    /// The HTTP Basic `Authorization` header of `client_secret_basic` (RFC 6749 §2.3.1: id and secret
    /// form-urlencoded before they are joined and base64-encoded), and the secret it carries.
    func basicAuthorization() async throws -> (header: String, secret: String) {
        guard let secret = try await clientSecret() else {
            throw FlowError(
                .missingClientSecret, "provider `\(provider.id)` uses client_secret_basic, which needs a client secret, and none was given")
        }
        let credentials = FormEncoding.encode(configuration.clientID) + ":" + FormEncoding.encode(secret.value)
        return ("Basic " + Data(credentials.utf8).base64EncodedString(), secret.value)
    }

    /// Sends a form (a POST, unless `method` says otherwise) to the token, revocation, device or pushed request
    /// endpoint with client authentication and the descriptor's encoding (or `encoding`), with a DPoP proof from
    /// `proofKey` when one is given.
    ///
    /// The client certificate goes with it, to the endpoint's `mtls_endpoint_aliases` entry when the metadata names one
    /// (RFC 8705 §5), when the client authenticates with it, `keepingBinding` (the request concerns tokens bound to it), or
    /// `requestingTokens` at a provider that binds tokens to it (`security.tls_client_certificate_bound_access_tokens`).
    ///
    /// `purpose` names the endpoint in the request's span and timer; `secrets` are values among `parameters` under
    /// names that do not say they are secret (a token revoked as `access_token`), blanked in an error answer too.
    func post(
        to endpoint: URL, _ parameters: [(String, String)], method requestMethod: TransportRequest.Method = .post,
        encoding: ProviderDescriptor.BodyEncoding? = nil, proofKey: DPoPKey? = nil, keepingBinding: Bool = false,
        requestingTokens: Bool = false, purpose: Instruments.Endpoint = .token, secrets: [Secret] = [],
        arrival: (@Sendable (TransportResponse) -> Void)? = nil
    ) async throws -> TransportResponse {
        try await requireCredentialBinding(sendingTo: endpoint)
        let shape = provider.policy.tokenRequest
        let method = try configuration.authenticationMethod(for: provider)
        let (url, identity) = try await certificateRoute(
            to: endpoint, method: method, keepingBinding: keepingBinding, requestingTokens: requestingTokens)
        // A client assertion names the endpoint as published (`endpoint`), not its mutual-TLS alias; one addressed to a
        // token endpoint goes to no other server than that endpoint's, or whoever runs the alias could replay it there.
        if method == .clientSecretJWT || method == .privateKeyJWT, provider.policy.clientAssertion.audience == .tokenEndpoint,
            !Origin.same(url, endpoint)
        {
            throw FlowError(
                .clientAuthentication,
                "refusing to send a client assertion addressed to \(endpoint.absoluteString) to \(url.absoluteString), its mutual-TLS alias on another server: whoever answers there could replay it; use `client_auth.assertion_audience: issuer`"
            )
        }
        // The same for a JWT bearer grant's assertion (RFC 7523 §3) addressed to the published token endpoint
        // (`checkAssertion` has already refused one whose `aud` names neither it nor the issuer as written).
        if !Origin.same(url, endpoint), let assertion = parameters.first(where: { $0.0 == "assertion" })?.1,
            let jws = try? CompactJWS(assertion), audienceClaim(jws.claims)?.contains(endpoint.absoluteString) == true
        {
            throw FlowError(
                .unusableAssertion,
                "refusing to send a JWT bearer assertion addressed to \(endpoint.absoluteString) to \(url.absoluteString), its mutual-TLS alias on another server: whoever answers there could replay it; have the assertion name the issuer"
            )
        }
        var form = try await authenticated(AuthenticatedForm(fields: parameters, headers: shape.headers), by: method, published: endpoint)
        form.otherSecrets = secrets.map(\.value)
        try FlowError.requireSecure(url)
        let bodyEncoding = encoding ?? shape.encoding
        switch bodyEncoding {
        case .form: form.headers["Content-Type"] = "application/x-www-form-urlencoded"
        case .json: form.headers["Content-Type"] = "application/json"
        }
        if form.headers["Accept"] == nil { form.headers["Accept"] = "application/json" }
        let request = TransportRequest(
            method: requestMethod, url: url, headers: form.headers, body: try Self.body(form.fields, bodyEncoding), clientIdentity: identity)
        return try await send(request, form, encoding: bodyEncoding, proofKey: proofKey, purpose: purpose, arrival: arrival)
    }

    /// A form on its way to an endpoint, with what client authentication added to it.
    private struct AuthenticatedForm {
        var fields: [(String, String)]
        var headers: [String: String]
        /// The Basic secret travels in a header, not among the fields: named here so an echo of it is blanked too.
        var headerSecret: String?
        /// Secret values among the fields under names ``SentSecrets`` does not know.
        var otherSecrets: [String] = []
        /// A new client assertion, for a retry (an assertion is single-use).
        var renewedAssertion: (@Sendable () async throws -> Secret)?
    }

    /// Where a request to `endpoint` goes, and the client certificate it presents: the endpoint's mutual-TLS alias when
    /// a certificate goes with it (`post` says when), which must be https.
    private func certificateRoute(
        to endpoint: URL, method: ProviderDescriptor.ClientAuthMethod, keepingBinding: Bool, requestingTokens: Bool
    ) async throws -> (url: URL, identity: TLSClientIdentity?) {
        var endpoint = endpoint
        let identity = try presentedCertificate(keepingBinding: keepingBinding, requestingTokens: requestingTokens)
        if identity != nil {
            endpoint = try await mutualTLSEndpoint(endpoint)
            guard endpoint.scheme?.lowercased() == "https" else {
                throw FlowError(
                    method.usesCertificate ? .clientAuthentication : .certificateBinding,
                    "the client certificate is presented over TLS, but \(endpoint.absoluteString) is not https (and discovery names no `mtls_endpoint_aliases` for it)"
                )
            }
        }
        return (endpoint, identity)
    }

    /// `form` with the client's authentication by `method`: its id, secret or assertion among the fields, or the Basic
    /// `Authorization` header.
    private func authenticated(
        _ form: AuthenticatedForm, by method: ProviderDescriptor.ClientAuthMethod, published: URL
    ) async throws -> AuthenticatedForm {
        var form = form
        // A pushed authorization request already names the client (RFC 9126 §2.1): never twice. The client goes by
        // the provider's name for it (`client_auth.client_id_parameter`).
        let clientIDName = provider.policy.clientIDParameter
        let named = form.fields.contains { $0.0 == clientIDName }
        let clientID = named ? [] : [(clientIDName, configuration.clientID)]
        switch method {
        case .none:
            form.fields += clientID
        case .clientSecretPost:
            form.fields += clientID
            if let secret = try await clientSecret() { form.fields.append(("client_secret", secret.value)) }
        case .clientSecretBasic:
            let basic = try await basicAuthorization()
            form.headers["Authorization"] = basic.header
            form.headerSecret = basic.secret
        case .clientSecretJWT, .privateKeyJWT:
            let key = method == .privateKeyJWT ? configuration.signingKey : nil
            try checkAssertionAlgorithm(key?.algorithm ?? .hs256)
            let assertion = try await ClientAssertion.make(
                clientID: configuration.clientID, audience: try assertionAudience(endpoint: published), key: key,
                secret: configuration.clientSecret, now: clock.now())
            form.fields += clientID + [("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion.value)]
            // An assertion is single-use (RFC 7523 §3): a retry for a DPoP nonce signs a new one.
            let (client, audience, dates) = (configuration, try assertionAudience(endpoint: published), clock)
            form.renewedAssertion = {
                try await ClientAssertion.make(clientID: client.clientID, audience: audience, key: key, secret: client.clientSecret, now: dates.now())
            }
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            // RFC 8705 §2: the client id in the body, the certificate on the connection (above, at the mTLS alias when there is one).
            form.fields += clientID
        }
        return form
    }

    /// Sends `request`, with a DPoP proof from `proofKey` when one is given, and blanks in the answer every secret the
    /// form carried.
    private func send(
        _ request: TransportRequest, _ form: AuthenticatedForm, encoding bodyEncoding: ProviderDescriptor.BodyEncoding,
        proofKey: DPoPKey?, purpose: Instruments.Endpoint, arrival: (@Sendable (TransportResponse) -> Void)?
    ) async throws -> TransportResponse {
        var sent = SentSecrets(parameters: form.fields)
        if let headerSecret = form.headerSecret { sent.add(headerSecret) }
        // The Basic header's credentials as sent, which an error page that shows the request would echo.
        if let authorization = form.headers["Authorization"], form.headerSecret != nil { sent.addBasicCredentials(authorization) }
        for value in form.otherSecrets { sent.add(value) }
        let transport = instruments.transport(self.transport, provider: provider.id, endpoint: purpose)
        let response: TransportResponse
        if let proofKey {
            // The retry's assertion joins the values blanked in the answer.
            let renewed = Locked<[String]>([])
            var renewing: (@Sendable () async throws -> TransportRequest)?
            if let renew = form.renewedAssertion {
                let sentFields = form.fields
                renewing = {
                    let assertion = try await renew()
                    renewed.withLock { $0.append(assertion.value) }
                    let renewedFields: [(String, String)] = sentFields.map { name, value in
                        (name, name == "client_assertion" ? assertion.value : value)
                    }
                    var again = request
                    again.body = try Self.body(renewedFields, bodyEncoding)
                    return again
                }
            }
            response = try await DPoPSending.send(
                request, key: proofKey, accessToken: nil, nonces: nonces, transport: transport, clock: clock, arrival: arrival,
                renewing: renewing, instruments: instruments, provider: provider.id)
            for value in renewed.withLock({ $0 }) { sent.add(value) }
        } else if let arrival {
            response = try await transport.send(request, arrival: arrival)
        } else {
            response = try await transport.send(request)
        }
        return sent.scrub(response)
    }

    /// A request body of `fields`: form-encoded, or a JSON object in which a parameter given more than once (RFC 8707
    /// `resource`, `audience`) becomes an array, so that none is dropped.
    private static func body(_ fields: [(String, String)], _ encoding: ProviderDescriptor.BodyEncoding) throws -> Data {
        switch encoding {
        case .form:
            return Data(FormEncoding.encode(fields).utf8)
        case .json:
            var values: [String: [String]] = [:]
            for (name, value) in fields { values[name, default: []].append(value) }
            let object = values.mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any }
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
    }

    /// The `aud` of a client assertion sent to `endpoint`: the issuer, or the endpoint itself (`client_auth.assertion_audience`).
    func assertionAudience(endpoint: URL) throws -> String {
        switch provider.policy.clientAssertion.audience {
        case .tokenEndpoint:
            return endpoint.absoluteString
        case .issuer:
            guard let issuer = provider.issuer else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` has no issuer to address its client assertions to; set `issuer`, or `client_auth.assertion_audience: token_endpoint` if the provider documents that"
                )
            }
            return issuer.absoluteString
        }
    }

    /// Refuses an assertion algorithm the descriptor's `client_auth.assertion_algs` leaves out.
    private func checkAssertionAlgorithm(_ algorithm: JWSAlgorithm) throws {
        guard !provider.policy.clientAssertion.algorithms.contains(algorithm) else { return }
        let listed = provider.policy.clientAssertion.algorithms.map(\.rawValue).joined(separator: ", ")
        throw FlowError(
            .clientAuthentication, "provider `\(provider.id)` takes client assertions signed with \(listed), not \(algorithm.rawValue)")
    }
}
