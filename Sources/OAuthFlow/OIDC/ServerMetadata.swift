import Foundation
import Logging

/// An authorization server's metadata (OpenID Connect Discovery 1.0, RFC 8414).
public struct ServerMetadata: Sendable, Hashable, Codable {
    public var issuer: String
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    public var userinfoEndpoint: URL?
    public var jwksURI: URL?
    public var revocationEndpoint: URL?
    public var introspectionEndpoint: URL?
    public var endSessionEndpoint: URL?
    public var deviceAuthorizationEndpoint: URL?
    public var codeChallengeMethodsSupported: [String]?
    public var tokenEndpointAuthMethodsSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    public var authorizationResponseIssParameterSupported: Bool?
    /// `scopes_supported`: scopes the server accepts (RECOMMENDED only, so often incomplete).
    public var scopesSupported: [String]?
    /// `grant_types_supported`; when absent, RFC 8414 §2 reads it as `authorization_code` and `implicit`.
    public var grantTypesSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case scopesSupported = "scopes_supported", grantTypesSupported = "grant_types_supported"
    }
}

extension Provider {
    /// Whether the descriptor asks for discovery (`discovery.mode` other than `none`, or a `discovery.url`).
    public var usesDiscovery: Bool {
        discoveryURL != nil && (descriptor.discovery.mode != .none || descriptor.discovery.url != nil)
    }

    /// This provider with discovered endpoints filling the gaps; static endpoints win.
    ///
    /// Discovered endpoints obey the rules static ones do: https, or http to a loopback
    /// host. One on another host than the issuer is allowed (Google's token endpoint is
    /// not on `accounts.google.com`) but logged, so a document that sends tokens
    /// elsewhere is visible.
    /// - Throws: ``DiscoveryError`` `insecureEndpoint` for an endpoint that breaks those rules.
    public func applying(_ metadata: ServerMetadata, logger: Logger? = nil) throws -> Provider {
        var merged = endpoints
        func fill(_ slot: WritableKeyPath<Endpoints, URL?>, _ found: URL?, _ name: String) throws {
            guard merged[keyPath: slot] == nil, let found else { return }
            let scheme = found.scheme?.lowercased()
            guard scheme == "https" || (scheme == "http" && Loopback.isLoopbackHost(found.host ?? "")) else {
                throw DiscoveryError(.insecureEndpoint,
                                   "the discovery document of `\(id)` names `\(found.absoluteString)` as its \(name); only https (or http to a loopback host) is accepted")
            }
            if let issuerHost = issuer?.host?.lowercased(), let host = found.host?.lowercased(), host != issuerHost {
                logger?.info("discovered endpoint on another host than the issuer",
                             metadata: ["provider": "\(id)", "endpoint": "\(name)", "host": "\(host)", "issuer_host": "\(issuerHost)"])
            }
            merged[keyPath: slot] = found
        }
        try fill(\.authorization, metadata.authorizationEndpoint, "authorization_endpoint")
        try fill(\.token, metadata.tokenEndpoint, "token_endpoint")
        try fill(\.userinfo, metadata.userinfoEndpoint, "userinfo_endpoint")
        try fill(\.jwks, metadata.jwksURI, "jwks_uri")
        try fill(\.revocation, metadata.revocationEndpoint, "revocation_endpoint")
        try fill(\.introspection, metadata.introspectionEndpoint, "introspection_endpoint")
        try fill(\.endSession, metadata.endSessionEndpoint, "end_session_endpoint")
        try fill(\.deviceAuthorization, metadata.deviceAuthorizationEndpoint, "device_authorization_endpoint")
        return Provider(descriptor: descriptor, variables: variables, issuer: issuer, discoveryURL: discoveryURL,
                        endpoints: merged, resources: resources, profileCall: profileCall)
    }

    /// This provider with every endpoint its descriptor leaves out taken from discovery,
    /// when the descriptor asks for discovery; otherwise itself.
    ///
    /// - Throws: ``DiscoveryError`` when the discovery document cannot be had or breaks the rules.
    public func discoveringEndpoints(with discovery: DiscoveryClient, logger: Logger? = nil) async throws -> Provider {
        guard usesDiscovery else { return self }
        return try applying(try await discovery.metadata(for: self), logger: logger)
    }

    /// This provider (its discovery done) with a revocation endpoint from the issuer's RFC 8414
    /// metadata (`/.well-known/oauth-authorization-server`), when its OpenID discovery document
    /// named none: fetched only when revocation is needed, so no sign-in waits on a second
    /// document. That document is optional: its failures, and one naming another issuer, leave
    /// the provider as it was.
    public func completingRevocation(with discovery: DiscoveryClient, logger: Logger? = nil) async -> Provider {
        guard endpoints.revocation == nil, usesDiscovery, descriptor.discovery.mode == .oidc, descriptor.discovery.url == nil,
              let issuer, let url = ProviderDescriptor.wellKnownURL(issuer: issuer, mode: .rfc8414),
              let metadata = try? await discovery.metadata(for: self, at: url), metadata.revocationEndpoint != nil,
              let completed = try? applying(metadata, logger: logger) else {
            return self
        }
        logger?.info("revocation endpoint taken from RFC 8414 metadata", metadata: ["provider": "\(id)", "document": "\(url.absoluteString)"])
        return completed
    }
}

/// Fetches and caches discovery documents.
public actor DiscoveryClient {
    private let transport: any HTTPTransport
    private let timeToLive: TimeInterval
    private let clock: any DateClock
    private var cache: [URL: (ServerMetadata, Date)] = [:]

    /// - Parameter timeToLive: How long a fetched document is reused (default one hour).
    public init(transport: any HTTPTransport = DefaultHTTPTransport(), timeToLive: TimeInterval = 3600,
                clock: any DateClock = SystemDateClock()) {
        self.transport = transport
        self.timeToLive = timeToLive
        self.clock = clock
    }

    /// The provider's metadata, from the cache or the network.
    ///
    /// - Throws: ``DiscoveryError``: `unreachable` or `invalidDocument` when the document cannot be
    ///   had, and `issuerMismatch` when its `issuer` is not exactly the descriptor's
    ///   (RFC 8414 §3.3; a trailing slash counts).
    public func metadata(for provider: Provider) async throws -> ServerMetadata {
        guard let url = provider.discoveryURL else {
            throw DiscoveryError(.notConfigured, "provider `\(provider.id)` has no issuer with discovery")
        }
        return try await metadata(for: provider, at: url)
    }

    /// The provider's metadata published at `url` (its discovery document, or its RFC 8414
    /// metadata), checked and cached as ``metadata(for:)`` does.
    func metadata(for provider: Provider, at url: URL) async throws -> ServerMetadata {
        guard let issuer = provider.issuer else {
            throw DiscoveryError(.notConfigured, "provider `\(provider.id)` has no issuer with discovery")
        }
        if let (cached, fetched) = cache[url], clock.now().timeIntervalSince(fetched) < timeToLive { return cached }
        let fetched: (document: ServerMetadata?, response: HTTPResponse)
        do {
            fetched = try await transport.fetchJSON(url, as: ServerMetadata.self)
        } catch let error as FlowError {
            throw error
        } catch {
            throw DiscoveryError(.unreachable, "cannot fetch \(url.absoluteString): \(error)")
        }
        guard fetched.response.status == 200 else {
            throw DiscoveryError(.unreachable, "\(url.absoluteString) answered HTTP \(fetched.response.status)")
        }
        guard let metadata = fetched.document else {
            throw DiscoveryError(.invalidDocument, "\(url.absoluteString) is not a discovery document (not JSON with an `issuer`)")
        }
        guard provider.isDiscoveryIssuer(metadata.issuer) else {
            throw DiscoveryError(.issuerMismatch,
                               "\(url.absoluteString) names issuer `\(metadata.issuer)`, but the descriptor says `\(issuer.absoluteString)`")
        }
        cache[url] = (metadata, clock.now())
        return metadata
    }
}
