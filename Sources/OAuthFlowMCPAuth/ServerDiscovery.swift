#if NIO
import Foundation
import Logging
import OAuthFlow

/// Finds an MCP server's authorization server as the MCP authorization spec orders it: the protected-resource metadata
/// (RFC 9728) the 401 names or the well-known locations, then the authorization server's metadata (RFC 8414 or OpenID
/// Connect Discovery, path-aware), each checked before anything in it is used.
///
/// Every request goes through the environment's transport (its deadline and size cap); a redirect is never followed.
struct ServerDiscovery: Sendable {
    /// The largest metadata document read.
    static let maximumDocumentSize = 256 * 1024

    let transport: any HTTPTransport
    let logger: Logger
    /// Origins besides the MCP server's own whose protected-resource metadata is trusted (``MCPAuthorization/Configuration/trustedMetadataOrigins``).
    let trustedOrigins: Set<String>

    /// What the protected-resource metadata says.
    struct ProtectedResourceDocument: Sendable, Hashable {
        /// Where it was read.
        let url: URL
        /// Its `resource`, exactly as written; it names the MCP server.
        let resource: String
        /// Its `authorization_servers`, in order.
        let authorizationServers: [URL]
        let scopesSupported: [String]?
        /// Whether there is none and this stands in for it (``legacyProtectedResource(of:)``).
        var isLegacy = false
    }

    /// What the authorization server's metadata says.
    struct AuthorizationServerDocument: Sendable {
        let issuer: URL
        let url: URL
        let mode: ProviderDescriptor.DiscoveryMode
        let metadata: ServerMetadata
        /// `registration_endpoint` (RFC 7591 §3, RFC 8414 §2).
        let registrationEndpoint: URL?
        /// `client_id_metadata_document_supported` (OAuth Client ID Metadata Document).
        let acceptsClientMetadataDocuments: Bool
        /// Whether there is no metadata and these are MCP 2025-03-26's default endpoints.
        var isDefaultEndpoints = false

        /// What the authorization code flow needs of the server, checked before a user signs in there and only then:
        /// an `authorization_endpoint`, and `code_challenge_methods_supported` listing S256 (MCP authorization,
        /// "Authorization Code Protection": a client must refuse a server that does not say it takes PKCE).
        ///
        /// - Throws: ``MCPAuthorizationError`` `unsupported_server`.
        func requireAuthorizationCodeFlow() throws {
            guard metadata.authorizationEndpoint != nil else {
                throw MCPAuthorizationError(
                    .unsupportedServer,
                    "the authorization server \(issuer.absoluteString) names no authorization_endpoint, and a user signs in there through one")
            }
            guard metadata.codeChallengeMethodsSupported?.contains("S256") == true else {
                throw MCPAuthorizationError(
                    .unsupportedServer,
                    "the authorization server \(issuer.absoluteString) does not say it takes PKCE S256 (`code_challenge_methods_supported`), which an MCP client must refuse"
                )
            }
        }
    }

    // MARK: - Protected resource metadata

    /// The protected-resource metadata of `server`: at `named` (the 401's `resource_metadata`) when given, else at the
    /// well-known locations, path first; with `allowingLegacy`, MCP 2025-03-26's stand-in when neither location has any.
    ///
    /// - Throws: ``MCPAuthorizationError`` `untrustedMetadata`, `metadataUnavailable`, `invalidMetadata`,
    ///   `resourceMismatch`, `insecureURL`.
    func protectedResource(of server: ResourceIdentifier, named: URL?, allowingLegacy: Bool) async throws -> ProtectedResourceDocument {
        let candidates: [URL]
        if let named {
            try requireSecure(named, what: "the protected-resource metadata URL the server named")
            guard let origin = ResourceIdentifier.origin(of: named), origin == server.origin || trustedOrigins.contains(origin) else {
                throw MCPAuthorizationError(
                    .untrustedMetadata,
                    "the MCP server \(server) points at protected-resource metadata on another origin (\(Self.shown(named.absoluteString))); it is not fetched. If that origin is the server's own, add it to `trustedMetadataOrigins`"
                )
            }
            candidates = [named]
        } else {
            candidates = server.metadataLocations
        }
        var failures: [String] = []
        var notFound = 0
        for url in candidates {
            guard let object = try await fetchObject(url, failures: &failures, notFound: &notFound) else { continue }
            let document = try protectedResourceDocument(object, at: url)
            try check(document, for: server, probedRoot: named == nil && url == server.rootMetadataLocation)
            logger.debug("protected resource metadata read", metadata: ["url": "\(url.absoluteString)"])
            return document
        }
        if named == nil, notFound == candidates.count {
            guard allowingLegacy else {
                throw MCPAuthorizationError(
                    .metadataUnavailable,
                    "the MCP server \(server) publishes no protected-resource metadata (RFC 9728) at either well-known location, which MCP 2026-07-28 requires of it; taking its own origin as its authorization server (MCP 2025-03-26) is done only when asked for (`legacyDiscovery`, `--legacy-discovery`) or when the server says it speaks that revision"
                )
            }
            if let legacy = Self.legacyProtectedResource(of: server) {
                logger.info(
                    "no protected-resource metadata: the server's origin is its authorization server (MCP 2025-03-26)",
                    metadata: ["server": "\(server)"])
                return legacy
            }
        }
        throw MCPAuthorizationError(
            .metadataUnavailable,
            "no protected-resource metadata for the MCP server \(server) (RFC 9728): " + failures.joined(separator: "; "))
    }

    /// What stands in for the protected-resource metadata of a server that has none at either well-known location (each
    /// answered 404): MCP 2025-03-26, the revision before RFC 9728 came in, made the server's own origin its authorization
    /// server (its path discarded). Tokens are asked for the server's canonical URI, from its own origin only.
    static func legacyProtectedResource(of server: ResourceIdentifier) -> ProtectedResourceDocument? {
        guard var components = URLComponents(url: server.url, resolvingAgainstBaseURL: false), let location = server.rootMetadataLocation
        else { return nil }
        components.percentEncodedPath = ""
        components.query = nil
        guard let issuer = components.url else { return nil }
        return ProtectedResourceDocument(
            url: location, resource: server.description, authorizationServers: [issuer], scopesSupported: nil, isLegacy: true)
    }

    /// The document's members, typed.
    private func protectedResourceDocument(_ object: [String: JSONValue], at url: URL) throws -> ProtectedResourceDocument {
        func invalid(_ why: String) -> MCPAuthorizationError {
            MCPAuthorizationError(.invalidMetadata, "\(url.absoluteString) is not protected-resource metadata (RFC 9728 §2): \(why)")
        }
        guard case let .string(resource)? = object["resource"], !resource.isEmpty else { throw invalid("it names no `resource`") }
        guard case let .array(servers)? = object["authorization_servers"], !servers.isEmpty else {
            throw invalid("it names no `authorization_servers`, so there is nowhere to sign in")
        }
        let issuers = try servers.map { value -> URL in
            guard case let .string(text) = value, let issuer = Self.issuerURL(text) else {
                throw invalid("an entry of `authorization_servers` is not an https issuer identifier")
            }
            return issuer
        }
        var scopes: [String]?
        switch object["scopes_supported"] {
        case nil, .null?: scopes = nil
        case let .array(values)?:
            scopes = try values.map { value in
                guard case let .string(scope) = value, Self.isScopeToken(scope) else {
                    throw invalid("`scopes_supported` holds something not a scope")
                }
                return scope
            }
        default: throw invalid("`scopes_supported` is not an array")
        }
        return ProtectedResourceDocument(url: url, resource: resource, authorizationServers: issuers, scopesSupported: scopes)
    }

    /// RFC 9728 §3.3 and MCP authorization: the `resource` must be the MCP server's canonical URI, or, for metadata found
    /// by probing the root of the origin (`/.well-known/oauth-protected-resource`, the spec's second location), the
    /// origin itself: RFC 9728 §3.3 holds such a document to the identifier the well-known suffix was inserted into,
    /// which is the origin (the conformance suite's `auth/metadata-var2`). Metadata a 401 names, wherever it is, must
    /// name the server's canonical URI: a root document it points at naming the bare origin is refused, since the
    /// token's audience would be the whole origin, every other API on it included.
    private func check(_ document: ProtectedResourceDocument, for server: ResourceIdentifier, probedRoot: Bool) throws {
        let named = URL(string: document.resource).flatMap(ResourceIdentifier.init)
        if let named, named == server { return }
        if probedRoot, let named, named.path.isEmpty, named.origin == server.origin, document.resource == named.description { return }
        throw MCPAuthorizationError(
            .resourceMismatch,
            "the protected-resource metadata at \(document.url.absoluteString) is for \(Self.shown(document.resource)), not for the MCP server \(server) (RFC 9728 §3.3); no token is asked for it"
        )
    }

    // MARK: - Authorization server metadata

    /// Where the metadata of `issuer` is looked for, in the MCP spec's order: RFC 8414 with the path inserted, OpenID
    /// Connect Discovery with the path inserted, then appended; for an issuer without a path, RFC 8414 then OpenID.
    static func metadataLocations(of issuer: URL) -> [(URL, ProviderDescriptor.DiscoveryMode)] {
        guard let components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return [] }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let paths: [(String, ProviderDescriptor.DiscoveryMode)] =
            path.isEmpty
            ? [("/.well-known/oauth-authorization-server", .rfc8414), ("/.well-known/openid-configuration", .oidc)]
            : [
                ("/.well-known/oauth-authorization-server" + path, .rfc8414), ("/.well-known/openid-configuration" + path, .oidc),
                (path + "/.well-known/openid-configuration", .oidc),
            ]
        return paths.compactMap { path, mode in
            var location = components
            location.percentEncodedPath = path
            return location.url.map { ($0, mode) }
        }
    }

    /// The metadata of `issuer`, its `issuer` checked exactly.
    ///
    /// - Throws: ``MCPAuthorizationError`` `issuerMismatch`, `metadataUnavailable`, `invalidMetadata`, `insecureURL`,
    ///   `unsupportedServer` (no PKCE S256: MCP clients must refuse such a server).
    ///
    /// - Parameter legacy: Whether the issuer stands in for a server without protected-resource metadata: when none of
    ///   its metadata locations has a document (each 404), MCP 2025-03-26's default endpoints are used
    ///   (``legacyAuthorizationServer(_:)``).
    func authorizationServer(_ issuer: URL, legacy: Bool = false) async throws -> AuthorizationServerDocument {
        var failures: [String] = []
        var notFound = 0
        let locations = Self.metadataLocations(of: issuer)
        for (url, mode) in locations {
            guard let object = try await fetchObject(url, failures: &failures, notFound: &notFound) else { continue }
            let document = try authorizationServerDocument(object, at: url, issuer: issuer, mode: mode)
            logger.debug("authorization server metadata read", metadata: ["url": "\(url.absoluteString)"])
            return document
        }
        if legacy, notFound == locations.count, let fallback = try legacyAuthorizationServer(issuer, at: locations.first?.0) {
            logger.info("no authorization server metadata: MCP 2025-03-26's default endpoints", metadata: ["issuer": "\(issuer.absoluteString)"])
            return fallback
        }
        throw MCPAuthorizationError(
            .metadataUnavailable, "no metadata for the authorization server \(issuer.absoluteString): " + failures.joined(separator: "; "))
    }

    private func authorizationServerDocument(
        _ object: [String: JSONValue], at url: URL, issuer: URL, mode: ProviderDescriptor.DiscoveryMode
    ) throws -> AuthorizationServerDocument {
        func invalid(_ why: String) -> MCPAuthorizationError {
            MCPAuthorizationError(.invalidMetadata, "\(url.absoluteString) is not authorization server metadata: \(why)")
        }
        guard case let .string(named)? = object["issuer"] else { throw invalid("it names no `issuer`") }
        guard named == issuer.absoluteString else {
            throw MCPAuthorizationError(
                .issuerMismatch,
                "\(url.absoluteString) names the issuer \(Self.shown(named)), not \(issuer.absoluteString) (RFC 8414 §3.3, compared exactly); nothing in it is used"
            )
        }
        let metadata: ServerMetadata
        do {
            metadata = try JSONDecoder().decode(ServerMetadata.self, from: JSONEncoder().encode(JSONValue.object(object)))
        } catch {
            throw invalid("a member has the wrong type")
        }
        let endpoints: [(String, URL?)] = [
            ("authorization_endpoint", metadata.authorizationEndpoint), ("token_endpoint", metadata.tokenEndpoint),
            ("pushed_authorization_request_endpoint", metadata.pushedAuthorizationRequestEndpoint), ("jwks_uri", metadata.jwksURI),
        ]
        for case let (name, endpoint?) in endpoints {
            try requireSecure(endpoint, what: "the \(name) of \(issuer.absoluteString)")
        }
        // The authorization endpoint and PKCE belong to the authorization code flow, checked when a user signs in
        // (``AuthorizationServerDocument/requireAuthorizationCodeFlow()``): a server that serves only the JWT bearer grant
        // or client credentials has neither.
        guard metadata.tokenEndpoint != nil else {
            throw MCPAuthorizationError(.unsupportedServer, "the authorization server \(issuer.absoluteString) names no token_endpoint")
        }
        var registration: URL?
        switch object["registration_endpoint"] {
        case nil, .null?: registration = nil
        case let .string(text)?:
            guard let url = URL(string: text) else { throw invalid("`registration_endpoint` is not a URL") }
            try requireSecure(url, what: "the registration_endpoint of \(issuer.absoluteString)")
            registration = url
        default: throw invalid("`registration_endpoint` is not a string")
        }
        let cimd: Bool
        if case let .bool(value)? = object["client_id_metadata_document_supported"] { cimd = value } else { cimd = false }
        return AuthorizationServerDocument(
            issuer: issuer, url: url, mode: mode, metadata: metadata, registrationEndpoint: registration, acceptsClientMetadataDocuments: cimd)
    }

    /// MCP 2025-03-26, "Fallbacks for Servers without Metadata Discovery": `/authorize`, `/token` and `/register` at the
    /// server's origin, PKCE S256 (which that revision required of every client).
    func legacyAuthorizationServer(_ issuer: URL, at url: URL?) throws -> AuthorizationServerDocument? {
        guard let url else { return nil }
        let base = issuer.absoluteString
        let object: [String: JSONValue] = [
            "issuer": .string(base), "authorization_endpoint": .string(base + "/authorize"), "token_endpoint": .string(base + "/token"),
            "registration_endpoint": .string(base + "/register"), "response_types_supported": .array([.string("code")]),
            "grant_types_supported": .array([.string("authorization_code"), .string("refresh_token")]),
            "code_challenge_methods_supported": .array([.string("S256")]),
        ]
        var document = try authorizationServerDocument(object, at: url, issuer: issuer, mode: .rfc8414)
        document.isDefaultEndpoints = true
        return document
    }

    // MARK: - Fetching

    /// GETs `url` and reads a JSON object: nil (with the reason in `failures`) for an HTTP error status, which sends the
    /// caller to the next location.
    ///
    /// - Throws: ``MCPAuthorizationError`` `invalidMetadata` for an answer that is not one JSON object, or names a
    ///   member twice; `metadataUnavailable` when nothing answers or the answer is a redirect.
    func fetchObject(_ url: URL, failures: inout [String]) async throws -> [String: JSONValue]? {
        var notFound = 0
        return try await fetchObject(url, failures: &failures, notFound: &notFound)
    }

    /// ``fetchObject(_:failures:)``, counting the answers that were 404 in `notFound`.
    func fetchObject(_ url: URL, failures: inout [String], notFound: inout Int) async throws -> [String: JSONValue]? {
        try requireSecure(url, what: "a metadata URL")
        let response: TransportResponse
        do {
            response = try await transport.send(TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
        } catch {
            throw MCPAuthorizationError(.metadataUnavailable, "cannot fetch \(url.absoluteString): \(error)")
        }
        if (300..<400).contains(response.status) {
            failures.append("\(url.absoluteString) answered HTTP \(response.status) (a redirect, not followed)")
            return nil
        }
        guard response.status == 200 else {
            if response.status == 404 { notFound += 1 }
            failures.append("\(url.absoluteString) answered HTTP \(response.status)")
            return nil
        }
        return try Self.object(response.body, from: url)
    }

    /// One JSON object of at most ``maximumDocumentSize`` bytes that names no member twice.
    static func object(_ body: Data, from url: URL) throws -> [String: JSONValue] {
        func invalid(_ why: String) -> MCPAuthorizationError {
            MCPAuthorizationError(.invalidMetadata, "\(url.absoluteString) did not answer with a metadata document: \(why)")
        }
        guard body.count <= maximumDocumentSize else { throw invalid("it is larger than \(maximumDocumentSize / 1024) KiB") }
        do throws(ServerJSON.Refusal) {
            return try ServerJSON.object(body)
        } catch {
            // Parsers differ on a repeated name: a value checked as one could be used as the other.
            throw invalid(error.isDisagreement ? "it \(error)" : "it is not a JSON object")
        }
    }

    func requireSecure(_ url: URL, what: String) throws {
        guard TransportPolicy.isSecure(url), url.host?.isEmpty == false else {
            throw MCPAuthorizationError(
                .insecureURL, "\(what), \(Self.shown(url.absoluteString)), is neither https nor http to a loopback host; it is not used")
        }
    }

    // MARK: - Values

    /// An issuer identifier (RFC 8414 §2): https, or http to a loopback host; a host; no query, fragment or user.
    static func issuerURL(_ text: String) -> URL? {
        guard text.utf8.count <= 2048, let url = URL(string: text), url.absoluteString == text, TransportPolicy.isSecure(url),
            url.host?.isEmpty == false, url.query == nil, url.fragment == nil, url.user == nil, !text.contains("#"), !text.contains("?")
        else { return nil }
        return url
    }

    /// A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`.
    static func isScopeToken(_ scope: String) -> Bool {
        !scope.isEmpty && scope.utf8.count <= 256 && scope.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// A value from a server, quoted, cut and escaped for a message.
    static func shown(_ text: String) -> String {
        TerminalText.escaped(TerminalText.quoted(text))
    }
}
#endif
