import Foundation
import OAuthFlow

/// Mutual TLS (RFC 8705): clients that authenticate with the certificate they present (`tls_client_auth`,
/// `self_signed_tls_client_auth`), access tokens bound to it (`cnf.x5t#S256`), and the endpoints published again on a
/// host of their own that asks for the certificate (`mtls_endpoint_aliases`).
///
/// The simulated TLS layer sees the certificate a request carries in `TransportRequest.clientIdentity`, as a TLS
/// terminator would: the mutual-TLS host refuses a request without one (the handshake fails), and the issuer's host
/// asks for one only at the endpoints that have no alias, so a certificate sent to an aliased endpoint's published URL
/// never arrives.
extension SimulatedProvider {
    /// The endpoints that get a mutual-TLS alias by default (``Settings/mutualTLSAliases``): those RFC 8705 §5 names
    /// that a client sends its certificate to.
    public static let aliasedEndpoints: Set<Endpoint> = [.token, .pushedAuthorization, .userinfo, .revocation, .introspection]

    /// The provider's mutual-TLS host: the issuer with `mtls.` in front of its host (`https://mtls.simulated.example`),
    /// where the endpoints of ``Settings/mutualTLSAliases`` are published again, at the same paths.
    public nonisolated var mutualTLSBase: URL {
        var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false)
        components?.host = "mtls." + (issuer.host ?? "")
        return components?.url ?? issuer
    }

    /// The endpoints published on the mutual-TLS host: ``Settings/mutualTLSAliases``, or none for an issuer whose host is
    /// an IP address or `localhost` (served over HTTP on a loopback address, say), which has no `mtls.` host name to give
    /// them; every endpoint then takes the certificate.
    nonisolated func publishedAliases(_ settings: Settings) -> Set<Endpoint> {
        let host = issuer.host?.lowercased() ?? ""
        let named = !host.isEmpty && host != "localhost" && !host.contains(":") && host.contains { $0.isLetter }
        return named ? settings.mutualTLSAliases : []
    }

    /// An endpoint's URL on the mutual-TLS host.
    nonisolated func mutualTLSURL(_ endpoint: Endpoint) -> URL {
        mutualTLSBase.appendingPathComponent(String(endpoint.path.dropFirst()))
    }

    /// Whether `url` is on the mutual-TLS host.
    nonisolated func isMutualTLSHost(_ url: URL) -> Bool {
        url.scheme == issuer.scheme && url.host == mutualTLSBase.host && url.port == issuer.port
    }

    /// The TLS handshake of a request to the mutual-TLS host: it asks for a client certificate, and the request must
    /// present one whose key it holds (the handshake proves it).
    ///
    /// - Throws: `TransportError` `tls` without a certificate, `client_certificate` when the certificate cannot be read
    ///   or the key is not its key.
    nonisolated func mutualTLSHandshake(_ request: TransportRequest) throws {
        guard let identity = request.clientIdentity else {
            guard !isMutualTLSHost(request.url) else {
                throw TransportError(
                    .tls, url: request.url, message: "the mutual-TLS host asks for a client certificate, and none was presented (RFC 8705 §5)")
            }
            return
        }
        guard let certificate = CertificateDER(pem: identity.certificateChainPEM) else {
            throw TransportError(.clientCertificate, url: request.url, message: "the client certificate is not an X.509 certificate in PEM")
        }
        guard CertificateDER.publicKeyInfo(ofPrivateKeyPEM: identity.privateKeyPEM.value) == certificate.publicKeyInfo else {
            throw TransportError(
                .clientCertificate, url: request.url,
                message: "the private key (P-256, P-384, P-521 or RSA, PEM) is not the client certificate's key: the TLS handshake fails")
        }
    }

    /// The request as `endpoint` receives it over TLS: with its certificate on the mutual-TLS host and at an endpoint
    /// without an alias, without it at an endpoint whose alias is published (the issuer's host does not ask there).
    ///
    /// - Throws: A 404 for an endpoint the mutual-TLS host does not publish.
    func overTLS(_ request: TransportRequest, at endpoint: Endpoint) throws -> TransportRequest {
        let aliased = publishedAliases(settings).contains(endpoint)
        if isMutualTLSHost(request.url) {
            guard aliased else {
                throw OAuthRefusal("invalid_request", "the mutual-TLS host publishes no alias of \(endpoint.path)", status: 404)
            }
            return request
        }
        var received = request
        if aliased { received.clientIdentity = nil }
        return received
    }

    /// The `mtls_endpoint_aliases` (RFC 8705 §5), `tls_client_certificate_bound_access_tokens` (§3.3) and the two
    /// mutual-TLS client authentication methods (§2.1.1, §2.2.1), added to the discovery document.
    func addMutualTLSMetadata(to document: inout [String: JSONValue]) {
        let names: [Endpoint: String] = [
            .token: "token_endpoint", .pushedAuthorization: "pushed_authorization_request_endpoint", .userinfo: "userinfo_endpoint",
            .revocation: "revocation_endpoint", .introspection: "introspection_endpoint", .deviceAuthorization: "device_authorization_endpoint",
        ]
        var aliases: [String: JSONValue] = [:]
        for endpoint in publishedAliases(settings) {
            if let name = names[endpoint] { aliases[name] = .string(mutualTLSURL(endpoint).absoluteString) }
        }
        if !aliases.isEmpty { document["mtls_endpoint_aliases"] = .object(aliases) }
        document["tls_client_certificate_bound_access_tokens"] = .bool(settings.bindsTokensToCertificates)
        let methods = [JSONValue.string("tls_client_auth"), .string("self_signed_tls_client_auth")]
        for key in [
            "token_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported", "introspection_endpoint_auth_methods_supported",
        ] {
            if case let .array(listed)? = document[key] { document[key] = .array(listed + methods) }
        }
    }

    /// A mutual-TLS client, authenticated by the certificate the request presents (RFC 8705 §2): its subject or a subject
    /// alternative name is the registered one (`tls_client_auth`, §2.1.2), or it is the registered self-signed certificate
    /// (`self_signed_tls_client_auth`, §2.2).
    ///
    /// - Throws: `invalid_client` (401) without a certificate, with another one, or with a secret or assertion beside it.
    func authenticateCertificate(_ request: TransportRequest, client: SimulatedClient, secret: String?) throws -> SimulatedClient {
        guard secret == nil else {
            throw OAuthRefusal.invalidClient("the client authenticates with \(client.authentication.rawValue), not a secret", basic: false)
        }
        guard let identity = request.clientIdentity, let certificate = CertificateDER(pem: identity.certificateChainPEM) else {
            throw OAuthRefusal.invalidClient(
                "the client authenticates with \(client.authentication.rawValue), and no client certificate was presented here", basic: false)
        }
        let matches: Bool
        switch client.authentication {
        case .selfSignedTLSClientAuth:
            matches = client.certificateThumbprint != nil && identity.thumbprint == client.certificateThumbprint
        default:
            matches = client.certificateSubject.map { Self.certificate(certificate, names: $0) } ?? false
        }
        guard matches else {
            throw OAuthRefusal.invalidClient("the client certificate presented is not the one \(client.id) registered", basic: false)
        }
        return client
    }

    /// Whether `certificate` names the client as `subject` says (RFC 8705 §2.1.2).
    static func certificate(_ certificate: CertificateDER, names subject: SimulatedClient.CertificateSubject) -> Bool {
        switch subject {
        case let .distinguishedName(name): return normalized(name) == normalized(certificate.subjectDN)
        case let .dnsName(name): return certificate.dnsNames.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        case let .uri(uri): return certificate.uris.contains(uri)
        case let .email(address): return certificate.emails.contains(address)
        }
    }

    /// An RFC 4514 string for comparison: attribute names in upper case, no spaces around `,`, `+` and `=` (escaped
    /// ones kept).
    static func normalized(_ name: String) -> String {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for character in name {
            if escaping {
                current.append(character)
                escaping = false
            } else if character == "\\" {
                current.append(character)
                escaping = true
            } else if character == "," || character == "+" {
                parts.append(current)
                parts.append(String(character))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map { part in
            guard let equals = part.firstIndex(of: "=") else { return part.trimmingCharacters(in: .whitespaces) }
            let type = part[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
            return type + "=" + part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }.joined()
    }

    /// The `x5t#S256` the tokens a token request gets are bound to: its certificate's, when it presented one and
    /// ``Settings/bindsTokensToCertificates``.
    func certificateBinding(of request: TransportRequest) -> String? {
        guard settings.bindsTokensToCertificates else { return nil }
        return request.clientIdentity?.thumbprint
    }

    /// Adds `x5t#S256` to the `cnf` claim of a JWT access token or an introspection answer (RFC 8705 §3.1, §3.2).
    static func confirm(_ members: inout [String: JSONValue], certificate: String?) {
        guard let certificate else { return }
        var confirmation: [String: JSONValue] = [:]
        if case let .object(existing)? = members["cnf"] { confirmation = existing }
        confirmation["x5t#S256"] = .string(certificate)
        members["cnf"] = .object(confirmation)
    }

    /// Refuses a certificate-bound access token that comes without its certificate (RFC 8705 §3).
    ///
    /// - Throws: `invalid_token` (401) with a `Bearer` challenge.
    func requireCertificate(of grant: AccessGrant, in request: TransportRequest) throws {
        guard let bound = grant.certificate, request.clientIdentity?.thumbprint != bound else { return }
        let description = "the access token is bound to a client certificate, and the request did not present it"
        throw OAuthRefusal(
            "invalid_token", description, status: 401,
            challenge: "Bearer realm=\"simulated\", error=\"invalid_token\", error_description=\"\(description)\"")
    }

    /// What an API protected by this provider answers `request`, checked as RFC 6750, RFC 8705 §3 and RFC 9449 §7 ask:
    /// nil when it takes it, else its 401 answer (with a `WWW-Authenticate` challenge saying why).
    ///
    /// The request must carry an access token this provider issued, active; a certificate-bound token must come with
    /// the certificate it is bound to (`TransportRequest.clientIdentity`, as a TLS terminator passes it on), a DPoP-bound
    /// one with the `DPoP` scheme and a proof of its key for the request's URL. A host test's resource server calls it
    /// to check what the client sends:
    ///
    /// ```swift
    /// let transport = ScriptedTransport { request, _ in
    ///     if let refusal = await simulated.protectedResourceRefusal(request) { return refusal }
    ///     return TransportResponse(status: 200, body: Data(#"{"accounts": []}"#.utf8))
    /// }
    /// ```
    ///
    /// - Parameter request: The request as the API received it.
    /// - Returns: nil when the API takes the request, else the answer refusing it.
    public func protectedResourceRefusal(_ request: TransportRequest) async -> TransportResponse? {
        do {
            _ = try await presentedGrant(request, requiresSubject: false)
            return nil
        } catch let refusal as OAuthRefusal {
            return refusal.response(dpopNonce: nil)
        } catch {
            return Self.json(["error": .string("invalid_token"), "error_description": .string("\(error)")], status: 401)
        }
    }
}
