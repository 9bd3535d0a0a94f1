import Foundation
import Logging

extension Provider {
    /// This provider with discovered endpoints filling the gaps; static endpoints win.
    ///
    /// Discovered endpoints obey the rules static ones do: https, or http to a loopback
    /// host. One on another host than the issuer is allowed (Google's token endpoint is
    /// not on `accounts.google.com`) but logged, so a document that sends tokens
    /// elsewhere is visible.
    /// - Throws: ``DiscoveryError`` `insecureEndpoint` for an endpoint that breaks those rules, `invalidDocument` for one
    ///   whose host is no host name (percent-escapes that decode to control characters, spaces).
    package func applying(_ metadata: ServerMetadata, logger: Logger? = nil) throws -> Provider {
        var merged = endpoints
        func fill(_ slot: WritableKeyPath<Endpoints, URL?>, _ found: URL?, _ name: String) throws {
            guard merged[keyPath: slot] == nil, let found else { return }
            guard TransportPolicy.isSecure(found) else {
                throw DiscoveryError(
                    .insecureEndpoint,
                    "the discovery document of `\(id)` names `\(found.absoluteString)` as its \(name); only https (or http to a loopback host) is accepted"
                )
            }
            // A host name (RFC 1123, an IP literal): letters, digits, `-`, `.`, `_`, and `:` inside an IPv6 literal.
            guard let named = found.host, !named.isEmpty,
                named.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._:".unicodeScalars.contains($0)) })
            else {
                throw DiscoveryError(
                    .invalidDocument,
                    "the discovery document of `\(id)` names as its \(name) a URL whose host is no host name: \(TerminalText.escaped(found.absoluteString))"
                )
            }
            if let issuerHost = issuer?.host?.lowercased(), let host = found.host?.lowercased(), host != issuerHost {
                logger?.info(
                    "discovered endpoint on another host than the issuer",
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
        // RFC 8705 §5: the aliases of the endpoints a client calls with its certificate.
        let aliases: [(WritableKeyPath<Endpoints, URL?>, String)] = [
            (\.mtlsToken, "token_endpoint"), (\.mtlsRevocation, "revocation_endpoint"), (\.mtlsIntrospection, "introspection_endpoint"),
            (\.mtlsUserinfo, "userinfo_endpoint"), (\.mtlsDeviceAuthorization, "device_authorization_endpoint"),
            (\.mtlsPushedAuthorization, "pushed_authorization_request_endpoint"), (\.mtlsGrantManagement, "grant_management_endpoint"),
        ]
        for (slot, name) in aliases { try fill(slot, metadata.mtlsAlias(name), "mtls_endpoint_aliases.\(name)") }
        try fill(\.pushedAuthorization, metadata.pushedAuthorizationRequestEndpoint, "pushed_authorization_request_endpoint")
        try fill(\.grantManagement, metadata.grantManagementEndpoint, "grant_management_endpoint")
        var capabilities = ServerCapabilities(
            requiresPushedAuthorization: metadata.requirePushedAuthorizationRequests ?? false,
            dpopAlgorithms: metadata.dpopSigningAlgValuesSupported,
            sendsIssuerInResponses: metadata.authorizationResponseIssParameterSupported ?? false)
        capabilities.requestObjectAlgorithms = metadata.requestObjectSigningAlgValuesSupported
        capabilities.requiresSignedRequestObject = metadata.requireSignedRequestObject ?? false
        capabilities.authorizationDetailsTypes = metadata.authorizationDetailsTypesSupported
        capabilities.codeChallengeMethods = metadata.codeChallengeMethodsSupported
        capabilities.grantManagementActions = metadata.grantManagementActionsSupported
        capabilities.requiresGrantManagementAction = metadata.grantManagementActionRequired ?? false
        return with(endpoints: merged, capabilities: capabilities, discovered: true)
    }

    /// This provider with every endpoint its descriptor leaves out taken from discovery, when the
    /// descriptor asks for discovery and it has not run yet; otherwise itself. One fetch, cached by `discovery`.
    ///
    /// - Throws: ``DiscoveryError`` when the discovery document cannot be had or breaks the rules.
    package func discovered(with discovery: DiscoveryClient, logger: Logger? = nil) async throws -> Provider {
        guard !isDiscovered, let location = self.discovery else { return self }
        return try applying(try await discovery.metadata(at: location.url, issuers: issuers, provider: id), logger: logger)
    }

    /// This provider with every endpoint its descriptor leaves out taken from discovery, fetched through
    /// `environment`'s transport; itself when the descriptor asks for no discovery or it has run already.
    ///
    /// - Throws: ``DiscoveryError`` when the discovery document cannot be had or breaks the rules.
    public func discovered(environment: OAuthEnvironment = OAuthEnvironment()) async throws -> Provider {
        try await discovered(with: DiscoveryClient(transport: environment.transport, clock: environment.clock), logger: environment.logger)
    }

    /// This provider (its discovery done) with a revocation endpoint from the issuer's RFC 8414
    /// metadata (`/.well-known/oauth-authorization-server`), when its OpenID discovery document
    /// named none: fetched only when revocation is needed, so no sign-in waits on a second
    /// document. That document is optional: its failures, and one naming another issuer, leave
    /// the provider as it was.
    package func completingRevocation(with discovery: DiscoveryClient, logger: Logger? = nil) async -> Provider {
        guard endpoints.revocation == nil, let location = self.discovery, location.mode == .oidc, !location.isExplicit,
            let issuer, let url = ProviderDescriptor.wellKnownURL(issuer: issuer, mode: .rfc8414),
            let metadata = try? await discovery.metadata(at: url, issuers: issuers, provider: id), metadata.revocationEndpoint != nil,
            let completed = try? applying(metadata, logger: logger)
        else {
            return self
        }
        logger?.info("revocation endpoint taken from RFC 8414 metadata", metadata: ["provider": "\(id)", "document": "\(url.absoluteString)"])
        return completed
    }
}
