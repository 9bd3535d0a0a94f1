import Foundation
import Logging

/// Token revocation (RFC 7009).
extension OAuthClient {
    /// Which token to revoke (RFC 7009 §2.1 `token_type_hint`).
    public enum TokenKind: String, Sendable {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
    }

    /// Whether the provider revokes tokens of this kind (`revocation.tokens`).
    public nonisolated func revokes(_ kind: TokenKind) -> Bool {
        provider.policy.revocation.tokens.contains { $0.rawValue == kind.rawValue }
    }

    /// Revokes a token at the revocation endpoint: RFC 7009, or as the descriptor's `revocation` section says.
    ///
    /// - Parameters:
    ///   - token: The access or refresh token to revoke.
    ///   - kind: Which of the two it is, sent as `token_type_hint`.
    ///   - proofKey: The DPoP key of the session the token belongs to: the request carries a proof from it.
    ///   - certificateBound: Whether the session the token belongs to is bound to the client certificate
    ///     (``TokenSet/isCertificateBound``): the request then presents the configuration's certificate (RFC 8705 §3).
    /// - Throws: ``AuthorizationServerError`` when the server refuses, ``FlowError`` (`not_revocable` for a kind
    ///   the provider does not revoke, `certificateBinding` for a certificate-bound session and a configuration
    ///   without a certificate), or ``TransportError``.
    public func revoke(_ token: Secret, kind: TokenKind, proofKey: DPoPKey? = nil, certificateBound: Bool = false) async throws {
        guard let endpoint = try await revocationEndpoint() else {
            // A descriptor that records the gap (`discovery.lacks: [revocation]`) states a fact about the provider, not a setting to fix.
            let why =
                provider.lacks.contains(.revocation)
                ? "the provider lacks one (its descriptor records `discovery.lacks: [revocation]`)"
                : "neither its descriptor nor its discovery document names one (set `endpoints.revocation` if the provider has one)"
            throw FlowError(.missingEndpoint, "provider `\(provider.id)` has no revocation endpoint: \(why)")
        }
        guard revokes(kind) else {
            throw FlowError(
                .notRevocable, "provider `\(provider.id)` does not revoke \(kind == .accessToken ? "access" : "refresh") tokens (`revocation.tokens`)"
            )
        }
        let settings = provider.policy.revocation
        var parameters: [(String, String)] = []
        if settings.placement != .bearer {
            parameters.append((settings.tokenParameter, token.value))
            if settings.typeHint { parameters.append((settings.typeHintParameter, kind.rawValue)) }
        }
        parameters += settings.extraParams.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let response: TransportResponse
        if settings.placement == .body, settings.clientAuthentication {
            // RFC 7009's form (or a DELETE with it), the client authenticated as at the token endpoint. Form-encoded
            // whatever `token_request.body_encoding` says of the token endpoint (RFC 7009 §2.1).
            response = try await post(
                to: endpoint, parameters, method: settings.method.request, encoding: .form, proofKey: proofKey,
                keepingBinding: certificateBound, purpose: .revocation, secrets: [token])
        } else {
            response = try await revocationRequest(
                to: endpoint, token: token, parameters, settings: settings, proofKey: proofKey, certificateBound: certificateBound)
        }
        guard (200..<300).contains(response.status) else { throw Self.refusal(response, from: "revocation") }
        logger.debug("token revoked", metadata: ["provider": "\(provider.id)", "kind": "\(kind.rawValue)"])
    }

    /// A revocation request that is not an authenticated form: the token in the query or as the request's
    /// Bearer token, or no client authentication. A client secret is never put in a URL: with
    /// `client_authentication`, a `query` request carries the client only as `client_id`, or as an HTTP Basic
    /// header for `client_secret_basic`; a `bearer` request is authorized by its token.
    private func revocationRequest(
        to endpoint: URL, token: Secret, _ parameters: [(String, String)], settings: ProviderDescriptor.RevocationSettings,
        proofKey: DPoPKey?, certificateBound: Bool
    ) async throws -> TransportResponse {
        try await requireCredentialBinding(sendingTo: endpoint)
        // A certificate-bound session's token goes with its certificate, to the endpoint's mutual-TLS alias (RFC 8705 §5).
        let identity = certificateBound ? try presentedCertificate(keepingBinding: true) : nil
        let endpoint = identity == nil ? endpoint : try await mutualTLSEndpoint(endpoint)
        var fields = parameters
        var headers = ["Accept": "application/json"]
        var sent = SentSecrets(parameters: fields)
        sent.add(token.value)
        if settings.clientAuthentication && settings.placement != .bearer {
            let method = try configuration.authenticationMethod(for: provider)
            switch method {
            case .none:
                fields.append((provider.policy.clientIDParameter, configuration.clientID))
            case .clientSecretBasic:
                let basic = try await basicAuthorization()
                headers["Authorization"] = basic.header
                sent.add(basic.secret)
                sent.addBasicCredentials(basic.header)
            default:
                // Only a `query` request gets here (an authenticated `body` one is a form from `post`).
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` revokes with the token in the query, where `\(method.rawValue)` cannot go; use client_secret_basic, or `revocation.client_authentication: false` if the provider documents none"
                )
            }
        } else if settings.placement != .bearer {
            fields.append((provider.policy.clientIDParameter, configuration.clientID))
        }
        var url = endpoint
        var body: Data?
        if settings.placement == .body {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(fields).utf8)
        } else if !fields.isEmpty, var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) {
            let query = FormEncoding.encode(fields)
            components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(separator: "&")
            url = components.url ?? endpoint
        }
        try FlowError.requireSecure(url)
        if identity != nil, url.scheme?.lowercased() != "https" {
            throw FlowError(
                .certificateBinding, "the session is bound to a client certificate, which only TLS presents, but \(url.absoluteString) is not https")
        }
        let request = TransportRequest(method: settings.method.request, url: url, headers: headers, body: body, clientIdentity: identity)
        let environment = self.environment.instrumented(.revocation, provider: provider.id)
        let transport = environment.transport
        let response: TransportResponse
        if settings.placement == .bearer {
            let tokens = TokenSet(
                accessToken: token, tokenType: proofKey == nil ? "Bearer" : "DPoP", expiresAt: nil, refreshToken: nil, idToken: nil, scopes: [],
                issuedAt: clock.now(), proofKey: proofKey)
            response = try await tokens.send(request, environment: environment, clientIdentity: nil, provider: provider.id)
        } else if let proofKey {
            response = try await DPoPSending.send(
                request, key: proofKey, accessToken: nil, nonces: nonces, transport: transport, clock: clock, instruments: instruments,
                provider: provider.id)
        } else {
            response = try await transport.send(request)
        }
        return sent.scrub(response)
    }

    /// The error for an endpoint's answer that is not a success: the server's OAuth error when the body
    /// holds one, else ``FlowError`` `unexpectedStatus` naming the endpoint and the status.
    static func refusal(_ response: TransportResponse, from endpoint: String) -> any Error {
        let fields = try? TokenResponseParser.fields(of: response, format: .auto)
        return fields.flatMap { TokenResponseParser.serverError(in: $0, status: response.status) }
            ?? FlowError(.unexpectedStatus, "the \(endpoint) endpoint answered HTTP \(response.status)")
    }
}

extension ProviderDescriptor.RevocationSettings.Method {
    /// The request method it names.
    var request: TransportRequest.Method {
        switch self {
        case .post: .post
        case .delete: .delete
        case .get: .get
        }
    }
}
