import Crypto
import Foundation
import Yams

/// A provider descriptor written from an issuer's published metadata, for a self-hosted server that has no
/// bundled descriptor (`oauthflow providers add ISSUER`).
///
/// ``read(issuer:id:options:environment:)`` fetches and checks the document; `OAuthFlowLint` lints the text and writes
/// the file (`OAuth.addProvider(issuer:)`).
public struct DescriptorDraft: Sendable, Hashable {
    /// The provider id, and the file's name without `.yaml`.
    public let id: String
    /// The issuer, exactly as the document names it.
    public let issuer: URL
    /// Where the document was read, and how (`oidc` or `rfc8414`).
    public let metadataURL: URL
    public let discoveryMode: ProviderDescriptor.DiscoveryMode
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
    /// The post-logout redirect URI `oauthflow logout --end-session` sends (OpenID Connect RP-Initiated Logout §3), to
    /// register at the server beside ``redirectURI``: the same loopback address and port, path `/logged-out`. Nil when
    /// the server publishes no `end_session_endpoint` or takes no authorization code grant.
    public let postLogoutRedirectURI: URL?
    /// The client authentication methods written, in the order a client chooses: a public client can sign in only
    /// when `none` is among them; otherwise a confidential one needs the credential of one of the others.
    public let clientAuthMethods: [ProviderDescriptor.ClientAuthMethod]
    /// What the document leaves open that the draft did not assume, and that a sign-in may need: `none` unlisted
    /// (a public client is refused before anything is sent), `offline_access` unlisted (no refresh token is asked
    /// for). Draft again with the assumption (``Options/assuming``) when the server takes it all the same.
    public let openAssumptions: [Assumption]

    /// The scopes asked for by default when the server lists them: an OpenID Connect sign-in with a profile.
    static let defaultScopes = ["openid", "profile", "email"]
    /// Client authentication methods in the order a client with several credentials should try them: no
    /// secret for a public client, then the secret as RFC 6749 §2.3.1 has every server take it (Basic), then
    /// the secret in the body, then assertions and certificates, which a client uses only when it has a key.
    static let methodOrder: [ProviderDescriptor.ClientAuthMethod] = [
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
        id: String, issuer: URL, metadata: ServerMetadata, metadataURL: URL, mode: ProviderDescriptor.DiscoveryMode, readAt: Date,
        revocationElsewhere: Bool = false, options: Options = Options(loopbackPort: nil)
    ) throws {
        self.id = id
        self.issuer = issuer
        self.metadataURL = metadataURL
        self.discoveryMode = mode
        self.readAt = readAt
        self.options = options
        var writing = Writing(metadata: metadata, metadataURL: metadataURL, oidc: mode == .oidc, options: options)
        var root: [(String, Node)] = [
            ("schema_version", Self.plain("1")),
            ("id", Self.plain(id)),
            ("display_name", Self.quoted(Self.displayName(issuer))),
            ("protocol", Self.plain(writing.oidc ? "oidc" : "oauth2")),
            ("issuer", Self.quoted(issuer.absoluteString)),
        ]
        var lacks: [String] = []
        if metadata.revocationEndpoint == nil, !revocationElsewhere { lacks.append("revocation") }
        if writing.oidc, metadata.endSessionEndpoint == nil { lacks.append("end_session") }
        // `discovery` goes here, once the lists' gaps are known.
        let discoveryPosition = root.count

        let scopes = writing.scopes()
        if !scopes.isEmpty { root.append(("scopes", Self.mapping(scopes))) }
        let grants = try writing.grants()
        if let grants { root.append(("grant_types", Self.list(grants.map(\.rawValue)))) }
        let signsIn = grants?.contains(.authorizationCode) ?? true
        try writing.checkEndpoints(signsIn: signsIn)
        let clientAuth = try writing.clientAuth(signsIn: signsIn)
        root.append(("client_auth", Self.mapping(clientAuth.entries)))
        clientAuthMethods = clientAuth.methods
        let security = try writing.security(signsIn: signsIn)
        if !security.isEmpty { root.append(("security", Self.mapping(security))) }
        let redirect = writing.redirect(signsIn: signsIn)
        if let loopback = redirect.entry { root.append(("redirect", loopback)) }
        redirectURI = redirect.uri
        postLogoutRedirectURI = redirect.postLogout
        let logout = writing.logout()
        if !logout.isEmpty { root.append(("logout", Self.mapping(logout))) }
        root.insert(("discovery", writing.discovery(mode: mode, lacks: lacks)), at: discoveryPosition)
        // Last, so that the comment on its audience closes the file under it.
        let accessTokens = writing.accessTokens()
        if !accessTokens.isEmpty { root.append(("access_tokens", Self.mapping(accessTokens))) }

        self.notes = writing.notes
        self.openAssumptions = writing.open
        var yaml = try Yams.serialize(node: Self.mapping(root), indent: 2, width: -1, allowUnicode: false)
        if !accessTokens.isEmpty {
            yaml += "  # audience: the `aud` your API's tokens carry, which the server's document cannot state (RFC 9068 §4)\n"
        }
        self.text = Self.header(issuer: issuer, metadataURL: metadataURL, readAt: readAt, notes: writing.notes) + yaml
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

    /// A provider id from the issuer: its host, port and path in lowercase letters, digits and `-`
    /// (`http://127.0.0.1:8080/` gives `127-0-0-1-8080`): issuers on two ports of one host get two ids.
    public static func suggestedID(for issuer: URL) -> String {
        readableID(for: issuer, port: true)
    }

    /// The issuer's host, with its port when `port`, and path in lowercase letters, digits and `-`.
    private static func readableID(for issuer: URL, port: Bool) -> String {
        let source = ((issuer.host ?? "") + (port ? issuer.port.map { ":\($0)" } ?? "" : "") + "/" + issuer.path).lowercased()
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

    /// A provider id that names exactly one issuer: `prefix`, the issuer's host and path for a reader, and 16 hex digits of
    /// the SHA-256 of the issuer's exact text, so that issuers that differ only in scheme, port or punctuation
    /// (`http://h:1` and `http://h:2`, `auth.example.com` and `auth-example.com`) never share an id, nor the
    /// sessions and files keyed by it. At most 100 characters.
    package static func exactID(prefix: String, for issuer: URL) -> String {
        let hex = Hexadecimal.lowercase(SHA256.hash(data: Data(issuer.absoluteString.utf8)).prefix(8))
        // Without the port, as these ids have always been made: the hash tells ports apart, and sessions stored under them stay found.
        let readable = String((prefix + readableID(for: issuer, port: false)).prefix(100 - 17)).trimmingCharacters(
            in: CharacterSet(charactersIn: "-"))
        return readable + "-" + hex
    }

    /// Whether `id` can name a provider (`^[a-z0-9][a-z0-9_-]*$`, as the descriptor's `id` must).
    public static func isValidID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.count <= 128 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) }
        return allowed(first) && id.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" || $0 == "_" }
    }

    /// `text` as one shell word: as it is when it holds only characters no shell reads specially, else single-quoted.
    static func shellWord(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || ":/._-@%+=,".unicodeScalars.contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func plain(_ text: String) -> Node { .scalar(.init(text, .implicit, .plain)) }
    static func quoted(_ text: String) -> Node { .scalar(.init(text, .implicit, .doubleQuoted)) }
    static func list(_ items: [String]) -> Node { .sequence(.init(items.map(plain), .implicit, .flow)) }
    static func mapping(_ pairs: [(String, Node)]) -> Node { .mapping(.init(pairs.map { (plain($0.0), $0.1) }, .implicit, .block)) }
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
