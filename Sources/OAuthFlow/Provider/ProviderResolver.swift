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
    ///   invalid, or the URL that cannot be built; `ProviderError.Code.missingEndpoint` when
    ///   discovery is off and no token endpoint is given (an issuer alone names no endpoints),
    ///   before anything (a login's listener) starts.
    public func resolve(_ values: [String: String] = [:]) throws -> Provider {
        if let missingEndpoint { throw missingEndpoint }
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
        var refusals: [ProviderError] = []
        let typedPolicy = policy(variables: resolved, refusing: &refusals)
        if let refusal = refusals.first { throw refusal }
        return Provider(
            id: id, displayName: displayName, protocol: `protocol`, variables: resolved, issuer: issuerURL,
            discovery: usesDiscovery ? location : nil, endpoints: endpoints, policy: typedPolicy,
            loopback: LoopbackRedirect(host: redirect.loopback.host, port: redirect.loopback.port.resolved, path: redirect.loopback.path),
            profile: ProfileMapping(
                subject: profile.subject, name: profile.name, email: profile.email, emailVerified: profile.emailVerified,
                picture: profile.picture, extraCall: try url(profile.extraCall?.url, "profile.extra_call.url"),
                extraCallPickWhere: profile.extraCall?.pickWhere),
            issuers: IssuerMatcher(issuer: issuerURL, aliases: security.issuerAliases, template: security.idTokenIssuer),
            resources: ResourceMap(entries), isDiscovered: !usesDiscovery)
    }

    /// Everything the resolver refuses in the descriptor itself, whatever the variables' values: each
    /// refusal with the key path of its setting (`ProviderError.keyPath`), in the order ``resolve(_:)``
    /// meets them; it throws the first. Lint reports them where they are written, so a condition the
    /// resolver refuses is stated here only.
    package var refusals: [ProviderError] {
        var refusals = missingEndpoint.map { [$0] } ?? []
        _ = policy(variables: nil, refusing: &refusals)
        return refusals
    }

    /// The refusal of a descriptor that has no token endpoint and no discovery to find one, unless it is
    /// for an API only.
    private var missingEndpoint: ProviderError? {
        guard !asksForDiscovery, endpoints.token == nil, !isForAPIsOnly else { return nil }
        var message = "provider `\(id)` has no token endpoint and discovery is off, so it cannot sign in"
        if issuer == nil {
            message += "; give `endpoints.authorization` and `endpoints.token`, or `discovery.url`"
        } else {
            // An issuer alone names no endpoints: the discovery it needs is most likely what was left out.
            message += discovery == Discovery() ? "; `discovery` is missing: set" : "; set"
            message +=
                " `discovery: {mode: oidc}` (or `rfc8414`) to read the endpoints from the issuer's metadata, or give `endpoints.authorization` and `endpoints.token`"
        }
        return ProviderError(.missingEndpoint, message, provider: id, keyPath: ["endpoints"])
    }

    /// The typed policy: closed sets checked, defaults already applied by the descriptor.
    ///
    /// Every refusal is added to `refusals` (`unsupported_policy`, for what the engine will not run: a
    /// response type other than `code`, the `plain` PKCE method (RFC 9700 §2.1.1, §2.1.2), a grant it does
    /// not know, an algorithm it does not use), and the policy is made of what was accepted; it stands only
    /// when there are none. With `variables` nil, templates are checked without being filled in.
    private func policy(variables: [String: String]?, refusing refusals: inout [ProviderError]) -> Provider.Policy {
        // The setting by its key path, the item of it that is refused (a list's index, a map's key), and why.
        func refuse(_ setting: [String], item: String? = nil, _ why: String) {
            refusals.append(
                ProviderError(
                    .unsupportedPolicy, "`\(setting.joined(separator: "."))` of provider `\(id)` \(why)", provider: id,
                    keyPath: setting + (item.map { [$0] } ?? [])))
        }
        for (field, sources) in [
            ("subject", profile.subject), ("name", profile.name), ("email", profile.email), ("email_verified", profile.emailVerified),
            ("picture", profile.picture),
        ] {
            for (index, source) in sources.enumerated() {
                do {
                    _ = try ProfileSource(parsing: source)
                } catch {
                    refuse(["profile", field], item: String(index), "cannot be read: \(error.reason)")
                }
            }
        }
        // What the engine sets on a token request (RFC 6749 §4.1.3, §6; RFC 7636; RFC 7523; RFC 9449) is never a fixed or copied parameter.
        let tokenRequestReserved: Set<String> = [
            "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "client_secret", "client_assertion",
            "client_assertion_type", "device_code", "scope", "resource", "audience", "subject_token", "actor_token", "assertion",
        ]
        for name in tokenRequest.extraParams.keys.sorted() where tokenRequestReserved.contains(name) {
            refuse(["token_request", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a token request")
        }
        for (index, name) in tokenRequest.callbackParams.enumerated() where tokenRequestReserved.contains(name) || name == "iss" {
            refuse(["token_request", "callback_params"], item: String(index), "copies `\(name)`, which the engine sets (or checks) itself")
        }
        if revocation.tokens.isEmpty {
            refuse(["revocation", "tokens"], "is empty; leave out `endpoints.revocation` for a provider that revokes nothing")
        }
        let revocationReserved: Set<String> = [
            revocation.tokenParameter, "token_type_hint", "client_id", "client_secret", "client_assertion", "client_assertion_type",
        ]
        for name in revocation.extraParams.keys.sorted() where revocationReserved.contains(name) {
            refuse(["revocation", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a revocation request")
        }
        if authorization.responseType != "code" {
            refuse(["authorization", "response_type"], "is `\(authorization.responseType)`; OAuthFlow uses only `code` (RFC 9700 §2.1.2)")
        }
        if security.pkceMethod != .s256 {
            refuse(["security", "pkce_method"], "is `\(security.pkceMethod.rawValue)`; OAuthFlow sends only `S256` (RFC 9700 §2.1.1)")
        }
        let grants = grantTypes.enumerated().compactMap { index, name -> GrantType? in
            guard let grant = GrantType(rawValue: name) else {
                refuse(["grant_types"], item: String(index), "lists `\(name)`: \(GrantType.refusal(of: name))")
                return nil
            }
            return grant
        }
        let algorithms = security.idTokenAlgs.enumerated().compactMap { index, name -> JWSAlgorithm? in
            guard let algorithm = JWSAlgorithm(rawValue: name) else {
                refuse(["security", "id_token_algs"], item: String(index), "lists `\(name)`, which is not an algorithm OAuthFlow verifies")
                return nil
            }
            return algorithm
        }
        let assertionAlgs = clientAuth.assertionAlgs ?? JWSAlgorithm.clientAssertion.map(\.rawValue)
        let clientAlgorithms = assertionAlgs.enumerated().compactMap { index, name -> JWSAlgorithm? in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.clientAssertion.contains(algorithm) else {
                refuse(
                    ["client_auth", "assertion_algs"], item: String(index),
                    "lists `\(name)`; OAuthFlow signs client assertions with \(JWSAlgorithm.listed(JWSAlgorithm.clientAssertion))")
                return nil
            }
            return algorithm
        }
        let dpopAlgorithms = security.dpopSigningAlgs.enumerated().compactMap { index, name -> JWSAlgorithm? in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.dpopKey.contains(algorithm) else {
                refuse(
                    ["security", "dpop_signing_alg_values_supported"], item: String(index),
                    "lists `\(name)`; OAuthFlow signs DPoP proofs with \(JWSAlgorithm.listed(JWSAlgorithm.dpopKey))")
                return nil
            }
            return algorithm
        }
        if security.dpop != .never, security.dpopSigningAlgs.isEmpty {
            refuse(["security", "dpop_signing_alg_values_supported"], "is empty, so no DPoP key can be made")
        }
        let accessTokenAlgorithms = accessTokens.signingAlgs.enumerated().compactMap { index, name -> JWSAlgorithm? in
            guard let algorithm = JWSAlgorithm(rawValue: name), JWSAlgorithm.publicKey.contains(algorithm) else {
                refuse(
                    ["access_tokens", "signing_algs"], item: String(index),
                    "lists `\(name)`; an API verifies access tokens with the provider's public keys, so only RS, PS and ES algorithms are accepted")
                return nil
            }
            return algorithm
        }
        if accessTokens.format != .opaque, accessTokens.signingAlgs.isEmpty {
            refuse(["access_tokens", "signing_algs"], "is empty, so no JWT access token could ever be accepted")
        }
        // A template that is not a URL (an audience, a claim), its variables filled; every one must have a value.
        func filled(_ template: String, _ keyPath: [String], keeping kept: Set<String> = []) -> String {
            var missing: [String] = []
            let rendered = URLTemplate(template).rendering { name in
                guard let variables, !kept.contains(String(name)) else { return "{\(name)}" }
                guard let value = variables[String(name)], !value.isEmpty else {
                    missing.append(String(name))
                    return nil
                }
                return value
            }
            if let name = missing.first {
                refuse(keyPath, "names `{\(name)}`, which has no value")
            } else if rendered.trimmingCharacters(in: .whitespaces).isEmpty {
                refuse(keyPath, "is empty; give the value the tokens carry, or leave the setting out")
            }
            return rendered
        }
        let audience = accessTokens.audience.map { filled($0, ["access_tokens", "audience"]) }
        let generatedSecret = clientAuth.generatedSecret.map { secret -> Provider.Policy.GeneratedSecretPolicy in
            // `{client_id}` stays for the client to fill when it signs.
            let issuer = filled(secret.issuer, ["client_auth", "generated_secret", "issuer"], keeping: ["client_id"])
            let audience = filled(secret.audience, ["client_auth", "generated_secret", "audience"], keeping: ["client_id"])
            if !clientAuth.supported.contains(where: { $0 == .clientSecretPost || $0 == .clientSecretBasic }) {
                refuse(["client_auth", "generated_secret"], "is sent as a client secret: list `client_secret_post` or `client_secret_basic`")
            }
            return .init(issuer: issuer, audience: audience, lifetime: TimeInterval(min(max(60, secret.lifetime), 15_777_000)))
        }
        let custom = logout.style == .custom
        if custom, self.endpoints.endSession == nil {
            refuse(["logout", "style"], "is `custom`, which needs the provider's logout URL in `endpoints.end_session`")
        }
        for reserved in logout.extraParams.keys.sorted() where logout.engineParameters.contains(reserved) {
            refuse(["logout", "extra_params"], item: reserved, "sets `\(reserved)`, which the engine sets on an end-session request")
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
            tokenRequest: .init(
                encoding: tokenRequest.bodyEncoding, headers: tokenRequest.headers, parameters: tokenRequest.extraParams,
                callbackParameters: tokenRequest.callbackParams),
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
        policy.revocation = revocation
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
    /// like a descriptor (regular files only, at most 1 MiB (`DescriptorDocument.maximumSize`), the
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
    /// - Throws: ``ProviderError`` with code ``ErrorCode/invalidVariable``.
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
