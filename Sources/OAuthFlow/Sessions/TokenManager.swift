import Foundation
import Logging

/// Keeps one session's access token valid, refreshing it when needed, once.
///
/// Through the front door, `oauth.session(_:account:)` gives the session's one manager.
public actor TokenManager {
    public let key: SessionKey
    public let skew: TimeInterval
    package nonisolated let client: OAuthClient
    /// The session's provider, as its client resolved it.
    public nonisolated var provider: Provider { client.provider }
    private let store: any TokenStore
    /// The client's: a manager sends, timestamps and logs as the client it refreshes with.
    private let clock: any DateClock
    private let logger: Logger
    private let transport: any HTTPTransport
    /// Counts refreshes performed, joined and failed.
    private let instruments: Instruments
    private let onChange: (@Sendable (StoredSession?) -> Void)?
    private var cached: StoredSession?
    /// When the store was last read for ``cached``.
    private var readAt: Date?
    private var refreshing: Task<StoredSession, any Error>?
    private var loading: Task<StoredSession?, any Error>?
    /// Saves a refreshed session the store did not take at first (``keepSaving(_:after:)``).
    private var saving: Task<Void, Never>?
    /// How many times ``storeChanged()`` was called: a read of the store begun before the last call is not trusted after it.
    private nonisolated let changes = Locked(0)
    /// The count of ``changes`` when the read that gave ``cached`` began, and when ``loading`` began.
    private var readGeneration = 0
    private var loadingGeneration = 0

    /// - Parameters:
    ///   - client: The client for the session's provider; it performs refreshes, and its ``OAuthClient/environment``
    ///     gives the clock, the transport for ``perform(_:)`` and the logger.
    ///   - store: Where the session lives.
    ///   - key: Which session.
    ///   - skew: Refresh this long before expiry (default 60 s).
    ///   - onChange: Called with every new session, and with nil after a sign-out.
    public init(
        client: OAuthClient, store: any TokenStore, key: SessionKey, skew: TimeInterval = 60,
        onChange: (@Sendable (StoredSession?) -> Void)? = nil
    ) {
        self.client = client
        self.store = store
        self.key = key
        self.skew = skew
        self.clock = client.environment.clock
        self.transport = client.environment.transport
        self.logger = client.environment.logger
        self.instruments = client.environment.instruments
        self.onChange = onChange
    }

    /// How long a session read from the store is used before the store is read again: what another process or
    /// instance did meanwhile (a sign-out, a provider's logout or security event ending the session or marking it for a
    /// new sign-in, a newer sign-in or refresh) holds here from the next read on.
    package static let storeRereadInterval: TimeInterval = 30

    /// The current session, from memory, or from the store when it was last read more than 30 seconds ago (what another
    /// process did meanwhile then holds here).
    ///
    /// - Throws: ``SessionError`` `notSignedIn` when there is none (signed out here or elsewhere).
    public func session() async throws -> StoredSession {
        let now = clock.now()
        let generation = changes.withLock { $0 }
        if generation == readGeneration, let cached, let readAt, now.timeIntervalSince(readAt) < Self.storeRereadInterval {
            return cached
        }
        // One read of the store, however many callers arrive before it finishes; none begun before the last change.
        let task: Task<StoredSession?, any Error>
        if let loading, loadingGeneration == generation {
            task = loading
        } else {
            task = Task { try await store.load(key) }
            loading = task
            loadingGeneration = generation
        }
        defer { if loading == task { loading = nil } }
        let stored: StoredSession?
        do {
            stored = try await task.value
        } catch {
            // A store that cannot be read now does not end a session this manager holds.
            if let cached { return cached }
            throw error
        }
        readAt = now
        readGeneration = max(readGeneration, generation)
        guard let stored else {
            if cached != nil {
                cached = nil
                onChange?(nil)
            }
            throw SessionError(.notSignedIn, "no stored session for \(key); sign in first")
        }
        try requireOwn(stored)
        guard let current = cached else {
            cached = stored
            return stored
        }
        if stored.tokens != current.tokens, stored.updatedAt >= current.updatedAt || current.reauthenticationRequired != nil {
            // Another process refreshed or signed in again since: its session is the newer one.
            adopt(stored)
        } else if current.reauthenticationRequired == nil, let mark = stored.reauthenticationRequired {
            // A security event marked the session since it was read: the mark holds here too.
            var marked = current
            marked.reauthenticationRequired = mark
            cached = marked
        }
        return cached ?? stored
    }

    /// Says that the session was replaced in the store by something this manager did not do (a sign-in through the same
    /// `OAuth`, a step-up): its next use reads the store at once, not after ``storeRereadInterval``.
    package nonisolated func storeChanged() {
        changes.withLock { $0 += 1 }
    }

    /// An access token that is valid for at least ``skew`` more seconds, refreshing if needed.
    public nonisolated func validAccessToken() async throws -> Secret {
        try await validTokens().accessToken
    }

    /// Refreshes now, unless another refresh already replaced `stale`.
    ///
    /// - Parameter stale: The access token the caller found wanting (nil: refresh whatever is current).
    @discardableResult
    public nonisolated func refresh(replacing stale: Secret? = nil) async throws -> StoredSession {
        switch await step(replacing: stale) {
        case let .ready(session): return session
        case let .pending(task): return try await task.value
        }
    }

    /// Either a session to use now, or the refresh to wait for.
    private enum Step {
        case ready(StoredSession)
        case pending(Task<StoredSession, any Error>)
    }

    private func stepForValidToken() async throws -> Step {
        if let refreshing { return joining(refreshing) }
        let loaded = try await session()
        try loaded.requireNoReauthentication()
        // Another caller may have started or finished a refresh while this one read the store.
        if let refreshing { return joining(refreshing) }
        let current = cached ?? loaded
        guard current.tokens.isExpired(at: clock.now(), skew: skew) else { return .ready(current) }
        return step(replacing: current.tokens.accessToken)
    }

    /// Joins the running refresh, uses one that already replaced `stale`, or starts one.
    private func step(replacing stale: Secret?) -> Step {
        if let refreshing { return joining(refreshing) }
        if let stale, let cached, cached.tokens.accessToken != stale, cached.reauthenticationRequired == nil,
            !cached.tokens.isExpired(at: clock.now(), skew: skew)
        {
            // Another refresh replaced the token the caller found wanting: this one is saved.
            countRefresh("joined")
            return .ready(cached)
        }
        let task = Task {
            do {
                let session = try await self.refreshUnderLock(replacing: stale)
                self.refreshFinished()
                return session
            } catch {
                self.refreshFinished()
                self.countRefresh("failed", code: Instruments.code(of: error))
                throw error
            }
        }
        refreshing = task
        return .pending(task)
    }

    private func refreshFinished() {
        refreshing = nil
    }

    /// The refresh under way, which this caller waits for instead of sending its own.
    private func joining(_ task: Task<StoredSession, any Error>) -> Step {
        countRefresh("joined")
        return .pending(task)
    }

    private func countRefresh(_ outcome: String, code: String = Instruments.none) {
        instruments.count(.refreshes, client.provider.id, outcome, code)
    }

    /// Refreshes under the store's lock, in steps whose order keeps the session: re-read it, check the credential,
    /// reserve room for the new tokens, send the refresh token, and commit what comes back.
    private func refreshUnderLock(replacing stale: Secret?) async throws -> StoredSession {
        let lock = try await store.lock(key)
        defer { lock.release() }
        // Re-read under the lock: another process may have refreshed (and rotated) already.
        guard let latest = try await store.load(key) else {
            cached = nil
            throw SessionError(.notSignedIn, "the session for \(key) was removed; sign in again")
        }
        try requireOwn(latest)
        try latest.requireNoReauthentication()
        if let stale, latest.tokens.accessToken != stale, !latest.tokens.isExpired(at: clock.now(), skew: skew) {
            logger.debug("session already refreshed elsewhere", metadata: ["session": "\(key)"])
            countRefresh("joined")
            adopt(latest)
            return latest
        }
        return try await refresh(latest, mayRetry: true)
    }

    /// Sends `latest`'s refresh token and commits what comes back. When the server rejected it and the store holds
    /// another session by then (another process won the refresh race, or signed in again), that session is kept and used:
    /// as it is while its access token is valid, else refreshed once more (`mayRetry`).
    private func refresh(_ latest: StoredSession, mayRetry: Bool) async throws -> StoredSession {
        try requireClientCredential(for: latest)
        await client.prefetchRefreshKeys(for: latest.tokens)
        let reservation = try await reserveRoom()
        let provider = client.provider
        let tokens: TokenSet
        do {
            tokens = try await refreshedTokens(of: latest, into: reservation, issuedBy: provider)
        } catch let superseded as Superseded {
            let current = superseded.session
            try requireOwn(current)
            try current.requireNoReauthentication()
            logger.debug("refresh token rejected; another process stored a newer session, which is kept", metadata: ["session": "\(key)"])
            guard current.tokens.isExpired(at: clock.now(), skew: skew) else {
                countRefresh("joined")
                adopt(current)
                return current
            }
            guard mayRetry else {
                adopt(current)
                throw superseded.rejection
            }
            return try await refresh(current, mayRetry: false)
        }
        return try await commit(tokens, over: latest, into: reservation, issuedBy: provider)
    }

    /// The server rejected the refresh token sent, and the store holds another session by then, which stays.
    private struct Superseded: Error {
        let session: StoredSession
        let rejection: AuthorizationServerError
    }

    /// A server may spend the refresh token on a request that lacks the client's credential: refuse before sending.
    private func requireClientCredential(for latest: StoredSession) throws {
        if let method = latest.clientAuthentication, method != .none,
            !client.configuration.hasCredential(for: method, generatesSecret: client.provider.policy.generatedSecret != nil)
        {
            let credential = ClientConfiguration.credentialNeeded(by: method)
            throw SessionError(
                .missingClientCredential,
                "the session for \(key) was signed in by a confidential client (\(method.rawValue)), and \(credential) was not given to refresh it; nothing was sent, so the refresh token still works once it is given"
            )
        }
    }

    /// Room for the new tokens first: a refresh token spent on tokens that cannot be saved is a lost session.
    private func reserveRoom() async throws -> any TokenStoreReservation {
        do {
            return try await store.reserve(key)
        } catch {
            throw SessionError(
                .storeUnavailable,
                "cannot refresh \(key): new tokens could not be saved (\(error)); the refresh token was not used, so the session still works once that is fixed"
            )
        }
    }

    /// `latest` with the refresh token of `response`, a 2xx answer that failed its checks, when it names a new one
    /// (printable ASCII, RFC 6749 Appendix A); its access token taken as expired, so that the next use refreshes with
    /// the new refresh token. Nil when the answer names none, or the same.
    private func rotated(_ latest: StoredSession, by response: TransportResponse?) -> StoredSession? {
        guard let response, let token = TokenResponseParser.issuedRefreshToken(in: response, format: client.provider.policy.tokenResponseFormat),
            TokenResponseParser.isTokenText(token), token != latest.tokens.refreshToken?.value
        else { return nil }
        var session = latest
        session.tokens.refreshToken = Secret(token)
        session.tokens.expiresAt = min(session.tokens.expiresAt ?? clock.now(), clock.now())
        session.updatedAt = clock.now()
        return session
    }

    /// Sends `latest`'s refresh token; the answer is recorded in `reservation` as it arrives, before its checks. A
    /// rejected refresh token signs the session out while the store still holds it (``Superseded`` when the store holds
    /// another session by then); an answer that fails its checks keeps its new refresh token.
    private func refreshedTokens(
        of latest: StoredSession, into reservation: any TokenStoreReservation, issuedBy provider: Provider
    ) async throws -> TokenSet {
        let clock = self.clock
        let answer = RecordedAnswer()
        let tokens: TokenSet
        do {
            // On the thread that read the answer: nothing between its last byte and the record.
            let recorder = reservation.answerRecorder(refreshing: latest)
            let arrived: @Sendable (TransportResponse) -> Void = { response in
                answer.response = response
                recorder?(response.body)
            }
            tokens = try await client.refresh(
                latest.tokens, arrived: arrived,
                received: { received in
                    var recorded = latest
                    recorded.tokens = received
                    recorded.recordServers(of: provider)
                    recorded.updatedAt = clock.now()
                    answer.session = recorded
                    do {
                        try await reservation.record(recorded)
                    } catch {
                        // The answer is in memory: check it, then commit it (or keep retrying); failing here would drop it.
                        answer.recordError = error
                    }
                })
        } catch let error as AuthorizationServerError where error.error == "invalid_grant" {
            await reservation.abandon()
            // Only the session that still holds the refresh token sent: one another process saved meanwhile stays.
            if try await !store.remove(key, whileHolding: latest.tokens.refreshToken), let current = try await store.load(key),
                current.tokens.refreshToken != latest.tokens.refreshToken
            {
                throw Superseded(session: current, rejection: error)
            }
            forgetSession()
            logger.debug("refresh token rejected; signed out", metadata: ["session": "\(key)"])
            throw SessionError(
                .signedOut, "the refresh token was rejected (\(error)); the session was signed out, sign in again",
                serverError: error)
        } catch {
            // An answer whose own checks failed (no `token_type`, a bad `expires_in`, a binding refused) before any
            // part of it was taken: the server has spent the old refresh token all the same, so its new one is kept.
            guard let recorded = answer.session ?? rotated(latest, by: answer.response) else {
                await reservation.abandon()
                throw error
            }
            // The server answered (and has spent the old refresh token), but the answer failed its checks or
            // they could not run: keep the new refresh token with the verified identity, never the unchecked rest.
            adopt(recorded)
            do {
                try await reservation.commit(recorded)
            } catch {
                keepSaving(recorded, replacing: latest, after: error)
            }
            logger.debug("refresh answer not adopted; its refresh token was kept", metadata: ["session": "\(key)"])
            throw error
        }
        if let failure = answer.recordError {
            logger.info("the refresh answer could not be recorded before its checks", metadata: ["session": "\(key)", "error": "\(failure)"])
        }
        return tokens
    }

    /// The session with its refreshed `tokens`, used at once and committed to `reservation`; one the store does not
    /// take is saved again in the background, as these tokens are the session now.
    private func commit(
        _ tokens: TokenSet, over latest: StoredSession, into reservation: any TokenStoreReservation, issuedBy provider: Provider
    ) async throws -> StoredSession {
        var updated = latest
        updated.tokens = tokens
        updated.updatedAt = clock.now()
        updated.recordServers(of: provider)
        adopt(updated)
        do {
            try await reservation.commit(updated)
        } catch {
            let attempts = keepSaving(updated, replacing: latest, after: error)
            throw SessionError(
                .storeUnavailable,
                "\(key) was refreshed, but the new tokens could not be saved (\(error)); this process keeps using them and tries to save them \(attempts) more times over about \(Int(Self.saveRetryDelays.reduce(0, +))) s, and they are lost if it exits first (sign in again then)"
            )
        }
        countRefresh("performed")
        return updated
    }

    /// The pauses between attempts to save a refreshed session the store did not take.
    static let saveRetryDelays: [TimeInterval] = [1, 2, 4, 8, 15, 30]

    /// Saves `session` in the background, a bounded number of times: a rotating server has spent the stored
    /// refresh token, so these tokens are the session now. The attempts outlive this manager (a web host makes
    /// one per request); each is made under the store's lock and only while the store still holds `previous`,
    /// the session this refresh replaced, so a newer session saved by anyone, or a sign-out, is never overwritten.
    ///
    /// - Returns: How many attempts it will make.
    @discardableResult
    private func keepSaving(_ session: StoredSession, replacing previous: StoredSession, after error: any Error) -> Int {
        logger.info("refreshed session not saved; retrying in the background", metadata: ["session": "\(key)", "error": "\(error)"])
        saving?.cancel()
        let store = self.store
        let key = self.key
        let logger = self.logger
        saving = Task { [weak self] in
            for delay in Self.saveRetryDelays {
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                } catch {
                    return
                }
                // Another refresh (or a sign-out) in this manager since then owns the session.
                if let self, await self.cached != session { return }
                do {
                    let lock = try await store.lock(key)
                    defer { lock.release() }
                    // Another process, or another manager, since then owns the session.
                    guard try await store.load(key) == previous else {
                        logger.debug("the stored session changed since the refresh; not saving it", metadata: ["session": "\(key)"])
                        return
                    }
                    try await store.save(session)
                    logger.info("refreshed session saved after a retry", metadata: ["session": "\(key)"])
                    return
                } catch {
                    logger.debug("saving the refreshed session failed again", metadata: ["session": "\(key)", "error": "\(error)"])
                }
            }
            logger.info("gave up saving the refreshed session", metadata: ["session": "\(key)"])
        }
        return Self.saveRetryDelays.count
    }

    /// Refuses a session whose tokens another authorization server issued, or were issued to another client: its
    /// refresh token must never reach this manager's token endpoint (RFC 6749 §10.4, RFC 9700 §4.14).
    private func requireOwn(_ session: StoredSession) throws {
        do {
            try session.requireOrigin(client.provider, clientID: client.configuration.clientID)
        } catch {
            logger.info("stored session refused: issued elsewhere", metadata: ["session": "\(key)"])
            throw error
        }
    }

    private func adopt(_ session: StoredSession) {
        cached = session
        onChange?(session)
    }

    /// Sends a request with the session's access token: as a Bearer token, or with a DPoP proof when the
    /// session is DPoP-bound (``TokenSet/send(_:environment:clientIdentity:)``, one retry for a server nonce), over
    /// mutual TLS with the client's certificate when it is certificate-bound.
    /// On a 401 that refuses the token (`invalid_token`, or no error named), refreshes once and retries once; any other
    /// answer (a step-up's `insufficient_user_authentication`) is returned as it is.
    public nonisolated func perform(_ request: TransportRequest) async throws -> TransportResponse {
        try FlowError.requireSecure(request.url)
        let tokens = try await validTokens()
        let (environment, identity, provider) = (client.environment, client.configuration.tlsIdentity, client.provider.id)
        let first = try await tokens.send(request, environment: environment, clientIdentity: identity, provider: provider)
        guard first.refusesToken else { return first }
        logger.debug("resource answered 401; refreshing once", metadata: ["session": "\(key)"])
        let refreshed = try await refresh(replacing: tokens.accessToken)
        return try await refreshed.tokens.send(request, environment: environment, clientIdentity: identity, provider: provider)
    }

    /// The session's tokens as held, without a refresh (a refresh token or an ID token to hand out, whatever the
    /// access token's expiry): the session's origin checked as for every token, and a session a security event marked for
    /// a new sign-in refused. ``session()`` gives a marked session too, for revoking and signing out.
    ///
    /// - Throws: ``SessionError`` `notSignedIn`, `sessionMismatch`, `reauthenticationRequired`.
    public func heldTokens() async throws -> TokenSet {
        let current = try await session()
        try current.requireNoReauthentication()
        return current.tokens
    }

    /// The session's tokens, their access token valid for at least ``skew`` more seconds (refreshed if needed).
    public nonisolated func validTokens() async throws -> TokenSet {
        // Waiting happens outside the actor, so 10,000 waiters resume in parallel rather than one by one.
        switch try await stepForValidToken() {
        case let .ready(session): return session.tokens
        case let .pending(task): return try await task.value.tokens
        }
    }

    /// The session's userinfo claims, checked against its ID token's subject like ``OAuthClient/userInfo(_:)``.
    ///
    /// Refreshes first when the access token is stale, and once more after a 401.
    /// - Throws: ``IDTokenError`` `subjectMismatch` when userinfo is about someone else, and what
    ///   ``OAuthClient/userInfo(_:)`` throws.
    public nonisolated func userInfo() async throws -> [String: JSONValue] {
        _ = try await validAccessToken()
        let current = try await session()
        do {
            return try await client.userInfo(current.tokens)
        } catch let error as AuthorizationServerError where error.httpStatus == 401 {
            logger.debug("userinfo answered 401; refreshing once", metadata: ["session": "\(key)"])
            let refreshed = try await refresh(replacing: current.tokens.accessToken)
            return try await client.userInfo(refreshed.tokens)
        }
    }

    /// The grant the session's tokens belong to, from the provider's grant management API (``OAuthClient/grant(of:)``).
    ///
    /// Refreshes first when the access token is stale, and once more after a 401.
    /// - Returns: The grant; nil when the server no longer knows it (revoked).
    /// - Throws: what ``OAuthClient/grant(of:)`` throws.
    public nonisolated func grant() async throws -> ManagedGrant? {
        _ = try await validAccessToken()
        let current = try await session()
        do {
            return try await client.grant(of: current.tokens)
        } catch let error as AuthorizationServerError where error.httpStatus == 401 {
            let refreshed = try await refresh(replacing: current.tokens.accessToken)
            return try await client.grant(of: refreshed.tokens)
        }
    }

    /// Revokes the session's grant at the provider (``OAuthClient/revokeGrant(of:)``), with an access token refreshed
    /// first when stale, which revokes the grant's tokens with it; then deletes the session. A session whose revocation failed is kept, so the host can try again.
    ///
    /// - Returns: Whether the server revoked the grant: false when it no longer knew it (the session is deleted all the same).
    /// - Throws: ``SessionError`` `notSignedIn` when there is no session, what ``OAuthClient/revokeGrant(of:)`` throws,
    ///   and store errors.
    @discardableResult
    public func revokeGrant() async throws -> Bool {
        _ = try await validAccessToken()
        // Under the store's lock, read afresh: a refresh another process finished meanwhile is what is revoked and
        // removed, never written back after the removal.
        let lock = try await store.lock(key)
        defer { lock.release() }
        reload()
        let current = try await session()
        let revoked = try await client.revokeGrant(of: current.tokens)
        try await removeSession()
        return revoked
    }

    /// The session's user in the one profile shape (the descriptor's `profile`): from the stored
    /// ID token (its signature, issuer and audience checked again first), userinfo, and the
    /// descriptor's extra call.
    ///
    /// - Throws: ``IDTokenError`` when the stored ID token does not verify; what
    ///   ``OAuthClient/profile(_:idToken:userInfo:callback:)`` throws.
    public nonisolated func profile() async throws -> UserProfile {
        _ = try await validAccessToken()
        let current = try await session()
        var claims: [String: JSONValue]?
        if let idToken = current.tokens.idToken {
            claims = try await client.storedIDTokenClaims(idToken).all
        }
        return try await client.profile(current.tokens, idToken: claims)
    }

    /// What ``signOut(endingProviderSession:)`` did.
    public struct SignOut: Sendable {
        /// Whether the provider has a revocation endpoint (in its descriptor or its discovery document).
        public let revocationAvailable: Bool
        /// Why revoking failed, when it did; the session was deleted all the same.
        public let revocationError: (any Error)?
        /// The request that ends the provider's session, to open in the user's browser, when one was asked for
        /// and the provider has an end-session endpoint.
        public let endSession: OAuthClient.EndSessionRequest?
        /// Why no end-session request could be made, when one was asked for: ``FlowError`` `noEndSessionEndpoint`
        /// for a provider without one (signed out here; the provider's session stays).
        public let endSessionError: (any Error)?
    }

    /// What the provider's end-session request carries besides the session's ID token.
    public struct EndSessionOptions: Sendable, Hashable {
        /// Where the browser returns after the provider's logout; registered at the provider. Nil lets the
        /// provider show its own page (and sends no `state`).
        public var postLogoutRedirectURI: URL?
        public var logoutHint: String?
        public var uiLocales: [String]

        public init(postLogoutRedirectURI: URL? = nil, logoutHint: String? = nil, uiLocales: [String] = []) {
            self.postLogoutRedirectURI = postLogoutRedirectURI
            self.logoutHint = logoutHint
            self.uiLocales = uiLocales
        }
    }

    /// The store's lock on this session.
    func lockSession() async throws -> any TokenStoreLock { try await store.lock(key) }

    /// Removes the session from the store and forgets it; the caller holds the store's lock.
    func removeSession() async throws {
        try await store.remove(key)
        forgetSession()
    }

    /// Forgets the session once it is gone from the store.
    private func forgetSession() {
        cached = nil
        onChange?(nil)
    }

    /// Forgets the cached session, so the next call reads the store again.
    public func reload() {
        cached = nil
        // Nor does it join a read begun before: under a lock just taken, that read may predate another process's write.
        storeChanged()
    }
}
