import Foundation

extension OAuthClient {
    /// What a service asks a token for: scopes and the APIs (RFC 8707 resources, or audiences) it will call.
    ///
    /// How the APIs are sent is the provider's choice (the descriptor's `service_tokens.target`): `resource`
    /// parameters, an `audience` parameter, or a scope per API. Order and repeats do not matter: two requests
    /// that differ only in them are the same request, and share one cached token.
    public struct ServiceTokenRequest: Sendable, Hashable, Codable, CustomStringConvertible {
        public var scopes: [String]
        /// RFC 8707 resource indicators: absolute URIs without a fragment.
        public var resources: [String]
        /// Audiences, for providers that name APIs that way (Auth0).
        public var audiences: [String]
        /// Rich authorization request details (RFC 9396 §6), sent JSON-encoded as `authorization_details`; nil for none.
        /// Unlike the lists above, their order is kept: it is the request's.
        public var authorizationDetails: [AuthorizationDetail]?

        public init(
            scopes: [String] = [], resources: [String] = [], audiences: [String] = [], authorizationDetails: [AuthorizationDetail] = []
        ) {
            self.scopes = Self.normalized(scopes)
            self.resources = Self.normalized(resources)
            self.audiences = Self.normalized(audiences)
            self.authorizationDetails = authorizationDetails.isEmpty ? nil : authorizationDetails
        }

        static func normalized(_ values: [String]) -> [String] { Array(Set(values.filter { !$0.isEmpty })).sorted() }

        public var description: String {
            var parts: [String] = []
            if !scopes.isEmpty { parts.append("scope \(scopes.joined(separator: " "))") }
            if !resources.isEmpty { parts.append("resource \(resources.joined(separator: ", "))") }
            if !audiences.isEmpty { parts.append("audience \(audiences.joined(separator: ", "))") }
            if let details = authorizationDetails { parts.append("authorization details \(details.map(\.type).joined(separator: ", "))") }
            return parts.isEmpty ? "no scope" : parts.joined(separator: "; ")
        }
    }
}

extension OAuthClient {
    /// A token exchange (RFC 8693 §2.1): the token to exchange, who acts, and what is wanted for which API.
    public struct TokenExchangeRequest: Sendable, Hashable {
        public var subjectToken: Secret
        public var subjectTokenType: String
        public var actorToken: Secret?
        public var actorTokenType: String?
        /// The type wanted; nil leaves it to the server. When set, the answer must be of this type.
        public var requestedTokenType: String?
        public var target: OAuthClient.ServiceTokenRequest

        public init(
            subjectToken: Secret, subjectTokenType: String = TokenTypeIdentifier.accessToken, actorToken: Secret? = nil,
            actorTokenType: String? = nil, requestedTokenType: String? = nil, target: OAuthClient.ServiceTokenRequest = .init()
        ) {
            self.subjectToken = subjectToken
            self.subjectTokenType = subjectTokenType
            self.actorToken = actorToken
            self.actorTokenType = actorToken == nil ? nil : actorTokenType ?? TokenTypeIdentifier.accessToken
            self.requestedTokenType = requestedTokenType
            self.target = target
        }
    }
}

extension OAuthClient {
    /// What a token exchange issued: the token (in ``TokenSet/accessToken`` whatever its type) and its type.
    public struct ExchangedToken: Sendable, Hashable {
        public var tokens: TokenSet
        /// `issued_token_type` (RFC 8693 §2.2.1).
        public var issuedTokenType: String
    }
}

extension OAuthClient {
    /// A token for this client itself (RFC 6749 §4.4), for the scopes and APIs of `request`.
    ///
    /// Nothing is cached here: ``ServiceTokens`` caches, renews early and asks once for many callers.
    /// - Throws: ``FlowError`` `grantNotSupported` when the descriptor does not declare `client_credentials`,
    ///   `invalidServiceRequest` for APIs the provider cannot be asked for that way; ``AuthorizationServerError``
    ///   when the server refuses; ``TransportError``.
    public func clientCredentialsToken(_ request: OAuthClient.ServiceTokenRequest = .init()) async throws -> TokenSet {
        try requireGrant(.clientCredentials)
        let (parameters, scopes) = try targetParameters(request)
        return try await serviceToken([("grant_type", GrantType.clientCredentials.rawValue)] + parameters, scopes: scopes)
    }

    /// Exchanges a JWT for an access token (RFC 7523 §2.1): an assertion the host was given or signed, whose `aud`,
    /// `exp` and `nbf` are checked before it is presented.
    ///
    /// - Parameters:
    ///   - assertion: The JWT.
    ///   - scopes: The scopes asked for.
    ///   - resources: RFC 8707 resource indicators sent with it (absolute URIs without a fragment, checked before sending).
    ///   - key: The key an assertion bound to one (`cnf.jkt`: ``TokenSet/proofKey`` of the exchange that issued it) is
    ///     presented with, in a DPoP proof.
    /// - Throws: as ``clientCredentialsToken(_:)``; ``FlowError`` `unusable_assertion` for an assertion refused so,
    ///   `wrong_authorization_server` for a client given for another server, `dpop` for an assertion bound to another key.
    public func jwtBearerToken(assertion: Secret, scopes: [String] = [], resources: [String] = [], boundTo key: DPoPKey? = nil) async throws
        -> TokenSet
    {
        try requireGrant(.jwtBearer)
        try requireCredentialBinding()
        try await checkAssertion(assertion)
        var parameters = [("grant_type", GrantType.jwtBearer.rawValue), ("assertion", assertion.value)]
        let scopes = OAuthClient.ServiceTokenRequest.normalized(scopes)
        let resources = OAuthClient.ServiceTokenRequest.normalized(resources)
        try Self.checkResources(resources)
        parameters += resources.map { ("resource", $0) }
        parameters += provider.policy.scopes.parameters(for: scopes)
        if case let .object(confirmation)? = (try? CompactJWS(assertion.value))?.claims["cnf"], let bound = confirmation["jkt"]?.stringValue,
            bound != key?.thumbprint
        {
            throw FlowError(.dpop, "the assertion is bound to a key (`cnf.jkt`) this client was not given; it is not presented")
        }
        return try await serviceToken(parameters, scopes: scopes, grantKey: key)
    }

    /// Exchanges one token for another (RFC 8693).
    ///
    /// Audiences and resources are sent as RFC 8693 §2.1 defines them, whatever the provider's
    /// `service_tokens.target`.
    /// - Throws: as ``clientCredentialsToken(_:)``, and ``FlowError`` `unexpectedTokenType` when the answer's
    ///   `issued_token_type` is missing or not ``OAuthClient/TokenExchangeRequest/requestedTokenType``.
    public func exchangeToken(_ request: OAuthClient.TokenExchangeRequest) async throws -> OAuthClient.ExchangedToken {
        try requireGrant(.tokenExchange)
        var parameters = [
            ("grant_type", GrantType.tokenExchange.rawValue),
            ("subject_token", request.subjectToken.value), ("subject_token_type", request.subjectTokenType),
        ]
        if let actor = request.actorToken {
            parameters.append(("actor_token", actor.value))
            parameters.append(("actor_token_type", request.actorTokenType ?? TokenTypeIdentifier.accessToken))
        }
        if let requested = request.requestedTokenType { parameters.append(("requested_token_type", requested)) }
        try Self.checkResources(request.target.resources)
        parameters += request.target.resources.map { ("resource", $0) }
        parameters += request.target.audiences.map { ("audience", $0) }
        parameters += provider.policy.scopes.parameters(for: request.target.scopes)
        parameters += try detailsParameters(request.target)
        let tokens = try await serviceToken(parameters, scopes: request.target.scopes, acceptsNotApplicable: true)
        guard let issued = tokens.additionalFields["issued_token_type"]?.stringValue, !issued.isEmpty else {
            throw FlowError(.unexpectedTokenType, "the token exchange answer has no `issued_token_type` (RFC 8693 §2.2.1)")
        }
        if let requested = request.requestedTokenType, issued != requested {
            throw FlowError(
                .unexpectedTokenType,
                "the token exchange issued a `\(TerminalText.escaped(String(issued.prefix(100))))`, not the `\(requested)` asked for")
        }
        if issued == TokenTypeIdentifier.accessToken, !["bearer", "dpop"].contains(tokens.tokenType) {
            throw FlowError(
                .invalidTokenResponse, "the token exchange issued an access token of type `\(tokens.tokenType)`; only Bearer and DPoP are supported")
        }
        logger.debug("token exchanged", metadata: ["provider": "\(provider.id)", "issued_token_type": "\(issued)"])
        return OAuthClient.ExchangedToken(tokens: tokens, issuedTokenType: issued)
    }

    /// The parameters naming `request`'s APIs the provider's way (`service_tokens.target`), and the scopes asked for.
    func targetParameters(_ request: OAuthClient.ServiceTokenRequest) throws -> (parameters: [(String, String)], scopes: [String]) {
        let policy = provider.policy.serviceTokens
        var scopes = request.scopes
        var parameters: [(String, String)] = []
        switch policy.target {
        case .resource:
            guard request.audiences.isEmpty else {
                throw FlowError(
                    .invalidServiceRequest,
                    "provider `\(provider.id)` names APIs with RFC 8707 `resource` (`service_tokens.target: resource`), not `audience`; ask for the API as a resource"
                )
            }
            try Self.checkResources(request.resources)
            parameters = request.resources.map { ("resource", $0) }
        case .audience:
            guard request.resources.isEmpty else {
                throw FlowError(
                    .invalidServiceRequest,
                    "provider `\(provider.id)` names APIs with an `audience` (`service_tokens.target: audience`), not `resource`; ask for the API as an audience"
                )
            }
            parameters = request.audiences.map { ("audience", $0) }
        case .scope:
            scopes = OAuthClient.ServiceTokenRequest.normalized(scopes + (request.resources + request.audiences).map { $0 + policy.scopeSuffix })
        }
        parameters += provider.policy.scopes.parameters(for: scopes)
        parameters += try detailsParameters(request)
        return (parameters, scopes)
    }

    /// `authorization_details` for a token request (RFC 9396 §6), its types checked against the provider's.
    ///
    /// - Throws: ``FlowError`` `invalidAuthorizationDetails`.
    private func detailsParameters(_ request: OAuthClient.ServiceTokenRequest) throws -> [(String, String)] {
        guard let details = request.authorizationDetails, !details.isEmpty else { return [] }
        try AuthorizationDetail.check(details, for: knownProvider)
        return [("authorization_details", AuthorizationDetail.encoded(details))]
    }

    /// RFC 8707 §2: a resource is an absolute URI with no fragment.
    static func checkResources(_ resources: [String]) throws {
        for resource in resources {
            guard let url = URL(string: resource), url.scheme != nil, url.fragment == nil, !resource.contains("#") else {
                throw FlowError(
                    .invalidServiceRequest,
                    "the resource `\(TerminalText.escaped(String(resource.prefix(200))))` is not an absolute URI without a fragment (RFC 8707 §2)")
            }
        }
    }

    private func requireGrant(_ grant: GrantType) throws {
        guard provider.policy.grantTypes.contains(grant) else {
            throw FlowError(
                .grantNotSupported,
                "provider `\(provider.id)` does not declare the `\(grant.shortName)` grant (`grant_types` lacks `\(grant.rawValue)`)")
        }
    }

    /// Sends a service grant's token request and reads the answer; `acceptsNotApplicable` takes RFC 8693's `N_A` token type.
    /// With `grantKey`, the proof is of that key (a bound grant's), and a Bearer answer from a provider that does not do
    /// DPoP is kept unbound: the proof was the grant's, not a request for bound tokens.
    private func serviceToken(
        _ parameters: [(String, String)], scopes: [String], acceptsNotApplicable: Bool = false, grantKey: DPoPKey? = nil
    ) async throws -> TokenSet {
        var proofKey = grantKey
        if proofKey == nil { proofKey = try await newProofKey() }
        let response = try await tokenRequest(parameters, proofKey: proofKey)
        let parsed = try explainingEncoding(sent: parameters) {
            try TokenResponseParser.tokenSet(
                from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.grantedSeparator,
                defaultTokenType: provider.policy.defaultTokenType, zeroExpiresIn: provider.policy.zeroExpiresIn,
                requestedScopes: scopes, previous: nil, now: clock.now(), acceptsNotApplicable: acceptsNotApplicable)
        }
        let unboundAnswer = grantKey != nil && provider.policy.dpop.use == .never && parsed.tokenType != "dpop"
        let tokens = try bound(parsed, key: unboundAnswer ? nil : proofKey)
        logger.debug(
            "service token issued",
            metadata: ["provider": "\(provider.id)", "grant": "\(parameters.first?.1 ?? "")", "scopes": "\(tokens.scopes.joined(separator: " "))"])
        return tokens
    }
}
