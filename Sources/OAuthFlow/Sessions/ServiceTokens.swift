import CoreMetrics
import Crypto
import Foundation
import Logging
import Tracing

extension ServiceTokens {
    /// Which cached token a service request is answered with: everything that changes what the server issues.
    ///
    /// Scopes, resources and audiences are sets (sorted, without repeats), so requests that list them in
    /// another order share a token; the subject of a JWT bearer grant or a token exchange is kept only as a
    /// SHA-256 digest. One key is never answered with another key's token.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        public let providerID: String
        public let clientID: String
        public let grant: GrantType
        public let request: OAuthClient.ServiceTokenRequest
        /// A digest of who the token is about (the JWT bearer subject, the exchanged tokens and requested type); nil for client credentials.
        public let subject: String?
        /// How the client proves itself: the authentication method and the key or certificate it uses (a digest;
        /// empty when unknown). A token issued to one is never handed to a request made with another.
        public let credential: String

        public init(
            providerID: String, clientID: String, grant: GrantType, request: OAuthClient.ServiceTokenRequest, subject: String? = nil,
            credential: String = ""
        ) {
            self.providerID = providerID
            self.clientID = clientID
            self.grant = grant
            self.request = request
            self.subject = subject
            self.credential = credential
        }

        /// This key for another request (the scopes a server granted in place of those asked for).
        func with(_ request: OAuthClient.ServiceTokenRequest) -> ServiceTokens.Key {
            ServiceTokens.Key(providerID: providerID, clientID: clientID, grant: grant, request: request, subject: subject, credential: credential)
        }

        /// Where the token is kept in a ``TokenStore``: the provider, and an account named by a digest of the whole key.
        public var sessionKey: SessionKey {
            var text = "oauthflow-service-token-v2"
            for part in [providerID, clientID, grant.rawValue, subject ?? "", credential] { text += "\u{0}" + part }
            for list in [request.scopes, request.resources, request.audiences] { text += "\u{1}" + list.joined(separator: "\u{0}") }
            // Keys made before details were sent stay as they were.
            if let details = request.authorizationDetails { text += "\u{2}" + AuthorizationDetail.encoded(details) }
            let digest = Base64URL.encode(Data(SHA256.hash(data: Data(text.utf8)).prefix(18)))
            return SessionKey(providerID: providerID, account: "service-\(digest)")
        }

        /// A digest of secrets that identify a subject: the key records who, never the token itself.
        public static func digest(_ parts: [String]) -> String {
            Base64URL.encode(Data(SHA256.hash(data: Data(parts.joined(separator: "\u{0}").utf8))))
        }

        public var description: String { "\(providerID) \(grant.shortName) token for \(clientID) (\(request))" }
    }
}

/// Tokens for a service's own calls, cached, renewed early, and asked for once however many callers want one.
///
/// ```swift
/// let tokens = ServiceTokens(client: client, store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/myapp/tokens")))
/// let token = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.example.com"]))
/// ```
public final class ServiceTokens: Sendable {
    public let client: OAuthClient
    public let skew: TimeInterval
    public let defaultLifetime: TimeInterval
    private let store: any TokenStore
    private let clock: any DateClock
    private let logger: Logger
    /// Which credential this client's requests carry (``ServiceTokens/Key/credential``), worked out once.
    private let credential: String
    /// Why this client's configuration cannot make a request to its provider, worked out once; nil when it can.
    private let configurationProblem: (any Error)?
    /// The cached tokens and the requests in flight, behind one lock: a cached hit is a lookup under it,
    /// with no hop onto an executor (Docs/benchmarks.md measured the actor this replaced).
    private let state = State()
    /// Where the outcomes are counted (`oauthflow_service_tokens_total`), with the handles of the frequent ones made once.
    private let instruments: Instruments
    private let cachedCount: Counter?
    private let joinedCount: Counter?

    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var cached: [ServiceTokens.Key: TokenSet] = [:]
        var inFlight: [ServiceTokens.Key: Task<TokenSet, any Error>] = [:]
    }

    /// - Parameters:
    ///   - client: The provider and the client's credentials.
    ///   - store: Shares tokens with other processes (a ``FileTokenStore``) or machines (the PostgreSQL
    ///     store); the default keeps them in this process only.
    ///   - skew: Renew this long before expiry.
    ///   - defaultLifetime: How long a token whose answer has no `expires_in` is used.
    ///
    /// The clock and the logger are the client's (``OAuthClient/environment``).
    public init(
        client: OAuthClient, store: any TokenStore = InMemoryTokenStore(), skew: TimeInterval = 60, defaultLifetime: TimeInterval = 300
    ) {
        self.client = client
        self.store = store
        self.skew = max(0, skew)
        self.defaultLifetime = max(1, defaultLifetime)
        self.clock = client.environment.clock
        self.logger = client.environment.logger
        credential = client.configuration.credentialIdentity(for: client.provider)
        instruments = client.environment.instruments
        cachedCount = instruments.counter(.serviceTokens, [client.provider.id, "cached"])
        joinedCount = instruments.counter(.serviceTokens, [client.provider.id, "joined"])
        do {
            _ = try client.configuration.authenticationMethod(for: client.provider)
            configurationProblem = nil
        } catch {
            configurationProblem = error
        }
    }

    /// The key a client-credentials request is cached under.
    public func key(for request: OAuthClient.ServiceTokenRequest) -> ServiceTokens.Key {
        key(.clientCredentials, request)
    }

    /// This client's key for `grant` and `request`, about `subject` (already a digest) when the grant has one.
    private func key(_ grant: GrantType, _ request: OAuthClient.ServiceTokenRequest, subject: String? = nil) -> ServiceTokens.Key {
        ServiceTokens.Key(
            providerID: client.provider.id, clientID: client.configuration.clientID, grant: grant, request: request, subject: subject,
            credential: credential)
    }

    /// A client-credentials access token for `request`, valid for at least ``skew`` more seconds.
    public func accessToken(_ request: OAuthClient.ServiceTokenRequest = .init()) async throws -> Secret {
        try await token(for: key(for: request)) { client in try await client.clientCredentialsToken(request) }.accessToken
    }

    /// An access token from the JWT bearer grant (RFC 7523 §2.1), cached per `subject`.
    ///
    /// - Parameters:
    ///   - subject: Who the assertions are about (their `iss` and `sub`, say): tokens for different subjects never mix.
    ///   - scopes: The scopes to ask for; none leaves them to the server.
    ///   - assertion: Makes a fresh assertion; called only when a token must be fetched.
    public func accessToken(
        subject: String, scopes: [String] = [], assertion: @escaping @Sendable () async throws -> Secret
    ) async throws -> Secret {
        let request = OAuthClient.ServiceTokenRequest(scopes: scopes)
        return try await token(for: key(.jwtBearer, request, subject: ServiceTokens.Key.digest([subject]))) { client in
            try await client.jwtBearerToken(assertion: try await assertion(), scopes: request.scopes)
        }.accessToken
    }

    /// An access token from the JWT bearer grant for `subject`, with assertions this call signs: `iss` the
    /// `issuer` that `key` speaks for, `aud` the issuer or token endpoint as the descriptor's
    /// `client_auth.assertion_audience` says, a fresh `jti`, a minute's life.
    public func accessToken(
        subject: String, issuer: String, key: ClientConfiguration.SigningKey, scopes: [String] = []
    ) async throws -> Secret {
        let client = self.client
        return try await accessToken(subject: "\(issuer)\u{0}\(subject)", scopes: scopes) {
            let audience = try await client.assertionAudience(endpoint: try await client.endpoint(\.token, "token"))
            return try await ClientAssertion.grant(issuer: issuer, subject: subject, audience: audience, key: key)
        }
    }

    /// The token a token exchange issues (RFC 8693), cached per subject token, actor token and requested type,
    /// in this process only: the store never holds exchanged tokens.
    public func exchangedToken(_ exchange: OAuthClient.TokenExchangeRequest) async throws -> Secret {
        let subject = ServiceTokens.Key.digest([
            exchange.subjectToken.value, exchange.subjectTokenType, exchange.actorToken?.value ?? "", exchange.actorTokenType ?? "",
            exchange.requestedTokenType ?? "",
        ])
        return try await token(for: key(.tokenExchange, exchange.target, subject: subject)) { client in
            try await client.exchangeToken(exchange).tokens
        }.accessToken
    }

    /// A valid token for `key`: cached, from the store, from a request already in flight, or fetched with `fetch`.
    ///
    /// - Throws: ``FlowError`` first, before any cache is read, when the client's configuration cannot make
    ///   a request to this provider (a method its descriptor does not list, a method without its credential):
    ///   a cached token does not hide a configuration that could never fetch one.
    public func token(
        for key: ServiceTokens.Key, fetch: @escaping @Sendable (OAuthClient) async throws -> TokenSet
    ) async throws -> TokenSet {
        if let configurationProblem { throw configurationProblem }
        switch step(key, fetch: fetch) {
        case let .ready(tokens):
            cachedCount?.increment()
            logger.debug("service token cache hit", metadata: Self.cacheMetadata(key))
            return tokens
        case let .pending(task, joined):
            if joined { joinedCount?.increment() }
            return try await task.value
        }
    }

    /// What a cache hit's log line says: the provider and the scopes, never a token or a credential.
    private static func cacheMetadata(_ key: ServiceTokens.Key) -> Logger.Metadata {
        ["provider": "\(key.providerID)", "scopes": "\(key.request.scopes.joined(separator: " "))"]
    }

    /// Forgets `key`'s token when it is `token` (a resource server refused it), here and in the store.
    public func invalidate(_ key: ServiceTokens.Key, token: Secret) async {
        state.lock.withLock {
            if state.cached[key]?.accessToken == token { state.cached[key] = nil }
        }
        let storeKey = key.sessionKey
        guard let lock = try? await store.lock(storeKey) else { return }
        defer { lock.release() }
        if let stored = try? await store.load(storeKey), stored.tokens.accessToken == token {
            try? await store.remove(storeKey)
        }
        logger.debug("service token dropped", metadata: ["provider": "\(key.providerID)", "grant": "\(key.grant.shortName)"])
    }

    /// Sends `request` with a client-credentials token for `target`: as a Bearer token, or with a DPoP proof
    /// when the token is DPoP-bound (``TokenSet/send(_:environment:clientIdentity:)``), over mutual TLS with the client's
    /// certificate when it is certificate-bound, through the client's environment.
    ///
    /// A 401 whose `WWW-Authenticate` says `invalid_token` (RFC 6750 §3.1) drops that token, fetches a new one
    /// and sends once more; a second 401 is returned as it is.
    public func send(
        _ request: TransportRequest, for target: OAuthClient.ServiceTokenRequest = .init()
    ) async throws -> TransportResponse {
        try FlowError.requireSecure(request.url)
        let key = key(for: target)
        let fetch: @Sendable (OAuthClient) async throws -> TokenSet = { client in try await client.clientCredentialsToken(target) }
        let first = try await token(for: key, fetch: fetch)
        let identity = client.configuration.tlsIdentity
        let provider = client.provider.id
        let response = try await first.send(request, environment: client.environment, clientIdentity: identity, provider: provider)
        guard response.refusesToken else { return response }
        await invalidate(key, token: first.accessToken)
        return try await token(for: key, fetch: fetch).send(request, environment: client.environment, clientIdentity: identity, provider: provider)
    }

    // MARK: - Single flight

    private enum Step {
        case ready(TokenSet)
        /// The request to wait for, and whether it was already in flight (joined) rather than started for this caller.
        case pending(Task<TokenSet, any Error>, joined: Bool)
    }

    /// The cached token, the request in flight, or a new request (whose entry goes, under the lock, as it ends).
    private func step(_ key: ServiceTokens.Key, fetch: @escaping @Sendable (OAuthClient) async throws -> TokenSet) -> Step {
        state.lock.withLock {
            let cached = state.cached[key]
            if let tokens = cached, usable(tokens) { return .ready(tokens) }
            if let running = state.inFlight[key] { return .pending(running, joined: true) }
            // A cached token still valid, only within the skew: the request renews it early.
            let early = cached.map { clock.now() < ($0.expiresAt ?? $0.issuedAt.addingTimeInterval(defaultLifetime)) } ?? false
            // The request's spans are children of the span of the caller that starts it, which a detached task does not
            // inherit: the context is handed over.
            let context = InstrumentationContext.current
            let task = Task.detached(priority: Task.currentPriority) { [self] in
                defer { state.lock.withLock { state.inFlight[key] = nil } }
                do {
                    return try await InstrumentationContext.$current.withValue(context) { try await obtain(key, early: early, fetch: fetch) }
                } catch {
                    instruments.count(.serviceTokens, key.providerID, "failed")
                    throw error
                }
            }
            state.inFlight[key] = task
            return .pending(task, joined: false)
        }
    }

    private func remember(_ key: ServiceTokens.Key, _ tokens: TokenSet) {
        state.lock.withLock {
            // Many keys (a token per exchanged subject) must not grow without bound: expired ones go first.
            if state.cached.count >= 4096 { state.cached = state.cached.filter { usable($0.value) } }
            if state.cached.count >= 4096, let victim = state.cached.keys.first { state.cached[victim] = nil }
            state.cached[key] = tokens
        }
    }

    /// Whether `tokens` were issued with no lifetime at all (`expires_in: 0` read as RFC 6749 says): used once, never cached.
    static func isSpent(_ tokens: TokenSet) -> Bool {
        tokens.expiresAt.map { $0 <= tokens.issuedAt } ?? false
    }

    /// Whether `tokens` stay valid for ``skew`` more seconds (half their lifetime, for tokens that live less than
    /// twice the skew, so that a short-lived token is still reused); a token with no expiry lives ``defaultLifetime``.
    private func usable(_ tokens: TokenSet) -> Bool {
        let expiry = tokens.expiresAt ?? tokens.issuedAt.addingTimeInterval(defaultLifetime)
        let margin = min(skew, max(0, expiry.timeIntervalSince(tokens.issuedAt)) / 2)
        return clock.now().addingTimeInterval(margin) < expiry
    }

    /// Under the store's lock: the stored token if another process just fetched one, else a new one, saved.
    ///
    /// `early` says the token replaced was still valid (only within the skew), for the count.
    private func obtain(_ key: ServiceTokens.Key, early: Bool, fetch: @Sendable (OAuthClient) async throws -> TokenSet) async throws -> TokenSet {
        let fetched = early ? "renewed_early" : "fetched"
        // An exchanged token is one subject token's: kept in memory only, so that a store does not gather a
        // file or row for every subject token ever exchanged.
        if key.grant == .tokenExchange {
            let tokens = try await fetch(client)
            instruments.count(.serviceTokens, key.providerID, fetched)
            if !Self.isSpent(tokens) { remember(key, tokens) }
            return tokens
        }
        let storeKey = key.sessionKey
        let lock = try await store.lock(storeKey)
        defer { lock.release() }
        // Only a token this provider's server issued to this client: never one another server or client left under the key.
        if let stored = try? await store.load(storeKey), stored.mismatch(with: client.provider, clientID: key.clientID) == nil,
            usable(stored.tokens)
        {
            logger.debug("service token cache hit in the store", metadata: Self.cacheMetadata(key))
            instruments.count(.serviceTokens, key.providerID, "stored")
            remember(key, stored.tokens)
            return stored.tokens
        }
        let tokens = try await fetch(client)
        instruments.count(.serviceTokens, key.providerID, fetched)
        // A token that lives 0 seconds (`expires_in: 0`, RFC 6749 §5.1) serves this request and is kept nowhere.
        if Self.isSpent(tokens) { return tokens }
        // A server may grant fewer scopes than asked: the token is kept under those it granted, so that a later
        // request for the scopes asked for does not get a token without some of them. (Scopes nobody asked for
        // are never a key: a server cannot fill another request's cache.)
        var key = key
        var savedUnder = storeKey
        let granted = OAuthClient.ServiceTokenRequest(
            scopes: tokens.scopes, resources: key.request.resources, audiences: key.request.audiences,
            authorizationDetails: key.request.authorizationDetails ?? [])
        if granted.scopes != key.request.scopes, Set(granted.scopes).isStrictSubset(of: key.request.scopes) {
            logger.notice(
                "the provider granted fewer scopes than asked; the token is cached under the scopes granted",
                metadata: [
                    "provider": "\(key.providerID)", "asked": "\(key.request.scopes.joined(separator: " "))",
                    "granted": "\(granted.scopes.joined(separator: " "))",
                ])
            key = key.with(granted)
            savedUnder = key.sessionKey
        }
        remember(key, tokens)
        let session = StoredSession(
            key: savedUnder, issuedBy: client.provider, clientID: key.clientID, redirectURI: nil,
            tokens: tokens, updatedAt: tokens.issuedAt, clientAuthentication: try? client.configuration.authenticationMethod(for: client.provider))
        do {
            try await store.save(session)
        } catch {
            // The token is good; only sharing it failed. Other processes will fetch their own.
            logger.warning("service token not stored", metadata: ["provider": "\(key.providerID)", "error": "\(error)"])
        }
        return tokens
    }
}
