import Foundation
import Yams

/// A provider descriptor written from an issuer's published metadata, for a self-hosted server that has no
/// bundled descriptor (`oauthflow providers add ISSUER`).
///
/// The descriptor names the issuer with `discovery`, so every endpoint comes from the live document when the
/// provider is used, and states what the document said when it was read: the grants, PKCE, the client
/// authentication methods, the scopes, RFC 9207 `iss`, the ID token and DPoP algorithms, logout and
/// revocation. It says nothing the document does not say. ``read(issuer:id:environment:)`` fetches and
/// checks the document; `OAuthFlowLint` lints the text and writes the file (`OAuth.addProvider(issuer:)`).
///
/// Text from the server never reaches the YAML unquoted: the file is emitted with Yams from nodes, server
/// strings as double-quoted scalars, and only values OAuthFlow knows (its grant types, methods and
/// algorithms) are taken from the document's lists.
public struct DescriptorDraft: Sendable, Hashable {
    /// The provider id, and the file's name without `.yaml`.
    public let id: String
    /// The issuer, exactly as the document names it.
    public let issuer: URL
    /// Where the document was read, and how (`oidc` or `rfc8414`).
    public let metadataURL: URL
    public let discoveryMode: ProviderDescriptor.Discovery.Mode
    /// When the document was read.
    public let readAt: Date
    /// The descriptor: a header comment naming the issuer and the date, then the YAML.
    public let text: String
    /// What the document left open or what the draft left out, one sentence each (also in the header comment).
    public let notes: [String]

    /// The scopes asked for by default when the server lists them: an OpenID Connect sign-in with a profile.
    static let defaultScopes = ["openid", "profile", "email"]
    /// Client authentication methods in the order a client with several credentials should try them: no
    /// secret for a public client, then the secret as RFC 6749 §2.3.1 has every server take it (Basic), then
    /// the secret in the body, then assertions and certificates, which a client uses only when it has a key.
    static let methodOrder: [ProviderDescriptor.ClientAuth.Method] = [
        .none, .clientSecretBasic, .clientSecretPost, .clientSecretJWT, .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth,
    ]
    /// ID token algorithms a draft accepts: the asymmetric ones (an HMAC ID token needs the client secret).
    static let idTokenAlgorithms: [JWSAlgorithm] = JWSAlgorithm.publicKey
    /// Algorithms of client assertions and DPoP keys that descriptors can name.
    static let assertionAlgorithms = JWSAlgorithm.clientAssertion.map(\.rawValue)
    static let dpopAlgorithms = JWSAlgorithm.dpopKey.map(\.rawValue)

    /// Builds the descriptor from a document already read and checked (``read(issuer:id:environment:)`` does both).
    ///
    /// - Parameters:
    ///   - revocationElsewhere: Whether the issuer's other metadata document names a revocation endpoint
    ///     (the resolver reads it when this one names none).
    /// - Throws: ``DiscoveryError`` `invalidDocument` when the document leaves nothing OAuthFlow can use: no
    ///   grant, no client authentication, no PKCE S256, no ID token algorithm it accepts.
    package init(
        id: String, issuer: URL, metadata: ServerMetadata, metadataURL: URL, mode: ProviderDescriptor.Discovery.Mode, readAt: Date,
        revocationElsewhere: Bool = false
    ) throws {
        self.id = id
        self.issuer = issuer
        self.metadataURL = metadataURL
        self.discoveryMode = mode
        self.readAt = readAt
        var notes: [String] = []
        let oidc = mode == .oidc
        func refuse(_ message: String) -> DiscoveryError {
            DiscoveryError(.invalidDocument, "\(metadataURL.absoluteString): \(message)")
        }

        var root: [(String, Node)] = [
            ("schema_version", Self.plain("1")),
            ("id", Self.plain(id)),
            ("display_name", Self.quoted(Self.displayName(issuer))),
            ("protocol", Self.plain(oidc ? "oidc" : "oauth2")),
            ("issuer", Self.quoted(issuer.absoluteString)),
        ]
        var discovery: [(String, Node)] = [("mode", Self.plain(mode.rawValue))]
        var lacks: [String] = []
        if metadata.revocationEndpoint == nil, !revocationElsewhere { lacks.append("revocation") }
        if oidc, metadata.endSessionEndpoint == nil { lacks.append("end_session") }
        if !lacks.isEmpty { discovery.append(("lacks", Self.list(lacks))) }
        root.append(("discovery", Self.mapping(discovery)))

        // Scopes: OpenID Connect's own when the server lists them (`openid` always, which OIDC servers must take).
        var scopes: [(String, Node)] = []
        let supported = metadata.scopesSupported
        var defaults = oidc ? ["openid"] : []
        if let supported {
            defaults += Self.defaultScopes.filter { $0 != "openid" && supported.contains($0) }
        } else if oidc {
            notes.append("The server publishes no scopes_supported: scopes.default asks for openid alone; add profile and email if it takes them.")
        }
        if !defaults.isEmpty { scopes.append(("default", Self.list(defaults))) }
        if supported?.contains("offline_access") == true {
            // OpenID Connect Core §11: a client asking for offline_access sends prompt=consent, unless the
            // server's documentation says it grants refresh tokens without it.
            scopes.append(
                ("offline", Self.mapping([("scopes", Self.list(["offline_access"])), ("params", Self.mapping([("prompt", Self.plain("consent"))]))])))
            notes.append(
                "offline_access is sent with prompt=consent (OpenID Connect Core §11); if the server's documentation grants refresh tokens without it, write `without_consent_prompt: true` instead of the params."
            )
        }
        if !scopes.isEmpty { root.append(("scopes", Self.mapping(scopes))) }

        // Grants: those OAuthFlow uses, as the server lists them; RFC 8414's default (no list) is left to the descriptor's.
        var grants: [GrantType] = []
        if let published = metadata.grantTypesSupported {
            grants = GrantType.allCases.filter { published.contains($0.rawValue) }
            if grants.contains(.deviceCode), metadata.deviceAuthorizationEndpoint == nil {
                grants.removeAll { $0 == .deviceCode }
                notes.append("The server lists the device grant but no device_authorization_endpoint: the grant is left out.")
            }
            guard !grants.isEmpty else {
                throw refuse(
                    "its grant_types_supported names no grant OAuthFlow uses (authorization_code, refresh_token, the device grant, client_credentials, the JWT bearer grant, token exchange)"
                )
            }
            root.append(("grant_types", Self.list(grants.map(\.rawValue))))
        }
        let signsIn = grants.isEmpty || grants.contains(.authorizationCode)
        guard metadata.tokenEndpoint != nil else { throw refuse("it names no token_endpoint") }
        if signsIn, metadata.authorizationEndpoint == nil { throw refuse("it names no authorization_endpoint") }
        if oidc, metadata.jwksURI == nil { throw refuse("it names no jwks_uri, which OpenID Connect ID tokens are verified with") }

        // Client authentication, in the order a client should choose; RFC 8414 §2's default when absent.
        var methods: [ProviderDescriptor.ClientAuth.Method]
        if let published = metadata.tokenEndpointAuthMethodsSupported {
            methods = Self.methodOrder.filter { published.contains($0.rawValue) }
            guard !methods.isEmpty else {
                throw refuse("its token_endpoint_auth_methods_supported names no client authentication OAuthFlow has")
            }
        } else {
            methods = [.clientSecretBasic]
            notes.append(
                "The server publishes no token_endpoint_auth_methods_supported, which means client_secret_basic alone (RFC 8414 §2); add `none` to client_auth.methods if it takes public clients."
            )
        }
        if signsIn, !methods.contains(.none), metadata.tokenEndpointAuthMethodsSupported != nil {
            notes.append(
                "`none` is not among the server's token_endpoint_auth_methods_supported: sign in with a confidential client (a secret or a key).")
        }
        var clientAuth: [(String, Node)] = [("methods", Self.list(methods.map(\.rawValue)))]
        if methods.contains(where: \.usesAssertion), let algorithms = metadata.tokenEndpointAuthSigningAlgValuesSupported {
            let usable = Self.assertionAlgorithms.filter { algorithms.contains($0) }
            if usable.isEmpty {
                methods.removeAll(where: \.usesAssertion)
                clientAuth = [("methods", Self.list(methods.map(\.rawValue)))]
                notes.append(
                    "The server signs client assertions with no algorithm OAuthFlow has: client_secret_jwt and private_key_jwt are left out.")
            } else {
                clientAuth.append(("assertion_algs", Self.list(usable)))
            }
        }
        guard !methods.isEmpty else { throw refuse("no client authentication OAuthFlow has is left") }
        root.append(("client_auth", Self.mapping(clientAuth)))

        // The checks.
        var security: [(String, Node)] = []
        if signsIn {
            switch metadata.codeChallengeMethodsSupported {
            case let published? where published.contains("S256"):
                security.append(("pkce", Self.plain("required")))
            case let published?:
                throw refuse(
                    "its code_challenge_methods_supported lacks S256, the only PKCE method OAuthFlow sends (RFC 9700 §2.1.1); it lists \(published.count) other\(published.count == 1 ? "" : "s")"
                )
            case nil:
                security.append(("pkce", Self.plain("supported")))
                notes.append("The server does not say whether it takes PKCE (no code_challenge_methods_supported): OAuthFlow sends S256 anyway.")
            }
        }
        if metadata.authorizationResponseIssParameterSupported == true { security.append(("iss_parameter", Self.plain("required"))) }
        if oidc, let published = metadata.idTokenSigningAlgValuesSupported {
            let usable = published.compactMap { name in Self.idTokenAlgorithms.first { $0.rawValue == name } }
            guard !usable.isEmpty else {
                throw refuse("its id_token_signing_alg_values_supported names no algorithm OAuthFlow verifies ID tokens with (RS, PS, ES or EdDSA)")
            }
            var seen: Set<JWSAlgorithm> = []
            security.append(("id_token_algs", Self.list(usable.filter { seen.insert($0).inserted }.map(\.rawValue))))
        }
        if let published = metadata.dpopSigningAlgValuesSupported {
            let usable = Self.dpopAlgorithms.filter { published.contains($0) }
            if usable.isEmpty {
                notes.append("The server takes DPoP with no key algorithm OAuthFlow has: tokens stay Bearer tokens.")
            } else {
                security.append(("dpop", Self.plain("if_supported")))
                security.append(("dpop_signing_alg_values_supported", Self.list(usable)))
                notes.append("The server takes DPoP, so sessions are DPoP-bound (`dpop: if_supported`); git and kubectl cannot use bound tokens.")
            }
        }
        if !security.isEmpty { root.append(("security", Self.mapping(security))) }

        // Logout channels the document says the server has.
        let channels: [(String, Bool?)] = [
            ("backchannel_logout_supported", metadata.backchannelLogoutSupported),
            ("backchannel_logout_session_supported", metadata.backchannelLogoutSupported == true ? metadata.backchannelLogoutSessionSupported : nil),
            ("frontchannel_logout_supported", metadata.frontchannelLogoutSupported),
            (
                "frontchannel_logout_session_supported",
                metadata.frontchannelLogoutSupported == true ? metadata.frontchannelLogoutSessionSupported : nil
            ),
        ]
        let logout = channels.filter { $0.1 == true }.map { ($0.0, Self.plain("true")) }
        if oidc, !logout.isEmpty { root.append(("logout", Self.mapping(logout))) }

        self.notes = notes
        let yaml = try Yams.serialize(node: Self.mapping(root), indent: 2, width: -1, allowUnicode: false)
        self.text = Self.header(issuer: issuer, metadataURL: metadataURL, readAt: readAt, notes: notes) + yaml
    }

    /// The comment at the top of the file: where and when the document was read, and the notes.
    ///
    /// Comments cannot be quoted, so what goes in them is checked: the issuer and the document's URL have passed
    /// ``read(issuer:id:environment:)``'s checks (no white space, no control characters), and are escaped again.
    static func header(issuer: URL, metadataURL: URL, readAt: Date, notes: [String]) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var lines = [
            "Written by OAuthFlow (`oauthflow providers add`) from the discovery document of",
            "  \(TerminalText.escaped(issuer.absoluteString))",
            "read at \(TerminalText.escaped(metadataURL.absoluteString)) on \(formatter.string(from: readAt)) (UTC).",
            "It states what that document said; endpoints come from the live document when the provider is used.",
            "`oauthflow lint --online` compares this file with the document again.",
        ]
        lines += notes.map { "Note: " + TerminalText.escaped($0) }
        return lines.map { "# " + $0 }.joined(separator: "\n") + "\n"
    }

    /// A name for the provider: the issuer's host and path.
    static func displayName(_ issuer: URL) -> String {
        var path = issuer.path
        while path.hasSuffix("/") { path.removeLast() }
        let host = issuer.host ?? issuer.absoluteString
        return issuer.port.map { "\(host):\($0)" + path } ?? host + path
    }

    /// A provider id from the issuer: its host and path in lowercase letters, digits and `-`.
    public static func suggestedID(for issuer: URL) -> String {
        let source = ((issuer.host ?? "") + "/" + issuer.path).lowercased()
        var id = ""
        for scalar in source.unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if keep {
                id.unicodeScalars.append(scalar)
            } else if !id.isEmpty, !id.hasSuffix("-") {
                id += "-"
            }
        }
        while id.hasSuffix("-") { id.removeLast() }
        if id.count > 64 { id = String(id.prefix(64)).trimmingCharacters(in: CharacterSet(charactersIn: "-")) }
        return id.isEmpty ? "provider" : id
    }

    /// Whether `id` can name a provider (`^[a-z0-9][a-z0-9_-]*$`, as the descriptor's `id` must).
    public static func isValidID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 128 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) }
        return allowed(first) && id.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" || $0 == "_" }
    }

    private static func plain(_ text: String) -> Node { .scalar(.init(text, .implicit, .plain)) }
    private static func quoted(_ text: String) -> Node { .scalar(.init(text, .implicit, .doubleQuoted)) }
    private static func list(_ items: [String]) -> Node { .sequence(.init(items.map(plain), .implicit, .flow)) }
    private static func mapping(_ pairs: [(String, Node)]) -> Node { .mapping(.init(pairs.map { (plain($0.0), $0.1) }, .implicit, .block)) }
}
