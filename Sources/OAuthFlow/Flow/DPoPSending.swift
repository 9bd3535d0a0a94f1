import Foundation

/// Sending a request with a DPoP proof: the proof made with the server's latest nonce, and one retry when
/// the server demands a new one (RFC 9449 §8 for authorization servers, §9 for resource servers).
enum DPoPSending {
    /// Sends `request` with a fresh proof (new `jti`) on each attempt; at most two attempts.
    ///
    /// - Parameters:
    ///   - renewing: Makes the request again for the retry, when part of it may be used only once (a client
    ///     assertion, RFC 7523 §3); nil sends the same request.
    ///   - instruments: Count the retry, under `provider`.
    /// - Throws: ``FlowError`` `dpop` when the server demands a nonce again after the retry, or demands one without giving it.
    static func send(
        _ request: TransportRequest, key: DPoPKey, accessToken: Secret?, nonces: DPoPNonces, transport: any HTTPTransport, clock: any DateClock,
        arrival: (@Sendable (TransportResponse) -> Void)? = nil, renewing: (@Sendable () async throws -> TransportRequest)? = nil,
        instruments: Instruments = .disabled, provider: String = Instruments.none
    ) async throws -> TransportResponse {
        var used = nonces.nonce(for: request.url)
        for attempt in 1...2 {
            var signed = attempt > 1 ? try await renewing?() ?? request : request
            signed.headers["DPoP"] = try await key.proof(
                method: request.method, url: request.url, accessToken: accessToken, nonce: used, now: clock.now())
            let response: TransportResponse
            if let arrival {
                response = try await transport.send(signed, arrival: arrival)
            } else {
                response = try await transport.send(signed)
            }
            let given = nonces.remember(response, from: request.url)
            guard demandsNonce(response) else { return response }
            let server = request.url.host ?? "the server"
            guard let given, given != used else {
                throw FlowError(.dpop, "\(server) demanded a DPoP nonce (`use_dpop_nonce`) without giving a new one in `DPoP-Nonce`")
            }
            if attempt == 2 {
                throw FlowError(
                    .dpop, "\(server) demanded a new DPoP nonce again after one retry with the nonce it gave; OAuthFlow retries once, so it gave up")
            }
            used = given
            instruments.count(.dpopNonceRetries, provider, response.status == 400 ? "authorization" : "resource")
        }
        throw FlowError(.dpop, "unreachable")
    }

    /// Whether the answer is an authorization server's 400 or a resource server's 401 `use_dpop_nonce`.
    static func demandsNonce(_ response: TransportResponse) -> Bool {
        switch response.status {
        case 400:
            let fields = try? TokenResponseParser.fields(of: response, format: .auto)
            return fields?["error"]?.stringValue == "use_dpop_nonce"
        case 401:
            guard let challenge = response.header("www-authenticate") else { return false }
            return challenge.range(of: #"error\s*=\s*"?use_dpop_nonce"#, options: [.regularExpression, .caseInsensitive]) != nil
        default:
            return false
        }
    }
}

extension TokenSet {
    /// Sends `request` to a protected resource with this set's access token: `Authorization: DPoP` and a proof
    /// (with `ath`) when the tokens are DPoP-bound (RFC 9449 §7), `Authorization: Bearer` otherwise (RFC 6750); over
    /// mutual TLS with `clientIdentity` when they are bound to a client certificate (RFC 8705 §3).
    ///
    /// - Parameters:
    ///   - request: The request to the protected resource; its `Authorization` header is set here.
    ///   - environment: Its transport sends the request, its clock dates the proof, its nonces hold the servers' latest.
    ///   - clientIdentity: The client certificate and key (the client's ``ClientConfiguration/tlsIdentity``), presented
    ///     only when the tokens are certificate-bound (``isCertificateBound``). A `request` that carries its own
    ///     `clientIdentity` keeps it.
    /// - Throws: ``FlowError`` `insecureEndpoint` for plain http to a host that is not loopback; `dpop` as above;
    ///   `certificateBinding` for certificate-bound tokens without `clientIdentity`, with another certificate than the
    ///   one they are bound to, or to a URL that is not https.
    public func send(
        _ request: TransportRequest, environment: OAuthEnvironment = OAuthEnvironment(), clientIdentity: TLSClientIdentity? = nil
    ) async throws -> TransportResponse {
        try await send(request, environment: environment, clientIdentity: clientIdentity, provider: Instruments.none)
    }

    /// ``send(_:environment:clientIdentity:)``, counting a DPoP nonce retry under `provider`.
    func send(
        _ request: TransportRequest, environment: OAuthEnvironment, clientIdentity: TLSClientIdentity?, provider: String
    ) async throws -> TransportResponse {
        let transport = environment.transport
        let nonces = environment.nonces
        let clock = environment.clock
        try FlowError.requireSecure(request.url)
        var authorized = request
        if let identity = try presentedIdentity(clientIdentity, to: request.url) { authorized.clientIdentity = identity }
        guard let proofKey else {
            authorized.headers["Authorization"] = "Bearer \(accessToken.value)"
            return try await transport.send(authorized)
        }
        authorized.headers["Authorization"] = "DPoP \(accessToken.value)"
        return try await DPoPSending.send(
            authorized, key: proofKey, accessToken: accessToken, nonces: nonces, transport: transport, clock: clock,
            instruments: environment.instruments, provider: provider)
    }

    /// The certificate a request with these tokens presents: `identity` when they are certificate-bound (checked to be
    /// the certificate they are bound to, and `url` to be https), nil when they are not.
    ///
    /// - Throws: ``FlowError`` `certificateBinding` when bound tokens cannot go with their certificate.
    func presentedIdentity(_ identity: TLSClientIdentity?, to url: URL) throws -> TLSClientIdentity? {
        guard let bound = certificateThumbprint else { return nil }
        guard let identity else {
            throw FlowError(
                .certificateBinding,
                "the access token is bound to a client certificate (RFC 8705, `cnf.x5t#S256`) and no certificate was given to present with it; it is not sent without one"
            )
        }
        guard let presented = identity.thumbprint, ConstantTime.equals(presented, bound) else {
            throw FlowError(
                .certificateBinding,
                "the access token is bound to another client certificate than the one given (`x5t#S256` differs); it is not sent")
        }
        guard url.scheme?.lowercased() == "https" else {
            throw FlowError(
                .certificateBinding,
                "the access token is bound to a client certificate, which only TLS presents, but \(url.absoluteString) is not https; it is not sent")
        }
        return identity
    }
}
