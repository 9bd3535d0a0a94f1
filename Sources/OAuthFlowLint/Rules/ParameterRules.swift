import OAuthFlow

/// Descriptors cannot set what the engine controls.
struct ReservedParameterRule: LintRule {
    static let description = RuleDescription(
        identifier: "reserved_parameter", name: "Reserved parameter",
        summary:
            "Extra and offline parameters must not set what the engine controls: client_id, client_secret, redirect_uri, state, nonce, code_challenge, code_challenge_method, code_verifier or response_type; a token request's fixed or copied parameters, a revocation request's and a device request's or poll's must not set theirs (grant_type, code, refresh_token, the token, client authentication), a renamed client id must not take one of those names, a revocation section must revoke some kind of token, and `token_request.headers` must name HTTP fields with values free of control characters.",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  extra_params:\n    code_challenge_method: plain\n",
            Examples.valid + "scopes:\n  offline:\n    params:\n      redirect_uri: https://evil.example\n",
            Examples.valid + "token_request:\n  extra_params:\n    grant_type: password\n",
            Examples.valid + "revocation:\n  tokens: []\n",
            Examples.valid + "client_auth:\n  client_id_parameter: client_secret\n",
            Examples.valid + "token_request:\n  callback_params_on_refresh: [refresh_token]\n",
            Examples.valid + "device:\n  extra_params:\n    client_id: x\n",
            Examples.valid + "device:\n  poll_params:\n    code: user_code\n",
            Examples.valid + "token_request:\n  headers:\n    \"X-App Name\": demo\n",
        ],
        nonTriggering: [
            Examples.valid + "authorization:\n  extra_params:\n    audience: https://api.example.com\n",
            Examples.valid + "client_auth:\n  client_id_parameter: client_key\n",
            Examples.valid
                + "device:\n  extra_params:\n    response_type: device_code\n  grant_type: device\n  poll_params:\n    code: device_code\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        let maps: [([String], [String: String])] = [
            (["authorization", "extra_params"], descriptor.authorization.extraParams),
            (["scopes", "offline", "params"], descriptor.scopes.offline.params),
        ]
        let authorization = maps.flatMap { keyPath, params in
            // Filtered before sorting, and sorted only when there are two: most maps set none, and sorting made a new
            // list every time, even of none.
            let reserved = params.keys.filter { DescriptorSchema.reservedParameters.contains($0) }
            return (reserved.count > 1 ? reserved.sorted() : reserved).map {
                diagnostic(file, keyPath + [$0], "`\($0)` is set by the engine and cannot be overridden", atKey: true)
            }
        }
        // The token and revocation requests' own parameters: the resolver's refusals. Most files have none, and the
        // fifteen searches and joins below cost four thousand instructions a file for nothing then.
        guard !file.refusals.isEmpty else { return authorization }
        return authorization + refusals(file, at: ["token_request", "extra_params"], items: true, atKey: true)
            + refusals(file, at: ["token_request", "callback_params"], items: true)
            + refusals(file, at: ["revocation", "extra_params"], items: true, atKey: true) + refusals(file, at: ["revocation", "tokens"])
            + refusals(file, at: ["revocation", "tokens"], items: true)
            + refusals(file, at: ["revocation", "method"]) + refusals(file, at: ["revocation", "type_hint_parameter"])
            + refusals(file, at: ["token_request", "headers"], items: true, atKey: true)
            + refusals(file, at: ["client_auth", "client_id_parameter"])
            + refusals(file, at: ["token_request", "callback_params_on_refresh"], items: true)
            + refusals(file, at: ["device", "scope_parameter"]) + refusals(file, at: ["device", "extra_params"], items: true, atKey: true)
            + refusals(file, at: ["device", "grant_type"]) + refusals(file, at: ["device", "poll_params"])
            + refusals(file, at: ["device", "poll_params"], items: true, atKey: true)
    }
}

/// OpenID Connect Core §11: a client asking for `offline_access` sends `prompt=consent` unless other conditions
/// permit offline access; without either, a server following §11 ignores `offline_access` (no refresh token) but
/// does not refuse the sign-in. Which conditions a provider has is in its documentation, so the descriptor says.
struct OfflineAccessConsentRule: LintRule {
    static let description = RuleDescription(
        identifier: "offline_access_consent", name: "offline_access and prompt=consent",
        summary:
            "A descriptor that asks for the `offline_access` scope must either send `prompt=consent` or state that the provider's documentation grants refresh tokens without it (`scopes.offline.without_consent_prompt: true`), not both: OpenID Connect Core §11 has a server ignore `offline_access` without `prompt=consent` (no refresh token; the sign-in itself succeeds) unless its own conditions permit offline access, and `prompt=consent` shows a consent page at every sign-in.",
        severity: .warning,
        triggering: [
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n",
            Examples.oidcHeader + Examples.endpoints + "scopes:\n  default: [openid, offline_access]\n",
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    params:\n      prompt: login\n",
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    without_consent_prompt: true\n    params:\n      prompt: consent\n",
        ],
        nonTriggering: [
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    params:\n      prompt: consent\n",
            Examples.oidcHeader + Examples.endpoints
                + "scopes:\n  default: [openid, offline_access]\nauthorization:\n  extra_params:\n    prompt: login consent\n",
            Examples.validOIDC + "  offline:\n    scopes: [offline_access]\n    without_consent_prompt: true\n",
            Examples.validOIDC + "  offline:\n    params:\n      access_type: offline\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        func hasConsent(_ prompt: String?) -> Bool {
            prompt?.split(separator: " ").contains("consent") ?? false
        }
        let offline = descriptor.scopes.offline
        // Most descriptors ask for no `offline_access`: nothing below can be found then.
        guard descriptor.scopes.default.contains("offline_access") || offline.scopes.contains("offline_access") else { return [] }
        let always = hasConsent(descriptor.authorization.extraParams["prompt"])
        let asked = [
            descriptor.scopes.default.firstIndex(of: "offline_access").map { (["scopes", "default", String($0)], always) },
            offline.scopes.firstIndex(of: "offline_access").map {
                (["scopes", "offline", "scopes", String($0)], always || hasConsent(offline.params["prompt"]))
            },
        ].compactMap { $0 }
        if offline.withoutConsentPrompt {
            guard asked.contains(where: { $0.1 }) else { return [] }
            return [
                diagnostic(
                    file, ["scopes", "offline", "without_consent_prompt"],
                    "`prompt=consent` is sent with `offline_access` although the provider grants it without (`without_consent_prompt: true`); it only adds a consent page to every sign-in, so remove one of the two"
                )
            ]
        }
        return asked.filter { !$0.1 }.map { keyPath, _ in
            diagnostic(
                file, keyPath,
                "`offline_access` is asked for without `prompt=consent`, which a server following OpenID Connect Core §11 ignores (no refresh token) unless its own conditions permit offline access; set `scopes.offline.without_consent_prompt: true` if the provider's documentation grants refresh tokens for `offline_access` alone, or add `prompt: consent` to `scopes.offline.params` if it asks for it"
            )
        }
    }
}

/// Descriptors are shared and committed; secrets are not.
struct LiteralSecretRule: LintRule {
    /// Compared one by one: for a dozen short names that costs less than hashing each key.
    static let secretNames: [String] = [
        "client_secret", "secret", "password", "private_key", "access_token", "refresh_token", "id_token",
        "api_key", "apikey", "client_assertion", "assertion",
    ]

    static let description = RuleDescription(
        identifier: "literal_secret", name: "Literal secret",
        summary:
            "A descriptor must not hold a client secret, token, password, private key or credential header; give secrets to the CLI by reference instead.",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  extra_params:\n    client_secret: s3cr3t-value\n",
            Examples.valid + "token_request:\n  headers:\n    Authorization: Basic Y2xpZW50OnNlY3JldA==\n",
            Examples.valid + "token_request:\n  headers:\n    X-API-Key: 0123456789abcdef0123456789abcdef\n",
            Examples.valid + "client_secret: s3cr3t-value\n",
            Examples.valid
                + "authorization:\n  extra_params:\n    assertion_key: \"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\"\n",
        ],
        nonTriggering: [Examples.valid + "token_request:\n  headers:\n    Accept: application/json\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let root = file.document.root else { return [] }
        // Most files have no key and no value that could be one: a pass over the node tables says so
        // without walking the tree with a key path (a twentieth of lint's time when it always walked).
        // Only keys that end as a secret name or `headers` does, and values long enough for a PEM armour, are asked about.
        let suspect = root.tree.anyScalar(
            keyEndings: Self.suspectKeyEndings,
            key: { name, value in
                Self.looksSecret(utf8: name)
                    || (Self.isHeaders(name) && value.pairs.contains { Self.isCredentialHeader($0.key.string ?? "") })
            },
            shortestValue: Self.shortestPrivateKeyText, value: Self.mayHoldPrivateKey(utf8:))
        guard suspect else { return [] }
        var diagnostics: [Diagnostic] = []
        var budget = DescriptorDocument.maximumNodes
        var keyPath: [String] = []
        walk(root, &keyPath, file, &diagnostics, &budget)
        return diagnostics
    }

    /// Whether a key names a secret: one of ``secretNames`` or a name ending in `_secret`, in any case.
    static func looksSecret(_ name: String) -> Bool {
        var name = name
        return name.withUTF8(looksSecret(utf8:))
    }

    /// ``looksSecret(_:)`` over a name's UTF-8 bytes.
    static func looksSecret(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // An ASCII last letter that no secret name ends with rules the key out, whatever comes before
        // it: lowering the text turns an ASCII last character into its own lowercase and nothing else.
        guard let last = bytes.last else { return false }
        let lengths = secretLengths[Int(last | 0x20)]
        if last < 0x80, lengths == 0 { return false }
        guard UTF8Search.isASCII(bytes) else {
            // `lowercased()` knows more than ASCII: a Kelvin sign lowers to `k`.
            let lowered = String(decoding: bytes, as: UTF8.self).lowercased()
            return secretNames.contains(lowered) || lowered.hasSuffix("_secret")
        }
        // An ASCII key is as long as its lowercase: most of those that end as a secret name does are ruled out by
        // their length, which no secret name with that last letter has (a key ending in `n`, say, that is not 8, 9,
        // 12, 13 or 16 bytes long).
        guard lengths >> UInt64(min(bytes.count, 63)) & 1 != 0 else { return false }
        for word in secretNameBytes where word.count == bytes.count && equalsLowercased(bytes, from: 0, word) { return true }
        return bytes.count >= secretSuffix.count && equalsLowercased(bytes, from: bytes.count - secretSuffix.count, secretSuffix)
    }

    /// Whether a value holds a PEM private key's armour.
    static func mayHoldPrivateKey(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(mayHoldPrivateKey(utf8:))
    }

    /// Whether a key is `headers`, read from its bytes: asked of every key of every file, where a comparison through
    /// a static string's buffer and `memcmp` cost more than the rest of the key's check.
    private static func isHeaders(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count == 7 && name[0] == UInt8(ascii: "h") && name[1] == UInt8(ascii: "e") && name[2] == UInt8(ascii: "a")
            && name[3] == UInt8(ascii: "d") && name[4] == UInt8(ascii: "e") && name[5] == UInt8(ascii: "r") && name[6] == UInt8(ascii: "s")
    }

    /// ``mayHoldPrivateKey(_:)`` over a value's UTF-8 bytes.
    static func mayHoldPrivateKey(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= shortestPrivateKeyText && UTF8Search.contains("-----BEGIN", in: bytes) && UTF8Search.contains("KEY", in: bytes)
    }

    /// The fewest bytes that hold both `-----BEGIN` and `KEY`.
    private static let shortestPrivateKeyText = 13

    /// The ASCII bytes a key ends with when it may name a secret (``looksSecret(utf8:)``'s first test: a secret name,
    /// or `_secret`, ends with the byte lowered) or is `headers`, a bit each in two words (bytes 0–63, 64–127).
    private static let suspectKeyEndings: (UInt64, UInt64) = {
        var words: (UInt64, UInt64) = (0, 0)
        for byte in UInt8(0)..<0x80 where secretLengths[Int(byte | 0x20)] != 0 || byte == UInt8(ascii: "s") {
            if byte < 64 { words.0 |= 1 << UInt64(byte) } else { words.1 |= 1 << UInt64(byte - 64) }
        }
        return words
    }()

    private static let secretNameBytes = secretNames.map { Array($0.utf8) }
    private static let secretSuffix = Array("_secret".utf8)
    /// By byte, lowered: the lengths of the secret names that end with it, a bit for each length (the last bit for 63
    /// bytes and more), and for `_secret`'s last byte every length from its own on; zero for a byte no secret name ends
    /// with.
    private static let secretLengths: [UInt64] = {
        var table = [UInt64](repeating: 0, count: 256)
        for word in secretNameBytes { table[Int(word[word.count - 1])] |= 1 << UInt64(min(word.count, 63)) }
        table[Int(secretSuffix[secretSuffix.count - 1])] |= ~0 << UInt64(secretSuffix.count)
        return table
    }()
    private static let credentialHeaders = ["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-auth-token"]
    private static let credentialHeaderBytes = credentialHeaders.map { Array($0.utf8) }

    /// Whether a header name is one that carries credentials, in any case.
    static func isCredentialHeader(_ name: String) -> Bool {
        var bytes = name
        return bytes.withUTF8 { bytes in
            guard UTF8Search.isASCII(bytes) else { return credentialHeaders.contains(name.lowercased()) }
            return credentialHeaderBytes.contains { $0.count == bytes.count && equalsLowercased(bytes, from: 0, $0) }
        }
    }

    /// Whether the ASCII bytes from `start`, lowered, are the lower-case `word` (which fits in them).
    private static func equalsLowercased(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ word: [UInt8]) -> Bool {
        for offset in 0..<word.count {
            let byte = bytes[start + offset]
            if ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte) != word[offset] { return false }
        }
        return true
    }

    /// Walks the tree with one key path that grows and shrinks, copied only into a diagnostic.
    private func walk(_ node: YAMLNode, _ keyPath: inout [String], _ file: LintFile, _ out: inout [Diagnostic], _ budget: inout Int) {
        budget -= 1
        guard budget > 0 else { return }
        switch node.kind {
        case .mapping:
            let inHeaders = keyPath.last == "headers"
            for (key, value) in node.pairs {
                let name = key.string ?? ""
                keyPath.append(name)
                defer { keyPath.removeLast() }
                // `client_auth.generated_secret` holds how a secret is made (its claims), never a secret.
                let generatedSecret = keyPath.count == 2 && keyPath[0] == "client_auth" && keyPath[1] == "generated_secret"
                if !generatedSecret, Self.looksSecret(name) {
                    out.append(diagnostic(file, keyPath, "`\(name)` looks like a secret; descriptors must not hold secrets", atKey: true))
                } else if inHeaders, Self.isCredentialHeader(name) {
                    out.append(diagnostic(file, keyPath, "the `\(name)` header carries credentials; descriptors must not hold them", atKey: true))
                } else {
                    walk(value, &keyPath, file, &out, &budget)
                }
            }
        case .sequence:
            for (index, item) in node.items.enumerated() {
                keyPath.append(String(index))
                walk(item, &keyPath, file, &out, &budget)
                keyPath.removeLast()
            }
        case .scalar:
            if Self.mayHoldPrivateKey(node.string ?? "") {
                out.append(diagnostic(file, keyPath, "this value holds a private key; descriptors must not hold secrets"))
            }
        }
    }
}
