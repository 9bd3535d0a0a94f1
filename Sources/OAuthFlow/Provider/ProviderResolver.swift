import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ProviderDescriptor {
    /// Characters a variable value may never contain: they would change the URL's structure.
    static let forbiddenInVariables = CharacterSet(charactersIn: "/?#@%\\[]{}\"<>^`|")
        .union(.whitespacesAndNewlines).union(.controlCharacters)

    /// Fills in the descriptor's variables and builds concrete URLs.
    ///
    /// - Parameter values: Variable values by name. Declared defaults fill the gaps.
    /// - Returns: The resolved provider.
    /// - Throws: ``ProviderError`` naming the variable that is unknown, missing or
    ///   invalid, or the URL that cannot be built; ``ProviderError/Code/missingEndpoint`` when
    ///   discovery is off and no token endpoint is given (an issuer alone names no endpoints),
    ///   before anything (a login's listener) starts.
    public func resolve(_ values: [String: String] = [:]) throws -> Provider {
        if !asksForDiscovery, endpoints.token == nil, !isForAPIsOnly {
            var message = "provider `\(id)` has no token endpoint and discovery is off, so it cannot sign in"
            message +=
                issuer == nil
                ? "; give `endpoints.authorization` and `endpoints.token`, or `discovery.url`"
                : "; set `discovery: {mode: oidc}` (or `rfc8414`) to read the endpoints from the issuer's metadata, or give `endpoints.authorization` and `endpoints.token`"
            throw ProviderError(.missingEndpoint, message, provider: id)
        }
        for name in values.keys.sorted() where variables[name] == nil {
            let known = variables.keys.sorted()
            var message = "provider `\(id)` has no variable `\(name)`"
            if let suggestion = Spelling.closest(to: name, among: known) {
                message += "; did you mean `\(suggestion)`?"
            } else {
                message += known.isEmpty ? "; it takes none" : "; it takes " + known.map { "`\($0)`" }.joined(separator: ", ")
            }
            throw ProviderError(.unknownVariable, message, provider: id, variable: name)
        }
        var resolved: [String: String] = [:]
        for (name, variable) in variables.sorted(by: { $0.key < $1.key }) {
            guard let value = values[name] ?? variable.default else {
                if variable.required {
                    var message = "provider `\(id)` needs the variable `\(name)` (\(variable.description))"
                    if let example = variable.example { message += ", for example `\(name)=\(example)`" }
                    throw ProviderError(.missingVariable, message, provider: id, variable: name)
                }
                resolved[name] = ""
                continue
            }
            try variable.validate(value, name: name, provider: id)
            resolved[name] = value
        }

        func url(_ template: String?, _ field: String) throws -> URL? {
            guard let template else { return nil }
            return try buildURL(URLTemplate(template), field: field, values: resolved)
        }
        let issuerURL = try url(issuer, "issuer")
        let endpoints = Provider.Endpoints(
            authorization: try url(self.endpoints.authorization, "endpoints.authorization"),
            token: try url(self.endpoints.token, "endpoints.token"),
            userinfo: try url(self.endpoints.userinfo, "endpoints.userinfo"),
            revocation: try url(self.endpoints.revocation, "endpoints.revocation"),
            introspection: try url(self.endpoints.introspection, "endpoints.introspection"),
            endSession: try url(self.endpoints.endSession, "endpoints.end_session"),
            deviceAuthorization: try url(self.endpoints.deviceAuthorization, "endpoints.device_authorization"),
            jwks: try url(self.endpoints.jwks, "endpoints.jwks"),
            pushedAuthorization: try url(self.endpoints.pushedAuthorization, "endpoints.pushed_authorization"))
        let discoveryURL: URL?
        if let explicit = discovery.url {
            discoveryURL = try url(explicit, "discovery.url")
        } else if let issuerURL {
            discoveryURL = Self.wellKnownURL(issuer: issuerURL, mode: discovery.mode)
        } else {
            discoveryURL = nil
        }

        var entries: [Resource] = []
        for (index, template) in try resourceTemplates().enumerated() {
            guard let resourceURL = try url(template.url, "resources.\(index).url") else { continue }
            entries.append(Resource(scope: template.scope, title: template.title, url: resourceURL))
        }
        let location = discoveryURL.map {
            Provider.DiscoveryLocation(url: $0, mode: discovery.mode, isExplicit: discovery.url != nil)
        }
        let usesDiscovery = location != nil && asksForDiscovery
        return Provider(
            id: id, displayName: displayName, protocol: `protocol`, variables: resolved, issuer: issuerURL,
            discovery: usesDiscovery ? location : nil, endpoints: endpoints, policy: try policy(variables: resolved),
            loopback: LoopbackRedirect(host: redirect.loopback.host, port: redirect.loopback.port.resolved, path: redirect.loopback.path),
            profile: ProfileMapping(
                subject: profile.subject, name: profile.name, email: profile.email, emailVerified: profile.emailVerified,
                picture: profile.picture, extraCall: try url(profile.extraCall?.url, "profile.extra_call.url"),
                extraCallPickWhere: profile.extraCall?.pickWhere),
            issuers: IssuerMatcher(issuer: issuerURL, aliases: security.issuerAliases, template: security.idTokenIssuer),
            resources: ResourceMap(entries), isDiscovered: !usesDiscovery)
    }

    /// The typed policy: closed sets checked, defaults already applied by the descriptor.
    ///
    /// - Throws: ``ProviderError`` `unsupportedPolicy` for what the engine will not run: a response
    ///   type other than `code`, the `plain` PKCE method (RFC 9700 §2.1.1, §2.1.2), a grant it does not know,
    ///   an ID token algorithm it does not know.
    private func policy(variables: [String: String]) throws -> Provider.Policy {
        func refuse(_ field: String, _ why: String) -> ProviderError {
            ProviderError(.unsupportedPolicy, "`\(field)` of provider `\(id)` \(why)", provider: id)
        }
        guard authorization.responseType == "code" else {
            throw refuse("authorization.response_type", "is `\(authorization.responseType)`; OAuthFlow uses only `code` (RFC 9700 §2.1.2)")
        }
        guard security.pkceMethod == .s256 else {
            throw refuse("security.pkce_method", "is `plain`; OAuthFlow sends only `S256` (RFC 9700 §2.1.1)")
        }
        let grants = try grantTypes.map { name in
            guard let grant = GrantType(rawValue: name) else {
                let known = GrantType.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                throw refuse("grant_types", "lists `\(name)`, which OAuthFlow does not run (it runs \(known))")
            }
            return grant
        }
        let algorithms = try security.idTokenAlgs.map { name in
            guard let algorithm = JWSAlgorithm(rawValue: name) else {
                throw refuse("security.id_token_algs", "lists `\(name)`, which is not an algorithm OAuthFlow verifies")
            }
            return algorithm
        }
        let clientAlgorithms = try (clientAuth.assertionAlgs ?? JWSAlgorithm.clientAssertion.map(\.rawValue)).map { name in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.clientAssertion.contains(algorithm) else {
                throw refuse(
                    "client_auth.assertion_algs",
                    "lists `\(name)`; OAuthFlow signs client assertions with \(JWSAlgorithm.listed(JWSAlgorithm.clientAssertion))")
            }
            return algorithm
        }
        let dpopAlgorithms = try security.dpopSigningAlgs.map { name in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.dpopKey.contains(algorithm) else {
                throw refuse(
                    "security.dpop_signing_alg_values_supported",
                    "lists `\(name)`; OAuthFlow signs DPoP proofs with \(JWSAlgorithm.listed(JWSAlgorithm.dpopKey))")
            }
            return algorithm
        }
        if security.dpop != .never, dpopAlgorithms.isEmpty {
            throw refuse("security.dpop_signing_alg_values_supported", "is empty, so no DPoP key can be made")
        }
        let accessTokenAlgorithms = try accessTokens.signingAlgs.map { name in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.publicKey.contains(algorithm) else {
                throw refuse(
                    "access_tokens.signing_algs",
                    "lists `\(name)`; an API verifies access tokens with the provider's public keys, so only RS, PS and ES algorithms are accepted")
            }
            return algorithm
        }
        if accessTokens.format != .opaque, accessTokenAlgorithms.isEmpty {
            throw refuse("access_tokens.signing_algs", "is empty, so no JWT access token could ever be accepted")
        }
        // A template that is not a URL (an audience, a claim), its variables filled; every one must have a value.
        func filled(_ template: String, _ key: String, keeping kept: Set<String> = []) throws -> String {
            var missing: [String] = []
            let rendered = URLTemplate(template).rendering { name in
                if kept.contains(String(name)) { return "{\(name)}" }
                guard let value = variables[String(name)], !value.isEmpty else {
                    missing.append(String(name))
                    return nil
                }
                return value
            }
            if let name = missing.first { throw refuse(key, "names `{\(name)}`, which has no value") }
            guard !rendered.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw refuse(key, "is empty; give the value the tokens carry, or leave the setting out")
            }
            return rendered
        }
        let audience = try accessTokens.audience.map { try filled($0, "access_tokens.audience") }
        let generatedSecret = try clientAuth.generatedSecret.map { secret -> Provider.Policy.GeneratedSecretPolicy in
            // `{client_id}` stays for the client to fill when it signs.
            let issuer = try filled(secret.issuer, "client_auth.generated_secret.issuer", keeping: ["client_id"])
            let audience = try filled(secret.audience, "client_auth.generated_secret.audience", keeping: ["client_id"])
            guard clientAuth.supported.contains(where: { $0 == .clientSecretPost || $0 == .clientSecretBasic }) else {
                throw refuse("client_auth.generated_secret", "is sent as a client secret: list `client_secret_post` or `client_secret_basic`")
            }
            return .init(issuer: issuer, audience: audience, lifetime: TimeInterval(min(max(60, secret.lifetime), 15_777_000)))
        }
        let custom = logout.style == .custom
        if custom, self.endpoints.endSession == nil {
            throw refuse("logout.style", "is `custom`, which needs the provider's logout URL in `endpoints.end_session`")
        }
        if let reserved = logout.extraParams.keys.sorted().first(where: logout.engineParameters.contains) {
            throw refuse("logout.extra_params", "sets `\(reserved)`, which the engine sets on an end-session request")
        }
        let logoutPolicy = Provider.Policy.LogoutPolicy(
            style: logout.style, redirectParameter: logout.redirectParameter ?? "post_logout_redirect_uri",
            clientIDParameter: (logout.clientIDParameter ?? "client_id").isEmpty ? nil : (logout.clientIDParameter ?? "client_id"),
            sendsIDTokenHint: logout.idTokenHint ?? !custom, returnsState: logout.returnsState ?? !custom, parameters: logout.extraParams,
            backChannel: .init(supported: logout.backchannelLogoutSupported, sessionSupported: logout.backchannelLogoutSessionSupported),
            frontChannel: .init(supported: logout.frontchannelLogoutSupported, sessionSupported: logout.frontchannelLogoutSessionSupported),
            logoutTokenMaxAge: TimeInterval(logout.logoutTokenMaxAge))
        var policy = Provider.Policy(
            grantTypes: grants, responseMode: authorization.responseMode, authorizationParameters: authorization.extraParams,
            pkce: security.pkce, nonce: security.nonce ?? (`protocol` == .oidc), issParameter: security.issParameter,
            idTokenAlgorithms: algorithms, clientAuthMethods: clientAuth.supported,
            clientAssertion: .init(audience: clientAuth.assertionAudience, algorithms: clientAlgorithms),
            serviceTokens: .init(target: serviceTokens.target, scopeSuffix: serviceTokens.scopeSuffix),
            tokenRequest: .init(encoding: tokenRequest.bodyEncoding, headers: tokenRequest.headers),
            tokenResponseFormat: tokenResponse.format,
            userinfo: .init(method: userinfo.method == .post ? .post : .get, headers: userinfo.headers),
            scopes: .init(
                defaults: scopes.default, separator: scopes.separator, offlineScopes: scopes.offline.scopes,
                offlineParameters: scopes.offline.params),
            device: .init(interval: device.interval, verificationURIAliases: device.verificationURIAliases),
            pushedAuthorization: authorization.pushed,
            dpop: .init(use: security.dpop, algorithms: dpopAlgorithms, bearerAnswer: security.dpopBearerAnswer),
            accessTokens: .init(
                format: accessTokens.format, profile: accessTokens.profile, algorithms: accessTokenAlgorithms, audience: audience,
                leeway: TimeInterval(accessTokens.leeway), introspectionCache: TimeInterval(accessTokens.introspectionCache),
                inactiveCache: TimeInterval(accessTokens.inactiveCache)),
            logout: logoutPolicy, generatedSecret: generatedSecret, webRedirectOnly: redirect.webOnly)
        policy.defaultTokenType = tokenResponse.defaultTokenType
        return policy
    }

    /// The metadata URL for an issuer (OpenID Connect Discovery §4, RFC 8414 §3).
    static func wellKnownURL(issuer: URL, mode: Discovery.Mode) -> URL? {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return nil }
        var path = components.path
        if path.hasSuffix("/") { path.removeLast() }
        switch mode {
        case .none:
            return nil
        case .oidc:
            components.path = path + "/.well-known/openid-configuration"
        case .rfc8414:
            components.path = "/.well-known/oauth-authorization-server" + path
        }
        return components.url
    }

    /// The resource list, inline or from ``resourcesFile``.
    ///
    /// The file must lie in the descriptor's own directory tree: the path is relative,
    /// without `..`, and no symbolic link may lead out of the directory. It is read
    /// like a descriptor (regular files only, at most ``DescriptorDocument/maximumSize``, the
    /// same nesting, alias-expansion and URL-length budgets), and errors give the line and
    /// column of each problem.
    public func resourceTemplates() throws -> [ResourceTemplate] {
        var templates = resources ?? []
        if let resourcesFile {
            let (data, path) = try readResourcesFile(resourcesFile)
            let (entries, problems) = DescriptorDocument.parseResources(data, path: path)
            templates += entries
            if !problems.isEmpty {
                let shown = problems.prefix(5).map { "\($0.location): \($0.message)" }.joined(separator: "; ")
                let more = problems.count > 5 ? " (and \(problems.count - 5) more)" : ""
                throw ProviderError(
                    .invalidResources,
                    "the resources file `\(resourcesFile)` of provider `\(id)` is not a list of {scope, title, url} entries: \(shown)\(more)",
                    provider: id)
            }
        }
        return templates
    }

    private func readResourcesFile(_ name: String) throws -> (Data, String) {
        func refuse(_ why: String) -> ProviderError {
            ProviderError(.invalidResources, "the resources file `\(name)` of provider `\(id)` \(why)", provider: id)
        }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasPrefix("~"), !name.split(separator: "/").contains("..") else {
            throw refuse("must be a path relative to the descriptor's directory, without `..`")
        }
        let base =
            sourcePath.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        // Resolve links on both sides: a link inside the directory must not point outside it.
        guard let directory = Self.realPath(base.path) else { throw refuse("cannot be found: the descriptor's directory is not readable") }
        guard let file = Self.realPath(base.appendingPathComponent(name).path) else {
            throw refuse("cannot be read: no such file beside the descriptor")
        }
        var info = stat()
        if stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw refuse("is a directory, not a file")
        }
        guard file.hasPrefix(directory.hasSuffix("/") ? directory : directory + "/") else {
            throw refuse("leads outside the descriptor's directory (through a symbolic link)")
        }
        do {
            return (try SafeFile.read(file, limit: DescriptorDocument.maximumSize), base.appendingPathComponent(name).path)
        } catch let error as SafeFile.ReadError {
            throw refuse("cannot be read: \(error.reason)")
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func buildURL(_ template: URLTemplate, field: String, values: [String: String]) throws -> URL {
        // A value standing in the query or fragment could add parameters (`x&prompt=none`): it may hold none of the
        // characters that delimit them.
        for placeholder in template.placeholders where placeholder.part == .query || placeholder.part == .fragment {
            if let value = values[placeholder.name], value.contains(where: { "&=#?+;".contains($0) }) {
                throw ProviderError(
                    .invalidVariable,
                    "the variable `\(placeholder.name)` stands in the query of `\(field)` of provider `\(id)`, so its value may not contain &, =, #, ?, + or ;",
                    provider: id)
            }
        }
        let text = template.substituting(values)
        // The filled-in URL passes the check a fixed one does: a value may not make what the descriptor could not
        // (a port of 99999 or 2^63, `:` with no port, a host label that begins with `-`, 100 KB of URL).
        guard text.utf8.count <= DescriptorSchema.maximumURLLength else {
            throw ProviderError(
                .invalidURL,
                "`\(field)` of provider `\(id)` is longer than \(DescriptorSchema.maximumURLLength) bytes once its variables are filled in",
                provider: id)
        }
        if let reason = URLTemplate(text).shapeProblem {
            throw ProviderError(
                .invalidURL, "`\(field)` of provider `\(id)` is not a valid URL once its variables are filled in (\(reason)): `\(text)`", provider: id
            )
        }
        guard let url = URL(string: text),
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.host, !host.isEmpty,
            components.scheme?.lowercased() == template.scheme,
            components.user == nil, components.password == nil
        else {
            throw ProviderError(.invalidURL, "`\(field)` of provider `\(id)` does not form a valid URL: `\(text)`", provider: id)
        }
        let placeholderInQuery = template.placeholders.contains { $0.part == .query || $0.part == .fragment }
        let templateHasQuery = template.text.contains("?")
        if !placeholderInQuery, !templateHasQuery, components.query != nil {
            throw ProviderError(
                .invalidURL, "`\(field)` of provider `\(id)` gained a query string from a variable: `\(text)`",
                provider: id)
        }
        return url
    }
}

extension ProviderDescriptor.Variable {
    /// Why the variable's `pattern` cannot be used (bad syntax, or a construct outside the
    /// linear-time subset described in Docs/descriptor-format.md), or nil.
    public var patternProblem: String? {
        pattern.flatMap(Pattern.problem(in:))
    }

    /// Checks a value against the variable's enum, pattern and the characters no URL part may take.
    ///
    /// - Throws: ``ProviderError`` with code ``ProviderError/Code/invalidVariable``.
    public func validate(_ value: String, name: String, provider: String) throws {
        guard let reason = problem(with: value) else { return }
        throw ProviderError(.invalidVariable, "variable `\(name)` of provider `\(provider)` \(reason)", provider: provider, variable: name)
    }

    /// Why ``validate(_:name:provider:)`` refuses a value, as the end of a sentence about the
    /// variable ("is empty", "must be one of …"), or nil. The `example` is offered after a pattern
    /// mismatch unless `citingExample` answers false (asked only then: when the example itself is
    /// what is checked, or does not fit).
    public func problem(with value: String, citingExample: @autoclosure () -> Bool = true) -> String? {
        // Values are quoted cut short: a long one (a hostile default, a pasted file) must not flood the
        // message. Quoted only for a refusal: most values pass.
        var quoted: String { TerminalText.quoted(value) }
        if value.isEmpty { return "is empty" }
        if value.unicodeScalars.contains(where: ProviderDescriptor.forbiddenInVariables.contains) {
            return "contains a character that would change the URL's structure: \(quoted)"
        }
        // A whole path segment of `.` or `..` moves the path itself (RFC 3986 §5.2.4 removes it, or
        // the segment before it); in a host it leaves an empty label.
        if value == "." || value == ".." {
            return "is the dot segment \(quoted), which would move the URL's path"
        }
        if let allowed = self.enum, !allowed.contains(value) {
            return "must be one of \(allowed.map { "`\($0)`" }.joined(separator: ", ")), not \(quoted)"
        }
        if let pattern, !Pattern.matchesWhole(value, pattern: pattern) {
            var reason = "does not match the pattern `\(pattern)`: \(quoted)"
            if let example, example != value, citingExample() { reason += " (example: \(TerminalText.quoted(example)))" }
            return reason
        }
        return nil
    }
}

extension ProviderDescriptor.Loopback.Port {
    /// The resolved provider's form of the port.
    var resolved: LoopbackRedirect.Port {
        switch self {
        case .ephemeral: .ephemeral
        case let .fixed(number): .fixed(number)
        }
    }
}
