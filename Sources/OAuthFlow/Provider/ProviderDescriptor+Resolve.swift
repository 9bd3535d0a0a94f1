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

    /// Whether `scalar` is in ``forbiddenInVariables``: an ASCII character by a switch, any other by the set (a
    /// test holds the two equal for every scalar). Values are checked for every variable of every descriptor linted.
    static func isForbiddenInVariables(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return forbiddenInVariables.contains(scalar) }
        return switch UInt8(scalar.value) {
        case 0...0x20, 0x7F, UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "%"),
            UInt8(ascii: "\\"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\""),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "|"):
            true
        default: false
        }
    }

    /// Whether `value` holds a scalar ``isForbiddenInVariables(_:)`` refuses: judged by its bytes while they are ASCII
    /// (each byte a scalar of its own), by its scalars when one is not. Asked of every variable value lint reads, where
    /// stepping through the string's scalars cost four hundred instructions a value.
    static func holdsForbiddenInVariables(_ value: String) -> Bool {
        var value = value
        let byBytes: Bool? = value.withUTF8 { bytes in
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if isForbiddenInVariables(Unicode.Scalar(byte)) { return true }
            }
            return false
        }
        return byBytes ?? value.unicodeScalars.contains(where: isForbiddenInVariables)
    }

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
        // An endpoint the descriptor writes obeys the rules a discovered one does.
        func endpoint(_ template: String?, _ field: String) throws -> URL? { try checkedEndpoint(url(template, field), field) }
        let issuerURL = try url(issuer, "issuer")
        let endpoints = Provider.Endpoints(
            authorization: try endpoint(self.endpoints.authorization, "endpoints.authorization"),
            token: try endpoint(self.endpoints.token, "endpoints.token"),
            userinfo: try endpoint(self.endpoints.userinfo, "endpoints.userinfo"),
            revocation: try endpoint(self.endpoints.revocation, "endpoints.revocation"),
            introspection: try endpoint(self.endpoints.introspection, "endpoints.introspection"),
            endSession: try endpoint(self.endpoints.endSession, "endpoints.end_session"),
            deviceAuthorization: try endpoint(self.endpoints.deviceAuthorization, "endpoints.device_authorization"),
            jwks: try endpoint(self.endpoints.jwks, "endpoints.jwks"),
            pushedAuthorization: try endpoint(self.endpoints.pushedAuthorization, "endpoints.pushed_authorization"),
            refresh: try endpoint(self.endpoints.refresh, "endpoints.refresh"))
        // An explicit metadata URL, or the issuer's well-known one.
        let discoveryURL =
            try discovery.url.flatMap { try endpoint($0, "discovery.url") }
            ?? issuerURL.flatMap { Self.wellKnownURL(issuer: $0, mode: discovery.mode) }

        var entries: [Resource] = []
        for (index, template) in try resourceTemplates().enumerated() {
            guard let resourceURL = try url(template.url, "resources.\(index).url") else { continue }
            entries.append(Resource(scope: template.scope, title: template.title, url: resourceURL))
        }
        let location = discoveryURL.map {
            Provider.DiscoveryLocation(url: $0, mode: discovery.mode, isExplicit: discovery.url != nil, lacks: discovery.lacks)
        }
        let usesDiscovery = location != nil && asksForDiscovery
        var refusals: [ProviderError] = []
        let checked = policy(variables: resolved, refusing: &refusals)
        if let refusal = refusals.first { throw refusal }
        guard var typedPolicy = checked else { preconditionFailure("a policy asked to be assembled is answered") }
        typedPolicy.securityEvents = try securityEvents?.resolved(providerIssuer: issuerURL, providerKeys: endpoints.jwks, url: url)
        var provider = Provider(
            id: id, displayName: displayName, protocol: `protocol`, variables: resolved, issuer: issuerURL,
            discovery: usesDiscovery ? location : nil, endpoints: endpoints, policy: typedPolicy,
            loopback: Provider.Loopback(
                host: redirect.loopback.host, port: redirect.loopback.port.resolved, path: redirect.loopback.path,
                keepingLocalhost: redirect.loopback.writeLocalhost),
            profile: ProfileMapping(
                subject: profile.subject, name: profile.name, email: profile.email, emailVerified: profile.emailVerified,
                picture: profile.picture, extraCall: try url(profile.extraCall?.url, "profile.extra_call.url"),
                extraCallPickWhere: profile.extraCall?.pickWhere, extraCallList: profile.extraCall?.list),
            issuers: IssuerMatcher(issuer: issuerURL, aliases: security.issuerAliases, template: idTokenIssuerTemplate(variables: resolved)),
            resources: ResourceMap(entries), isDiscovered: !usesDiscovery)
        provider.lacks = Set(discovery.lacks)
        provider.tokenServers = provider.receivingServers(discovery: discovery.url == nil ? nil : discoveryURL)
        return provider
    }

    /// `security.id_token_issuer` while a variable of the issuer takes one of `security.multi_tenant_values` (the
    /// descriptor names no one tenant); nil otherwise: one tenant's tokens carry its issuer itself, and a template filled
    /// from a token's own claims would let any tenant's token pass.
    func idTokenIssuerTemplate(variables: [String: String]) -> String? {
        guard let template = security.idTokenIssuer, let issuer else { return nil }
        let named = URLTemplate(issuer).placeholders.compactMap { variables[$0.name] }
        return named.contains(where: security.multiTenantValues.contains) ? template : nil
    }

    /// Everything the resolver refuses in the descriptor itself, whatever the variables' values: each
    /// refusal with the key path of its setting (`ProviderError.keyPath`), in the order ``resolve(_:)``
    /// meets them; it throws the first. Lint reports them where they are written, so a condition the
    /// resolver refuses is stated here only.
    package var refusals: [ProviderError] {
        var refusals = missingEndpoint.map { [$0] } ?? []
        _ = policy(variables: nil, refusing: &refusals, assembled: false)
        return refusals
    }

    /// The refusal of a descriptor that has no token endpoint and no discovery to find one, unless it is
    /// for an API only.
    private var missingEndpoint: ProviderError? {
        guard !asksForDiscovery, endpoints.token == nil, !isForAPIsOnly, !isForSecurityEventsOnly else { return nil }
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
    /// when there are none. With `variables` nil, templates are checked without being filled in. With `assembled` false
    /// only the refusals are wanted (``refusals``): every check runs as it does for a policy, and nil is answered
    /// without making the policy of what they accepted.
    private func policy(variables: [String: String]?, refusing refusals: inout [ProviderError], assembled: Bool = true) -> Provider.Policy? {
        // Each section resolves itself (ProviderDescriptor+<Section>Resolution.swift), in the order refusals are reported.
        var found = PolicyRefusals(providerID: id, variables: variables)
        // The keys themselves, looked up in place: most descriptors ask nothing of them, and a set was made for each.
        let declared = self.variables.keys
        profile.check(&found)
        let userinfoRequest = userinfo.resolved(dpop: security.dpop != .never, extraCall: profile.extraCall != nil, declared: declared, &found)
        let tokenRequestShape = tokenRequest.resolved(&found)
        let revocationSettings = revocation.resolved(&found)
        authorization.check(&found)
        let securedAuthorization = authorization.securedAuthorization(&found)
        let authentication = authorization.authentication(protocol: `protocol`, offlineParameters: scopes.offline.params, &found)
        if authorization.callbackSignature != nil, !clientAuth.supported.contains(where: { $0 == .clientSecretPost || $0 == .clientSecretBasic }) {
            found.refuse(
                ["authorization", "callback_signature"], "is checked with the client secret: list `client_secret_post` or `client_secret_basic`")
        }
        security.checkPKCE(&found)
        security.checkIssuerTemplate(issuer: issuer, &found)
        let grants = grants(&found)
        let idTokenAlgorithms = security.idTokenAlgorithms(&found)
        let clientAssertion = clientAuth.assertionPolicy(&found)
        let dpopPolicy = security.dpopPolicy(&found)
        let accessTokenPolicy = accessTokens.resolved(&found)
        let generatedSecret = clientAuth.generatedSecretPolicy(&found)
        var logoutPolicy = logout.resolved(endSession: endpoints.endSession != nil, &found)
        let authorizationParameters = found.filledParameters(authorization.extraParams, at: ["authorization", "extra_params"], declared: declared)
        logoutPolicy.parameters = found.filledParameters(logout.extraParams, at: ["logout", "extra_params"], declared: declared)
        security.checkNonce(protocol: `protocol`, &found)
        profile.checkExtraCall(&found)
        let requestParameters = requestParameterPolicy(&found)
        refuseContradictions(ofSecurityProfile: &found)
        let appRedirect = redirect.appRedirect(declared: declared, &found)
        securityEvents?.check(providerIssuer: issuer, &found)
        refusals += found.errors
        // Every refusal is known here: what follows only puts together what the checks above accepted.
        guard assembled else { return nil }
        var policy = Provider.Policy(
            grantTypes: grants, responseMode: authorization.responseMode, authorizationParameters: authorizationParameters,
            pkce: security.pkce, nonce: security.nonce ?? (`protocol` == .oidc), issParameter: security.issParameter,
            idTokenAlgorithms: idTokenAlgorithms, clientAuthMethods: clientAuth.supported, clientAssertion: clientAssertion,
            serviceTokens: serviceTokens.resolved(), tokenRequest: tokenRequestShape,
            tokenResponseFormat: tokenResponse.format,
            userinfo: userinfoRequest,
            scopes: scopes.resolved(), device: requestParameters.device,
            pushedAuthorization: authorization.pushed, dpop: dpopPolicy, accessTokens: accessTokenPolicy, logout: logoutPolicy,
            generatedSecret: generatedSecret, webRedirectOnly: redirect.webOnly)
        policy.defaultTokenType = tokenResponse.defaultTokenType
        policy.zeroExpiresIn = tokenResponse.zeroExpiresIn
        policy.revocation = revocationSettings
        policy.nonceEchoed = security.nonceEchoed
        policy.scopes.answerSeparator = tokenResponse.scopeSeparator
        policy.callbackSignature = authorization.callbackSignature
        policy.authorizationDetailsTypes = authorization.detailsTypes
        policy.certificateBoundTokens = security.tlsClientCertificateBoundAccessTokens
        policy.appRedirect = appRedirect
        securedAuthorization.apply(to: &policy)
        authentication.apply(to: &policy)
        requestParameters.apply(to: &policy)
        policy.hold(to: security.profile)
        return policy
    }

    /// The names the descriptor's `variables` declare, as the checks of what names them look them up.
    typealias VariableNames = [String: Variable].Keys

    /// The metadata URL for an issuer (OpenID Connect Discovery §4, RFC 8414 §3).
    static func wellKnownURL(issuer: URL, mode: ProviderDescriptor.DiscoveryMode) -> URL? {
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

    /// The resource list, inline or from `resourcesFile`.
    ///
    /// The file must lie in the descriptor's own directory tree: the path is relative,
    /// without `..`, and no symbolic link may lead out of the directory. It is read
    /// like a descriptor (regular files only, at most 1 MiB (`DescriptorDocument.maximumSize`), the
    /// same nesting, alias-expansion and URL-length budgets), and errors give the line and
    /// column of each problem.
    package func resourceTemplates() throws -> [ResourceTemplate] {
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

    /// `url`, an endpoint the descriptor writes, when a request may go there as a discovered one may: https, or plain
    /// http to this machine (RFC 6749 §3.1 and §3.2 require TLS), and without a fragment (which an endpoint's URI
    /// may not have, RFC 6749 §3.1 and §3.2).
    private func checkedEndpoint(_ url: URL?, _ field: String) throws -> URL? {
        guard let url else { return nil }
        guard TransportPolicy.isSecure(url) else {
            throw ProviderError(
                .invalidURL,
                "`\(field)` of provider `\(id)` is plain http to a host that is not this machine (`\(TerminalText.escaped(url.absoluteString))`): only https, or http to a loopback host, is accepted (RFC 6749 §3.1, §3.2)",
                provider: id)
        }
        guard url.fragment == nil else {
            throw ProviderError(
                .invalidURL,
                "`\(field)` of provider `\(id)` has a fragment (`\(TerminalText.escaped(url.absoluteString))`), which an endpoint may not have (RFC 6749 §3.1, §3.2)",
                provider: id)
        }
        return url
    }

    private func buildURL(_ template: URLTemplate, field: String, values: [String: String]) throws -> URL {
        // A placeholder no variable declares would stay in the URL as written and make it no URL: say which it is.
        if let undeclared = template.placeholders.first(where: { values[$0.name] == nil }) {
            throw ProviderError(
                .unknownVariable,
                "`\(field)` of provider `\(id)` uses `{\(undeclared.name)}`, which its `variables` do not declare (lint rule `undeclared_variable` says where)",
                provider: id, variable: undeclared.name)
        }
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

extension ProviderDescriptor {
    /// The grants listed, each unknown one refused at its index.
    func grants(_ refusals: inout PolicyRefusals) -> [GrantType] {
        grantTypes.enumerated().compactMap { index, name in
            guard let grant = GrantType(rawValue: name) else {
                refusals.refuse(["grant_types"], item: String(index), "lists `\(name)`: \(GrantType.refusal(of: name))")
                return nil
            }
            return grant
        }
    }
}
