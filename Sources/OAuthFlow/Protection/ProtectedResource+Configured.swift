import Foundation

extension ProtectedResource {
    /// A protected resource trusting the providers `descriptors` describe: each resolved with its
    /// variables and, when its tokens are introspected (`access_tokens.format: opaque` or `both`), with the
    /// API's client at that provider as ``ClientSettingsResolver`` finds it (`overrides`, the
    /// `OAUTHFLOW_<PROVIDER>_*` variables, the clients file), authenticating by any method the descriptor allows.
    ///
    /// ```swift
    /// let api = try ProtectedResource.configured(
    ///     descriptors: [try registry.descriptor(named: "auth0")],
    ///     settings: .init(resource: URL(string: "https://api.example.com")!),
    ///     resolver: ClientSettingsResolver(environment: environment))
    /// ```
    /// - Throws: ``ClientSettingsError`` when an introspecting provider has no client; ``ProviderError`` when a
    ///   descriptor does not resolve, or the setup could never accept a token.
    public static func configured(
        descriptors: [ProviderDescriptor], settings: Settings, overrides: [String: ClientSettings.Overrides] = [:],
        resolver: ClientSettingsResolver, environment: OAuthEnvironment = OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 5))
    ) throws -> ProtectedResource {
        try trusting(
            descriptors, settings: settings, environment: environment,
            variables: { (overrides[$0] ?? .init()).variables },
            client: { try resolver.settings(for: $0, overrides: overrides[$0] ?? .init()) })
    }

    /// Trusts `descriptors`: one whose tokens are JWTs resolved with `variables`, one whose tokens are introspected
    /// with its `client`'s variables and that client as the API's introspection client.
    static func trusting(
        _ descriptors: [ProviderDescriptor], settings: Settings, environment: OAuthEnvironment,
        variables: (String) -> [String: String], client: (String) throws -> ClientSettings
    ) throws -> ProtectedResource {
        var providers: [Provider] = []
        var clients: [String: ClientConfiguration] = [:]
        for descriptor in descriptors {
            if descriptor.accessTokens.format == .jwt {
                providers.append(try descriptor.resolve(variables(descriptor.id)))
            } else {
                let settings = try client(descriptor.id)
                providers.append(try descriptor.resolve(settings.variables))
                clients[descriptor.id] = settings.serviceConfiguration()
            }
        }
        return try ProtectedResource(providers: providers, settings: settings, introspectionClients: clients, environment: environment)
    }

    /// Checks one access token as an API with `audience` would, trusting only `descriptor`'s provider: what
    /// `oauthflow verify-token` runs. A DPoP- or certificate-bound token is refused, as it would be without its proof.
    ///
    /// - Parameters:
    ///   - token: The access token to check, as a client would send it.
    ///   - descriptor: The provider that issued it; the only one trusted.
    ///   - audience: The API's audience, in place of the descriptor's `access_tokens.audience`; nil takes that one.
    ///   - overrides: The API's client at that provider, ahead of what `resolver` finds (for introspected tokens).
    ///   - resolver: Finds the API's client for introspection (the `OAUTHFLOW_<PROVIDER>_*` variables, the clients file).
    ///   - environment: Fetches discovery, the JWKS and introspection answers (a 10-second deadline by default).
    /// - Returns: The principal.
    /// - Throws: ``ProtectedResource/Denial`` saying exactly which check failed (``ProtectedResource/Denial/reason``); ``ClientSettingsError``
    ///   or ``ProviderError`` for a setup that cannot check it.
    public static func verify(
        _ token: Secret, descriptor: ProviderDescriptor, audience: String?, overrides: ClientSettings.Overrides = .init(),
        resolver: ClientSettingsResolver, environment: OAuthEnvironment = OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 10))
    ) async throws -> ProtectedResource.Principal {
        // The resource URL only names the API in challenges and metadata, which a single check never shows.
        let named = audience.flatMap(URL.init(string:)).flatMap { TransportPolicy.isSecure($0) && $0.host != nil ? $0 : nil }
        let unpublished = URL(string: "http://127.0.0.1/") ?? URL(fileURLWithPath: "/")
        var descriptor = descriptor
        // `format: both` verifies a JWT with the provider's keys and never introspects it: such a token needs no
        // introspection client, so none is looked for.
        if descriptor.accessTokens.format == .both, (try? CompactJWS(token.value)) != nil { descriptor.accessTokens.format = .jwt }
        let resource = try configured(
            descriptors: [descriptor], settings: .init(resource: named ?? unpublished, audience: audience, cacheCapacity: 0),
            overrides: [descriptor.id: overrides], resolver: resolver, environment: environment)
        guard audience != nil || resource.trusted.contains(where: { $0.policy.audience != nil }) else {
            let why = "provider `\(descriptor.id)` states none (`access_tokens.audience`)"
            let how = "`audience:`; `--audience` for `oauthflow verify-token`"
            throw ProviderError(.unsupportedPolicy, "give the API's audience (\(how)): \(why)", provider: descriptor.id)
        }
        return try await resource.authenticate(ProtectedResource.Request(authorization: "Bearer " + token.value))
    }
}
