import Foundation

/// Everything needed to use a session later without asking the user again.
///
/// The client secret is never stored: confidential clients give it again by
/// reference (an environment variable or a file) when they refresh.
public struct StoredSession: Sendable, Hashable, Codable {
    public static let currentFormatVersion = 1

    public var formatVersion: Int
    public var key: SessionKey
    /// The variables the provider was resolved with.
    public var variables: [String: String]
    public var clientID: String
    /// The redirect URI the session was signed in with; nil for a session no browser was sent back for (a
    /// service's, a device sign-in's), which is stored without the member.
    public var redirectURI: URL?
    /// The tokens; expiry is stored as an absolute time.
    public var tokens: TokenSet
    public var updatedAt: Date
    /// How the client authenticated at the token endpoint when it signed in (never the secret):
    /// a refresh without the credential it needs is refused before anything is sent, since a
    /// server may spend the refresh token on an unauthenticated request. Nil in sessions stored
    /// before OAuthFlow kept it.
    public var clientAuthentication: ProviderDescriptor.ClientAuthMethod?
    /// The provider's session this one belongs to, from the ID token verified at sign-in: what
    /// back-channel and front-channel logout name. Nil without an ID token, and in sessions stored
    /// before OAuthFlow kept it.
    public var providerSession: ProviderSession?
    /// The authorization server that issued the tokens, as ``Provider/authorizationServer`` names it. The refresh
    /// token goes to that server alone, for ``clientID`` alone (RFC 6749 §10.4, RFC 9700 §4.14): a manager whose
    /// provider or client is another refuses the session before anything is sent. Nil in sessions stored before
    /// OAuthFlow kept it; the first refresh records it.
    public var authorizationServer: String?
    /// The servers the provider's descriptor named, when the tokens were issued, for what receives a token or the
    /// client's credentials (``Provider/tokenServers``): a descriptor re-pointed since at another server for any of them
    /// (its token or revocation endpoint, say, the issuer unchanged) gets nothing of the session. Nil in sessions stored
    /// before OAuthFlow kept it; the first refresh records it.
    package var tokenServers: [String]?
    /// Whether the sign-in asked for a refresh token (the descriptor's offline scopes and parameters): false for a
    /// sign-in that did not (`login --no-offline`), so that advice to sign in again asks as it did. Nil in sessions
    /// stored before OAuthFlow kept it, and in those whose sign-in did not say.
    public var offlineAccessRequested: Bool?
    /// Why the provider said the user must sign in again (a security event's type, such as CAEP's `credential-change`),
    /// and when: a session so marked gives out no token and is not refreshed until a sign-in replaces it. It can still
    /// be signed out and revoked. Nil for a session nobody marked.
    public var reauthenticationRequired: ReauthenticationMark?

    /// What a security event said of a session: the user must sign in again.
    public struct ReauthenticationMark: Sendable, Hashable, Codable {
        /// The event type that said so (a URI).
        public var event: String
        /// When the receiver marked the session.
        public var markedAt: Date

        public init(event: String, markedAt: Date) {
            self.event = event
            self.markedAt = markedAt
        }
    }

    public init(
        key: SessionKey, variables: [String: String], clientID: String, redirectURI: URL?, tokens: TokenSet, updatedAt: Date,
        clientAuthentication: ProviderDescriptor.ClientAuthMethod? = nil, providerSession: ProviderSession? = nil,
        authorizationServer: String? = nil, offlineAccessRequested: Bool? = nil
    ) {
        self.formatVersion = Self.currentFormatVersion
        self.key = key
        self.variables = variables
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.tokens = tokens
        self.updatedAt = updatedAt
        self.clientAuthentication = clientAuthentication
        self.providerSession = providerSession
        self.authorizationServer = authorizationServer
        self.offlineAccessRequested = offlineAccessRequested
    }

    /// A session `provider` issued just now: its variables, and the servers it names (``authorizationServer``,
    /// ``tokenServers``), recorded with the tokens.
    package init(
        key: SessionKey, issuedBy provider: Provider, clientID: String, redirectURI: URL?, tokens: TokenSet, updatedAt: Date,
        clientAuthentication: ProviderDescriptor.ClientAuthMethod?, providerSession: ProviderSession? = nil,
        offlineAccessRequested: Bool? = nil
    ) {
        self.init(
            key: key, variables: provider.variables, clientID: clientID, redirectURI: redirectURI, tokens: tokens, updatedAt: updatedAt,
            clientAuthentication: clientAuthentication, providerSession: providerSession, authorizationServer: provider.authorizationServer,
            offlineAccessRequested: offlineAccessRequested)
        tokenServers = provider.tokenServers
    }

    /// Records the servers `provider` names where this session, stored before OAuthFlow kept them, has none.
    package mutating func recordServers(of provider: Provider) {
        authorizationServer = authorizationServer ?? provider.authorizationServer
        tokenServers = tokenServers ?? provider.tokenServers
    }

    /// The granted scopes.
    public var scopes: [String] { tokens.scopes }
}

extension StoredSession {
    /// Why this session may not be used with `provider` and the client `clientID`, or nil when it may: its tokens
    /// were issued by another authorization server, or to another client. Sending its refresh token, or
    /// presenting its access token, for another server or client is what RFC 6749 §10.4 and RFC 9700 §4.14
    /// forbid. A session stored before OAuthFlow recorded its server is held to its client alone.
    package func mismatch(with provider: Provider, clientID: String) -> String? {
        if let recorded = authorizationServer, let current = provider.authorizationServer, recorded != current {
            let now = TerminalText.escaped(current)
            return "it was issued by the authorization server \(TerminalText.escaped(recorded)), and the provider `\(provider.id)` is now \(now)"
        }
        if let recorded = tokenServers, let moved = provider.tokenServers.first(where: { !recorded.contains($0) }) {
            let named = recorded.isEmpty ? "no server" : recorded.map(TerminalText.escaped).joined(separator: ", ")
            return
                "its tokens were issued where the provider `\(provider.id)` named \(named), and it now names \(TerminalText.escaped(moved)) for an endpoint that would receive them"
        }
        if self.clientID != clientID {
            return "it was issued to the client \(TerminalText.escaped(self.clientID)), and the client in use is \(TerminalText.escaped(clientID))"
        }
        return nil
    }

    /// Refuses this session for `provider` and the client `clientID` when ``mismatch(with:clientID:)`` finds a reason:
    /// the one check every path that uses or hands out a stored token makes first.
    ///
    /// - Throws: ``SessionError`` `session_mismatch`, saying why; nothing was sent to anyone.
    package func requireOrigin(_ provider: Provider, clientID: String) throws {
        guard let reason = mismatch(with: provider, clientID: clientID) else { return }
        throw SessionError(
            .sessionMismatch, "the stored session \(key) cannot be used here: \(reason). Nothing was sent; sign in again to replace it")
    }

    /// Refuses this session's tokens when a security event marked it for a new sign-in (``reauthenticationRequired``):
    /// what every path that hands out or refreshes a stored token checks after its origin. Revoking and signing out do not.
    ///
    /// - Throws: ``SessionError`` `reauthentication_required`; nothing was sent.
    package func requireNoReauthentication() throws {
        guard let mark = reauthenticationRequired else { return }
        throw SessionError(
            .reauthenticationRequired,
            "the provider asked that the user sign in again (\(TerminalText.escaped(mark.event)), received \(mark.markedAt)); the session \(key) gives no token until a new sign-in replaces it"
        )
    }
}

extension StoredSession {
    /// The one JSON form every store keeps a session in: ISO 8601 dates, sorted keys; `readable`
    /// adds indentation, for a file a person may open.
    public func encoded(readable: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = readable ? [.prettyPrinted, .sortedKeys] : .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// A session from ``encoded(readable:)``'s form.
    ///
    /// Its tokens are held to RFC 6749 Appendix A's printable ASCII (`%x20-7E`), as a token response is when it
    /// arrives: a file that says otherwise was not written by OAuthFlow, and its tokens must not reach a terminal or a
    /// header (`unreadableReason(_:_:)` says which).
    ///
    /// - Throws: `DecodingError` when `data` is not a session.
    public static func decoded(from data: Data) throws -> StoredSession {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let session = try decoder.decode(StoredSession.self, from: data)
        try checkPrintable(session.tokens)
        return session
    }
}
