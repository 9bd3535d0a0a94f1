import Crypto
import Foundation
import Yams

/// A provider descriptor written from an issuer's published metadata, for a self-hosted server that has no
/// bundled descriptor (`oauthflow providers add ISSUER`).
///
/// The descriptor names the issuer with `discovery`, so every endpoint comes from the live document when the
/// provider is used, and states what the document said when it was read: the grants, PKCE, the client
/// authentication methods, the scopes, RFC 9207 `iss`, the ID token and DPoP algorithms, logout and
/// revocation. It says nothing the document does not say, except what the caller knows and says
/// (``Options``): the loopback port its redirect URI names, and what the server takes that its metadata
/// leaves out (``Assumption``), each recorded under `discovery.lacks`. ``read(issuer:id:options:environment:)``
/// fetches and checks the document; `OAuthFlowLint` lints the text and writes the file (`OAuth.addProvider(issuer:)`).
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
    /// What the draft was told beyond the document.
    public let options: Options
    /// The redirect URI to register at the server for sign-ins: the loopback address with the port fixed by
    /// ``Options/loopbackPort``, or without a port when it is ephemeral (a server following RFC 8252 §7.3 then takes
    /// any). Nil when the server takes no authorization code grant.
    public let redirectURI: URL?
    /// The client authentication methods written, in the order a client chooses: a public client can sign in only
    /// when `none` is among them; otherwise a confidential one needs the credential of one of the others.
    public let clientAuthMethods: [ProviderDescriptor.ClientAuth.Method]
    /// What the document leaves open that the draft did not assume, and that a sign-in may need: `none` unlisted
    /// (a public client is refused before anything is sent), `offline_access` unlisted (no refresh token is asked
    /// for). Draft again with the assumption (``Options/assuming``) when the server takes it all the same.
    public let openAssumptions: [Assumption]

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

    /// Builds the descriptor from a document already read and checked (``read(issuer:id:options:environment:)`` does both).
    ///
    /// - Parameters:
    ///   - revocationElsewhere: Whether the issuer's other metadata document names a revocation endpoint
    ///     (the resolver reads it when this one names none).
    ///   - options: What the caller knows beyond the document; by default nothing, and an ephemeral loopback port.
    /// - Throws: ``DiscoveryError`` `invalidDocument` when the document leaves nothing OAuthFlow can use: no
    ///   grant, no client authentication, no PKCE S256, no ID token algorithm it accepts.
    package init(
        id: String, issuer: URL, metadata: ServerMetadata, metadataURL: URL, mode: ProviderDescriptor.Discovery.Mode, readAt: Date,
        revocationElsewhere: Bool = false, options: Options = Options(loopbackPort: nil)
    ) throws {
        self.id = id
        self.issuer = issuer
        self.metadataURL = metadataURL
        self.discoveryMode = mode
        self.readAt = readAt
        self.options = options
        var notes: [String] = []
        var open: [Assumption] = []
        // Values the server takes, as the caller says, that the document's lists leave out: recorded under `discovery.lacks`.
        var unlisted: [(ProviderDescriptor.Discovery.Listing, String)] = []
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
        var lacks: [String] = []
        if metadata.revocationEndpoint == nil, !revocationElsewhere { lacks.append("revocation") }
        if oidc, metadata.endSessionEndpoint == nil { lacks.append("end_session") }
        // `discovery` goes here, once the lists' gaps are known.
        let discoveryPosition = root.count

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
        // A refresh token needs the grant: RFC 8414's default list (no list) is the descriptor's, which has it.
        let refreshes = metadata.grantTypesSupported.map { $0.contains(GrantType.refreshToken.rawValue) } ?? true
        let listsOffline = supported?.contains("offline_access") == true
        let assumesOffline = oidc && refreshes && !listsOffline && options.assuming.contains(.offlineAccess)
        if oidc, refreshes, !listsOffline, !assumesOffline {
            open.append(.offlineAccess)
            notes.append(
                "The server does not list offline_access in scopes_supported, so sign-ins ask for no refresh token; if it grants one for offline_access all the same, draft the descriptor again assuming so."
            )
        }
        if assumesOffline, supported != nil { unlisted.append((.scopes, "offline_access")) }
        if listsOffline || assumesOffline {
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
        if signsIn, !methods.contains(.none) {
            if options.assuming.contains(.publicClients) {
                methods.insert(.none, at: 0)
                if metadata.tokenEndpointAuthMethodsSupported != nil { unlisted.append((.tokenEndpointAuthMethods, "none")) }
            } else {
                open.append(.publicClients)
                if metadata.tokenEndpointAuthMethodsSupported != nil {
                    notes.append(
                        "`none` is not among the server's token_endpoint_auth_methods_supported: sign in with a confidential client (a secret or a key), or, if the server takes public clients all the same, draft the descriptor again assuming so."
                    )
                }
            }
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
        clientAuthMethods = methods

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
            let accepted = usable.filter { seen.insert($0).inserted }.map(\.rawValue)
            security.append(("id_token_algs", Self.list(accepted)))
            // HS256, HS384, HS512: keyed with the client's secret. A server that signs a client's ID tokens so cannot
            // for a public client (LemonLDAP::NG answers its token request with a bare server_error).
            let secretKeyed = ["HS256", "HS384", "HS512"].filter(published.contains)
            if !secretKeyed.isEmpty {
                notes.append(
                    "The server may also sign ID tokens with \(secretKeyed.joined(separator: ", ")), keyed with the client's secret, which a public client does not have: the descriptor accepts \(accepted.joined(separator: ", ")) only, so set your client's ID token signature algorithm at the server to one of them."
                )
            }
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

        // The redirect URI, with the port fixed so that it can be registered exactly.
        if signsIn, let port = options.loopbackPort {
            root.append(("redirect", Self.mapping([("loopback", Self.mapping([("port", Self.plain(String(port)))]))])))
            redirectURI = URL(string: "http://127.0.0.1:\(port)\(ProviderDescriptor.Loopback().path)")
            notes.append(
                "Sign-ins send the redirect URI http://127.0.0.1:\(port)\(ProviderDescriptor.Loopback().path): register it at the server. The port is fixed, as servers that compare redirect URIs exactly (port included) need; `port: ephemeral` suits a server that takes any loopback port (RFC 8252 §7.3)."
            )
        } else {
            redirectURI = signsIn ? URL(string: "http://127.0.0.1\(ProviderDescriptor.Loopback().path)") : nil
        }

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

        var discovery: [(String, Node)] = [("mode", Self.plain(mode.rawValue))]
        var entries = lacks.map(Self.plain)
        for listing in ProviderDescriptor.Discovery.Listing.allCases {
            let values = unlisted.filter { $0.0 == listing }.map(\.1)
            if !values.isEmpty { entries.append(Self.mapping([(listing.rawValue, Self.list(values))])) }
        }
        if !entries.isEmpty {
            // A mapping among the entries reads best one per line.
            let style: Node.Sequence.Style = entries.count == lacks.count ? .flow : .block
            discovery.append(("lacks", .sequence(.init(entries, .implicit, style))))
        }
        root.insert(("discovery", Self.mapping(discovery)), at: discoveryPosition)

        self.notes = notes
        self.openAssumptions = open
        let yaml = try Yams.serialize(node: Self.mapping(root), indent: 2, width: -1, allowUnicode: false)
        self.text = Self.header(issuer: issuer, metadataURL: metadataURL, readAt: readAt, notes: notes) + yaml
    }

    /// The comment at the top of the file: where and when the document was read, and the notes.
    ///
    /// Comments cannot be quoted, so what goes in them is checked: the issuer and the document's URL have passed
    /// ``read(issuer:id:options:environment:)``'s checks (no white space, no control characters), and are escaped again.
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

    /// A provider id that names exactly one issuer: `prefix`, ``suggestedID(for:)`` for a reader, and 16 hex digits of
    /// the SHA-256 of the issuer's exact text, so that issuers that differ only in scheme, port or punctuation
    /// (`http://h:1` and `http://h:2`, `auth.example.com` and `auth-example.com`) never share an id, nor the
    /// sessions and files keyed by it. At most 100 characters.
    package static func exactID(prefix: String, for issuer: URL) -> String {
        let hex = Hexadecimal.lowercase(SHA256.hash(data: Data(issuer.absoluteString.utf8)).prefix(8))
        let readable = String((prefix + suggestedID(for: issuer)).prefix(100 - 17)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return readable + "-" + hex
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

extension DescriptorDraft {
    /// What the server takes that its metadata does not say, as the person adding it knows from the server's
    /// documentation or configuration. Each is written into the descriptor and recorded under `discovery.lacks`
    /// when the metadata's list leaves it out, so that `oauthflow lint --online --strict` names it instead of failing.
    public enum Assumption: String, Sendable, Hashable, CaseIterable {
        /// The server takes public clients (`none`: PKCE, no secret) although `token_endpoint_auth_methods_supported`
        /// does not list `none` (LemonLDAP::NG lists only confidential methods): `client_auth.methods` starts with `none`.
        case publicClients = "public_clients"
        /// The server grants refresh tokens for the `offline_access` scope (OpenID Connect Core §11) although
        /// `scopes_supported` does not list it: `scopes.offline` asks for it.
        case offlineAccess = "offline_access"
    }

    /// What a draft is told beyond the document.
    public struct Options: Sendable, Hashable {
        /// The loopback port the redirect URI names (`redirect.loopback.port`), fixed so that it can be registered at
        /// a server that compares redirect URIs exactly, port included; nil leaves the port ephemeral (RFC 8252 §7.3).
        public var loopbackPort: Int?
        /// What the server takes that its metadata leaves out.
        public var assuming: Set<Assumption>

        /// - Parameters:
        ///   - loopbackPort: The redirect URI's port; ``DescriptorDraft/defaultLoopbackPort`` by default, nil for an ephemeral one.
        ///   - assuming: What the server takes that its metadata leaves out.
        public init(loopbackPort: Int? = DescriptorDraft.defaultLoopbackPort, assuming: Set<Assumption> = []) {
            self.loopbackPort = loopbackPort
            self.assuming = assuming
        }
    }

    /// The loopback port a drafted descriptor fixes unless told otherwise.
    public static let defaultLoopbackPort = 8765
}
