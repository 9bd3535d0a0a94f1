import Foundation

extension DescriptorDraft {
    /// The largest metadata document read: what the default transport accepts, enforced here too for any transport.
    static let maximumDocumentSize = 1 << 20

    /// Reads an issuer's metadata (OpenID Connect Discovery, else RFC 8414) and drafts its descriptor.
    ///
    /// ```swift
    /// let draft = try await DescriptorDraft.read(issuer: "https://sso.example.com/realms/ops")
    /// ```
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier: https (or http to a loopback host), no query, fragment or user info.
    ///   - id: The provider id; by default ``suggestedID(for:)``.
    ///   - options: What the caller knows beyond the document: the redirect URI's loopback port (8765 by default), and
    ///     what the server takes that its metadata leaves out.
    ///   - environment: The transport and clock.
    /// - Throws: ``DiscoveryError``: `invalidIssuer` for an issuer that cannot be one, `unreachable` when neither
    ///   document can be had, `invalidDocument`, `issuerMismatch`, `insecureEndpoint`; ``ProviderError``
    ///   `invalidDescriptor` for an id that cannot name a provider.
    public static func read(
        issuer: String, id: String? = nil, options: Options = Options(), environment: OAuthEnvironment = OAuthEnvironment()
    ) async throws -> DescriptorDraft {
        let issuerURL = try checkedIssuer(issuer)
        let id = id ?? suggestedID(for: issuerURL)
        guard isValidID(id) else {
            throw ProviderError(
                .invalidDescriptor,
                "\(shown(id)) cannot be a provider id: use lowercase letters, digits, `-` and `_`, starting with a letter or digit")
        }
        var failures: [String] = []
        for mode in [ProviderDescriptor.DiscoveryMode.oidc, .rfc8414] {
            guard let url = ProviderDescriptor.wellKnownURL(issuer: issuerURL, mode: mode) else { continue }
            guard let metadata = try await document(at: url, issuer: issuer, transport: environment.transport, failures: &failures) else { continue }
            var revocationElsewhere = false
            if mode == .oidc, metadata.revocationEndpoint == nil, let other = ProviderDescriptor.wellKnownURL(issuer: issuerURL, mode: .rfc8414) {
                // The resolver reads the RFC 8414 document for revocation when this one names none: so does the draft.
                var ignored: [String] = []
                let extra = try? await document(at: other, issuer: issuer, transport: environment.transport, failures: &ignored)
                revocationElsewhere = extra?.revocationEndpoint != nil
            }
            return try DescriptorDraft(
                id: id, issuer: issuerURL, metadata: metadata, metadataURL: url, mode: mode, readAt: environment.clock.now(),
                revocationElsewhere: revocationElsewhere, options: options)
        }
        throw DiscoveryError(.unreachable, "no metadata for \(issuerURL.absoluteString): " + failures.joined(separator: "; "))
    }

    /// A value from the server or the caller, quoted, cut when long, and escaped: it may reach a terminal in a message.
    static func shown(_ text: String) -> String {
        TerminalText.escaped(TerminalText.quoted(text))
    }

    /// The issuer as a URL, when it can be one.
    static func checkedIssuer(_ text: String) throws -> URL {
        func refuse(_ why: String) -> DiscoveryError {
            DiscoveryError(.invalidIssuer, "\(shown(text)) is not an issuer identifier: \(why)")
        }
        guard text.utf8.count <= 2048 else { throw refuse("it is longer than 2,048 bytes") }
        guard !text.unicodeScalars.contains(where: { TerminalText.needsEscape($0) || $0.properties.isWhitespace || $0 == "{" || $0 == "}" }) else {
            throw refuse("it holds white space, braces or control characters")
        }
        guard let url = URL(string: text), url.absoluteString == text, let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else {
            throw refuse("it is not an absolute URL with a host")
        }
        guard scheme == "https" || (scheme == "http" && TransportPolicy.isSecure(url)) else {
            throw refuse("it must use https (RFC 8414 §2), or http to a loopback host")
        }
        guard url.query == nil, url.fragment == nil, !text.contains("?"), !text.contains("#") else {
            throw refuse("it may have no query or fragment (RFC 8414 §2)")
        }
        guard url.user == nil, url.password == nil, !text.contains("@") else { throw refuse("it may hold no user name or password") }
        return url
    }

    /// The checked document at `url`; nil (with the reason in `failures`) when the server answers with an HTTP error.
    ///
    /// - Throws: ``DiscoveryError`` when there is no answer at all, or the answer is not a usable document.
    private static func document(at url: URL, issuer: String, transport: any HTTPTransport, failures: inout [String]) async throws -> ServerMetadata?
    {
        let response: TransportResponse
        do {
            response = try await transport.send(TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
        } catch {
            throw DiscoveryError(.unreachable, "cannot fetch \(url.absoluteString): \(error)")
        }
        guard response.status == 200 else {
            failures.append("\(url.absoluteString) answered HTTP \(response.status)\(response.redirectNote)")
            return nil
        }
        func invalid(_ why: String) -> DiscoveryError {
            DiscoveryError(.invalidDocument, "\(url.absoluteString) is not a discovery document: \(why)")
        }
        guard response.body.count <= maximumDocumentSize else { throw invalid("it is larger than 1 MiB") }
        // Parsers differ on a repeated name (first or last wins): an `issuer` given twice could pass the check as one
        // value and be used as the other.
        do throws(ServerJSON.Refusal) {
            guard case .object = try ServerJSON.read([UInt8](response.body)) else { throw .notJSON }
        } catch {
            throw invalid(error.isDisagreement ? "it \(error)" : "it is not a JSON object")
        }
        guard let metadata = try? ServerJSON.decode(ServerMetadata.self, from: response.body) else {
            throw invalid("a member has the wrong type, or `issuer` is missing")
        }
        guard metadata.issuer == issuer else {
            let hint =
                metadata.issuer.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                    == issuer.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                ? "; issuers are compared exactly, a trailing slash included: if this is the server you meant, give its issuer as the document writes it"
                : ""
            throw DiscoveryError(
                .issuerMismatch,
                "\(url.absoluteString) names the issuer \(shown(metadata.issuer)), not \(shown(issuer)) (RFC 8414 §3.3)\(hint)")
        }
        let endpoints: [(String, URL?)] = [
            ("authorization_endpoint", metadata.authorizationEndpoint), ("token_endpoint", metadata.tokenEndpoint),
            ("userinfo_endpoint", metadata.userinfoEndpoint), ("jwks_uri", metadata.jwksURI), ("revocation_endpoint", metadata.revocationEndpoint),
            ("introspection_endpoint", metadata.introspectionEndpoint), ("end_session_endpoint", metadata.endSessionEndpoint),
            ("device_authorization_endpoint", metadata.deviceAuthorizationEndpoint),
            ("pushed_authorization_request_endpoint", metadata.pushedAuthorizationRequestEndpoint),
        ]
        for case let (name, endpoint?) in endpoints where !TransportPolicy.isSecure(endpoint) || endpoint.host == nil {
            throw DiscoveryError(
                .insecureEndpoint,
                "\(url.absoluteString) names \(shown(endpoint.absoluteString)) as its \(name); only https (or http to a loopback host) is accepted"
            )
        }
        return metadata
    }
}
