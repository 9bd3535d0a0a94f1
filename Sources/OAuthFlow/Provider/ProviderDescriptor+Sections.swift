import Foundation

/// What a descriptor's sections refuse as each resolves itself: each refusal with the key path of its setting,
/// in the order the sections meet them, and the variables templates are filled with.
struct PolicyRefusals {
    let providerID: String
    /// The variables' values; nil checks templates without filling them in.
    let variables: [String: String]?
    private(set) var errors: [ProviderError] = []

    init(providerID: String, variables: [String: String]?) {
        self.providerID = providerID
        self.variables = variables
    }

    /// Refuses the setting at `setting` (and the `item` of it: a list's index, a map's key), saying why; `code` is
    /// `unsupported_policy` unless the refusal is a security profile's (`security_profile`).
    mutating func refuse(_ setting: [String], item: String? = nil, code: ErrorCode<ProviderError> = .unsupportedPolicy, _ why: String) {
        errors.append(
            ProviderError(
                code, "`\(setting.joined(separator: "."))` of provider `\(providerID)` \(why)", provider: providerID,
                keyPath: setting + (item.map { [$0] } ?? [])))
    }

    /// A template that is not a URL (an audience, a claim), its variables filled; every one must have a value.
    mutating func filled(_ template: String, _ keyPath: [String], keeping kept: Set<String> = []) -> String {
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
        } else if WhiteSpace.isBlank(rendered) {
            refuse(keyPath, "is empty; give the value the tokens carry, or leave the setting out")
        }
        return rendered
    }

    /// Refuses each header of `headers` (a descriptor's `headers` map at `setting`) whose name is not an RFC 9110
    /// token, or whose value holds a control character: either would let the file add or split header lines.
    mutating func checkHeaders(_ headers: [String: String], at setting: [String]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || !name.utf8.allSatisfy(Self.isTokenByte) {
                refuse(setting, item: name, "names a header `\(TerminalText.escaped(name))`, which is not an HTTP field name (RFC 9110 §5.1)")
            } else if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                refuse(setting, item: name, "gives header `\(name)` a value with a control character, which no header value may carry")
            }
        }
    }

    /// An RFC 9110 token's characters: ASCII letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The algorithms of `names` that are among `accepted`, each other one refused at its index of `setting`.
    mutating func algorithms(
        _ names: [String], _ setting: [String], accepted: [JWSAlgorithm]? = nil, because why: (String) -> String
    ) -> [JWSAlgorithm] {
        names.enumerated().compactMap { index, name in
            guard let algorithm = JWSAlgorithm(rawValue: name), accepted?.contains(algorithm) ?? true else {
                refuse(setting, item: String(index), why(name))
                return nil
            }
            return algorithm
        }
    }
}

extension ProviderDescriptor.Profile {
    /// Refuses each source that cannot be read (``ProfileSource``).
    func check(_ refusals: inout PolicyRefusals) {
        let standard = Self.standard
        for (field, sources, defaults) in [
            ("subject", subject, standard.subject), ("name", name, standard.name), ("email", email, standard.email),
            ("email_verified", emailVerified, standard.emailVerified), ("picture", picture, standard.picture),
        ] where sources != defaults {
            // A field left at its default sources is not read again for each descriptor (a test reads those once).
            for (index, source) in sources.enumerated() {
                do {
                    let parsed = try ProfileSource(parsing: source)
                    if let member = parsed.paths.lazy.compactMap(\.secretMember).first {
                        refusals.refuse(
                            ["profile", field], item: String(index),
                            "names `\(member)` of the token answer, a token or a secret, which a profile never shows")
                    }
                } catch {
                    refusals.refuse(["profile", field], item: String(index), "cannot be read: \(error.reason)")
                }
            }
        }
    }
}

extension ProviderDescriptor.Userinfo {
    /// The request, its header and query templates filled with the variables (``RequestTemplate`` placeholders
    /// stay for the call); refuses what the engine cannot send or would send unsafely.
    ///
    /// - Parameters:
    ///   - dpop: Whether the provider's tokens may be DPoP-bound, which only the header can carry.
    ///   - extraCall: Whether the profile makes its extra call, a `GET` that takes the token as userinfo does.
    func resolved(dpop: Bool, extraCall: Bool, declared: Set<String>, _ refusals: inout PolicyRefusals) -> Self {
        let checkingOnly = refusals.variables == nil
        func templates(_ values: [String: String], _ key: String) -> [String: String] {
            var filled: [String: String] = [:]
            for (name, template) in values.sorted(by: { $0.key < $1.key }) {
                let value = refusals.filled(template, ["userinfo", key, name], keeping: RequestTemplate.requestPlaceholders(in: template))
                // Checked without values (lint): a declared variable stands for the value it will have.
                let checked = checkingOnly ? URLTemplate(value).rendering { declared.contains(String($0)) ? "v" : "{\($0)}" } : value
                do {
                    _ = try RequestTemplate(parsing: checked)
                } catch {
                    refusals.refuse(["userinfo", key], item: name, error.reason)
                }
                filled[name] = value
            }
            return filled
        }
        var request = self
        // Names here; values are request templates, checked as they are parsed.
        refusals.checkHeaders(headers.mapValues { _ in "" }, at: ["userinfo", "headers"])
        request.headers = templates(headers, "headers")
        request.query = templates(query, "query")
        request.form = templates(form, "form")
        for name in headers.keys.sorted() where name.lowercased() == "authorization" && placement == .header {
            refusals.refuse(
                ["userinfo", "headers"], item: name, "sets `Authorization`, which carries the access token; use `scheme` for another word")
        }
        if placement == .body, method != .post {
            refusals.refuse(["userinfo", "placement"], "is `body`, which needs `method: POST`")
        }
        if placement == .body, extraCall {
            refusals.refuse(["userinfo", "placement"], "is `body`, which the profile's extra call, a `GET`, cannot send")
        }
        if placement == .body, body != nil {
            refusals.refuse(["userinfo", "body"], "is set, and `placement: body` makes the body the token's form; use one or the other")
        }
        if !form.isEmpty, method != .post {
            refusals.refuse(["userinfo", "form"], "is set, which needs `method: POST`")
        }
        if !form.isEmpty, body != nil {
            refusals.refuse(["userinfo", "form"], "is set with `body`; a request has one body")
        }
        if placement == .body, form.keys.contains(tokenParameter) {
            refusals.refuse(["userinfo", "form"], item: tokenParameter, "sets `\(tokenParameter)`, which carries the access token")
        }
        if body != nil, method != .post {
            refusals.refuse(["userinfo", "body"], "is set, which needs `method: POST`")
        }
        if placement != .header, dpop {
            refusals.refuse(
                ["userinfo", "placement"],
                "is `\(placement.rawValue)`, but `security.dpop` lets tokens be DPoP-bound, which only the header carries (RFC 9449 §7.1)")
        }
        if placement == .query, query.keys.contains(tokenParameter) {
            refusals.refuse(["userinfo", "query"], item: tokenParameter, "sets `\(tokenParameter)`, which carries the access token")
        }
        return request
    }
}

extension ProviderDescriptor.TokenRequest {
    /// What the engine sets on a token request (RFC 6749 §4.1.3, §6; RFC 7636; RFC 7523; RFC 8693; RFC 9449):
    /// never a fixed or copied parameter.
    static let engineParameters: Set<String> = [
        "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "client_secret", "client_assertion",
        "client_assertion_type", "device_code", "scope", "resource", "audience", "subject_token", "actor_token", "assertion",
    ]

    func resolved(_ refusals: inout PolicyRefusals) -> Provider.Policy.TokenRequestShape {
        for name in extraParams.keys.sorted() where Self.engineParameters.contains(name) {
            refusals.refuse(["token_request", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a token request")
        }
        for (index, name) in callbackParams.enumerated() where Self.engineParameters.contains(name) || name == "iss" {
            refusals.refuse(["token_request", "callback_params"], item: String(index), "copies `\(name)`, which the engine sets (or checks) itself")
        }
        refusals.checkHeaders(headers, at: ["token_request", "headers"])
        return .init(encoding: bodyEncoding, headers: headers, parameters: extraParams, callbackParameters: callbackParams)
    }
}

extension ProviderDescriptor.RevocationSettings {
    func resolved(_ refusals: inout PolicyRefusals) -> Self {
        if tokens.isEmpty {
            refusals.refuse(["revocation", "tokens"], "is empty; leave out `endpoints.revocation` for a provider that revokes nothing")
        }
        if placement == .bearer, let index = tokens.firstIndex(of: .refreshToken) {
            refusals.refuse(
                ["revocation", "tokens"], item: String(index),
                "lists `refresh_token`, but `placement: bearer` sends the token as the request's Bearer token, which a refresh token never is (RFC 6750)"
            )
        }
        if method == .get, placement == .body {
            refusals.refuse(["revocation", "method"], "is `GET`, which has no body: use `placement: query` or `bearer`")
        }
        if typeHintParameter == tokenParameter {
            refusals.refuse(["revocation", "type_hint_parameter"], "is `\(tokenParameter)`, the parameter carrying the token")
        }
        let engineParameters: Set<String> = [
            tokenParameter, typeHintParameter, "client_id", "client_secret", "client_assertion", "client_assertion_type",
        ]
        for name in extraParams.keys.sorted() where engineParameters.contains(name) {
            refusals.refuse(["revocation", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a revocation request")
        }
        return self
    }
}

extension ProviderDescriptor.Authorization {
    /// Refuses a response type other than `code` (RFC 9700 §2.1.2).
    func check(_ refusals: inout PolicyRefusals) {
        if responseType != "code" {
            refusals.refuse(["authorization", "response_type"], "is `\(responseType)`; OAuthFlow uses only `code` (RFC 9700 §2.1.2)")
        }
        if let types = detailsTypes {
            if types.isEmpty {
                refusals.refuse(
                    ["authorization", "details_types"], "is empty, which refuses every authorization detail; leave it out to declare no types")
            }
            var seen: Set<String> = []
            for (index, type) in types.enumerated() where !seen.insert(type).inserted || type.isEmpty || type.contains(where: \.isWhitespace) {
                refusals.refuse(
                    ["authorization", "details_types"], item: String(index), "lists `\(type)`, which is empty, holds spaces or is listed twice")
            }
        }
    }
}

extension ProviderDescriptor.Security {
    /// Refuses the `plain` PKCE method (RFC 9700 §2.1.1).
    func checkPKCE(_ refusals: inout PolicyRefusals) {
        if pkceMethod != .s256 {
            refusals.refuse(["security", "pkce_method"], "is `\(pkceMethod.rawValue)`; OAuthFlow sends only `S256` (RFC 9700 §2.1.1)")
        }
    }

    /// The ID token algorithms, each unknown one refused.
    func idTokenAlgorithms(_ refusals: inout PolicyRefusals) -> [JWSAlgorithm] {
        refusals.algorithms(idTokenAlgs, ["security", "id_token_algs"]) { "lists `\($0)`, which is not an algorithm OAuthFlow verifies" }
    }

    func dpopPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.DPoPPolicy {
        let algorithms = refusals.algorithms(dpopSigningAlgs, ["security", "dpop_signing_alg_values_supported"], accepted: JWSAlgorithm.dpopKey) {
            "lists `\($0)`; OAuthFlow signs DPoP proofs with \(JWSAlgorithm.listed(JWSAlgorithm.dpopKey))"
        }
        if dpop != .never, dpopSigningAlgs.isEmpty {
            refusals.refuse(["security", "dpop_signing_alg_values_supported"], "is empty, so no DPoP key can be made")
        }
        return .init(use: dpop, algorithms: algorithms, bearerAnswer: dpopBearerAnswer)
    }
}

extension ProviderDescriptor.ClientAuth {
    func assertionPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.ClientAssertionPolicy {
        let names = assertionAlgs ?? JWSAlgorithm.clientAssertion.map(\.rawValue)
        let algorithms = refusals.algorithms(names, ["client_auth", "assertion_algs"], accepted: JWSAlgorithm.clientAssertion) {
            "lists `\($0)`; OAuthFlow signs client assertions with \(JWSAlgorithm.listed(JWSAlgorithm.clientAssertion))"
        }
        return .init(audience: assertionAudience, algorithms: algorithms)
    }

    func generatedSecretPolicy(_ refusals: inout PolicyRefusals) -> Provider.Policy.GeneratedSecretPolicy? {
        guard let generatedSecret else { return nil }
        // `{client_id}` stays for the client to fill when it signs.
        let issuer = refusals.filled(generatedSecret.issuer, ["client_auth", "generated_secret", "issuer"], keeping: ["client_id"])
        let audience = refusals.filled(generatedSecret.audience, ["client_auth", "generated_secret", "audience"], keeping: ["client_id"])
        if !supported.contains(where: { $0 == .clientSecretPost || $0 == .clientSecretBasic }) {
            refusals.refuse(["client_auth", "generated_secret"], "is sent as a client secret: list `client_secret_post` or `client_secret_basic`")
        }
        return .init(issuer: issuer, audience: audience, lifetime: TimeInterval(min(max(60, generatedSecret.lifetime), 15_777_000)))
    }
}

extension ProviderDescriptor.AccessTokenSettings {
    func resolved(_ refusals: inout PolicyRefusals) -> Provider.Policy.AccessTokenPolicy {
        let algorithms = refusals.algorithms(signingAlgs, ["access_tokens", "signing_algs"], accepted: JWSAlgorithm.publicKey) {
            "lists `\($0)`; an API verifies access tokens with the provider's public keys, so only RS, PS, ES and EdDSA algorithms are accepted"
        }
        if format != .opaque, signingAlgs.isEmpty {
            refusals.refuse(["access_tokens", "signing_algs"], "is empty, so no JWT access token could ever be accepted")
        }
        let audience = audience.map { refusals.filled($0, ["access_tokens", "audience"]) }
        return .init(
            format: format, profile: profile, algorithms: algorithms, audience: audience, leeway: TimeInterval(leeway),
            introspectionCache: TimeInterval(introspectionCache), inactiveCache: TimeInterval(inactiveCache),
            introspectedAudience: introspectedAudience)
    }
}

extension ProviderDescriptor.LogoutSettings {
    /// - Parameter endSession: Whether the descriptor names the provider's logout URL (`endpoints.end_session`).
    func resolved(endSession: Bool, _ refusals: inout PolicyRefusals) -> Provider.Policy.LogoutPolicy {
        let custom = style == .custom
        if custom, !endSession {
            refusals.refuse(["logout", "style"], "is `custom`, which needs the provider's logout URL in `endpoints.end_session`")
        }
        for reserved in extraParams.keys.sorted() where engineParameters.contains(reserved) {
            refusals.refuse(["logout", "extra_params"], item: reserved, "sets `\(reserved)`, which the engine sets on an end-session request")
        }
        let clientIDParameter = clientIDParameter ?? "client_id"
        return .init(
            style: style, redirectParameter: redirectParameter ?? "post_logout_redirect_uri",
            clientIDParameter: clientIDParameter.isEmpty ? nil : clientIDParameter, sendsIDTokenHint: idTokenHint ?? !custom,
            returnsState: returnsState ?? !custom, parameters: extraParams,
            backChannel: .init(supported: backchannelLogoutSupported, sessionSupported: backchannelLogoutSessionSupported),
            frontChannel: .init(supported: frontchannelLogoutSupported, sessionSupported: frontchannelLogoutSessionSupported),
            logoutTokenMaxAge: TimeInterval(logoutTokenMaxAge))
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
