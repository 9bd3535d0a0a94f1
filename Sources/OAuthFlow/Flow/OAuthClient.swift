import Foundation
import Logging

/// Runs the authorization code flow with PKCE against one resolved provider.
///
/// ```swift
/// let provider = try registry.provider(named: "auth0").resolve(["domain": "example.us.auth0.com"])
/// let client = OAuthClient(provider: provider, configuration: ClientConfiguration(
///     clientID: "abc", redirectURI: URL(string: "http://127.0.0.1:8765/callback")!))
/// let pending = try await client.startAuthorization()
/// // open pending.url in the browser; receive the redirect
/// let tokens = try await client.finishAuthorization(callback: redirectURL, pending: pending)
/// let me = try await client.userInfo(tokens)
/// ```
///
/// The client is an actor so that a pending authorization completes at most once,
/// however many callbacks arrive.
public actor OAuthClient {
    public nonisolated let provider: Provider
    public nonisolated let configuration: ClientConfiguration
    private let transport: any HTTPTransport
    let logger: Logger
    let clock: any DateClock
    /// States of completed authorizations, with when they completed; pruned after ``completedStateMemory``.
    private var completedStates: [String: Date] = [:]
    /// How long a completed state is remembered: longer than any pending authorization lives.
    static let completedStateMemory: TimeInterval = 3600
    private let discovery: DiscoveryClient
    /// The provider with discovered endpoints, once discovery has run (or was not needed).
    private var complete: Provider?
    private var validator: IDTokenValidator?
    /// The client secret last signed (`client_auth.generated_secret`), and when it expires.
    private var generatedSecret: (secret: Secret, expiresAt: Date)?
    /// The latest DPoP nonce of each server (RFC 9449 §8).
    public nonisolated let nonces: DPoPNonces

    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - configuration: The registered client.
    ///   - transport: How to send requests; defaults to a ``DefaultHTTPTransport``.
    ///   - logger: Receives debug and trace lines; secrets are never logged.
    ///   - clock: The wall clock, for issue and expiry times.
    ///   - nonces: Where the servers' DPoP nonces are kept; the process's by default.
    public init(
        provider: Provider, configuration: ClientConfiguration, transport: any HTTPTransport = DefaultHTTPTransport(),
        logger: Logger = Logger(label: "oauthflow", factory: { _ in SwiftLogNoOpLogHandler() }),
        clock: any DateClock = SystemDateClock(), nonces: DPoPNonces = .shared
    ) {
        self.nonces = nonces
        self.provider = provider
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        self.clock = clock
        self.discovery = DiscoveryClient(transport: transport, clock: clock)
    }

    /// An endpoint: the descriptor's, or, when it names none and asks for discovery, the discovery document's.
    ///
    /// - Throws: ``FlowError`` `missingEndpoint` saying where it was looked for.
    func endpoint(_ slot: KeyPath<Provider.Endpoints, URL?>, _ name: String) async throws -> URL {
        if let url = provider.endpoints[keyPath: slot] { return url }
        guard provider.usesDiscovery else {
            throw FlowError(
                .missingEndpoint, "provider `\(provider.id)` has no \(name) endpoint: its descriptor names none and does not use discovery")
        }
        guard let url = try await discoveredProvider().endpoints[keyPath: slot] else {
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no \(name) endpoint: neither its descriptor nor its discovery document (\(provider.discoveryURL?.absoluteString ?? "")) names one"
            )
        }
        return url
    }

    /// The revocation endpoint: the descriptor's, the discovery document's, or, when an OpenID
    /// discovery document names none, the issuer's RFC 8414 metadata's (asked for only here).
    public func revocationEndpoint() async throws -> URL? {
        if let url = provider.endpoints.revocation { return url }
        guard provider.usesDiscovery else { return nil }
        let discovered = try await discoveredProvider()
        if let url = discovered.endpoints.revocation { return url }
        let completed = await discovered.completingRevocation(with: discovery, logger: logger)
        complete = completed
        return completed.endpoints.revocation
    }

    /// The device authorization endpoint, from the descriptor or discovery.
    func deviceEndpoint() async throws -> URL {
        try await endpoint(\.deviceAuthorization, "device authorization")
    }

    /// The provider with every endpoint discovery adds: discovery runs at most once per client (the
    /// provider it was given, when that was already discovered or needs no discovery).
    public func discoveredProvider() async throws -> Provider {
        if let complete { return complete }
        let discovered = try await provider.discovered(with: discovery, logger: logger)
        complete = discovered
        return discovered
    }

    /// Builds the authorization request: the URL to open, and what the callback will be checked against.
    ///
    /// When the provider takes pushed authorization requests (``Provider/pushesAuthorizationRequests``), every
    /// parameter is POSTed to it first, with client authentication, and the URL carries only `client_id` and
    /// `request_uri` (RFC 9126). When tokens are to be DPoP-bound, the session's key is made here and its
    /// thumbprint sent as `dpop_jkt` (RFC 9449 §10).
    /// - Throws: ``FlowError`` (`missingEndpoint`, `pushedAuthorization`, `dpop`), ``AuthorizationServerError``
    ///   when the pushed request is refused, ``DiscoveryError``, ``TransportError``.
    public func startAuthorization() async throws -> PendingAuthorization {
        // A client that cannot authenticate at the token endpoint could only fail after the user consented.
        _ = try configuration.authenticationMethod(for: provider)
        let target = try await providerForAuthorization()
        let key = try proofKey(for: target)
        let pending: PendingAuthorization
        if target.pushesAuthorizationRequests {
            pending = try await push(to: target, proofKey: key)
        } else {
            pending = try PendingAuthorization.start(provider: target, client: configuration, proofKey: key, now: clock.now())
        }
        logger.debug(
            "authorization started",
            metadata: [
                "provider": "\(provider.id)", "scopes": "\(pending.scopes.joined(separator: " "))", "pushed": "\(pending.requestExpiresAt != nil)",
                "dpop": "\(key != nil)",
            ])
        return pending
    }

    /// The provider an authorization request is built for. Discovery runs first only when the request needs it:
    /// no authorization endpoint in the descriptor, `pushed: always` without `endpoints.pushed_authorization`, or
    /// `dpop: if_supported`. A provider with static endpoints otherwise starts offline, and pushes with
    /// `if_supported` when its descriptor names the endpoint or it was discovered before (as
    /// ``ProviderRegistry/resolve(_:variables:discovery:)`` does).
    private func providerForAuthorization() async throws -> Provider {
        guard provider.usesDiscovery else { return provider }
        let policy = provider.policy
        let mayNeed =
            provider.endpoints.authorization == nil || policy.pushedAuthorization == .always && provider.endpoints.pushedAuthorization == nil
            || policy.dpop.use == .ifSupported
        return mayNeed ? try await discoveredProvider() : (complete ?? provider)
    }

    /// Pushes the authorization request (RFC 9126 §2) and builds the URL the browser opens from the answer.
    private func push(to target: Provider, proofKey: DPoPKey?) async throws -> PendingAuthorization {
        guard let endpoint = target.endpoints.pushedAuthorization else {
            let why =
                target.capabilities.requiresPushedAuthorization
                ? "its discovery document requires pushed authorization requests" : "its descriptor says `authorization.pushed: always`"
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no pushed authorization request endpoint, but \(why); set `endpoints.pushed_authorization`")
        }
        let request = try PendingAuthorization.Request(provider: target, client: configuration, proofKey: proofKey)
        let sentAt = clock.now()
        let response = try await post(to: endpoint, request.parameters, encoding: .form)
        let pushed = try PushedRequest(response, endpoint: endpoint, provider: provider.id)
        return try request.pending(
            url: try PendingAuthorization.url(target, [("client_id", configuration.clientID), ("request_uri", pushed.requestURI)]),
            requestExpiresAt: sentAt.addingTimeInterval(pushed.lifetime), now: sentAt)
    }

    /// The key a new session's tokens are bound to, or nil when DPoP is not used for `target`
    /// (``ProviderPolicy/DPoPPolicy``, and discovery's `dpop_signing_alg_values_supported`).
    ///
    /// - Throws: ``FlowError`` `dpop` when DPoP is required and the server lists no algorithm the descriptor allows.
    func proofKey(for target: Provider) throws -> DPoPKey? {
        let policy = target.policy.dpop
        let offered = target.capabilities.dpopAlgorithms ?? []
        let common = policy.algorithms.first { offered.contains($0.rawValue) }
        switch policy.use {
        case .never:
            return nil
        case .ifSupported:
            guard let common else {
                if !offered.isEmpty {
                    logger.info("no DPoP algorithm in common; tokens stay Bearer", metadata: ["provider": "\(provider.id)"])
                }
                return nil
            }
            return try DPoPKey.generate(common)
        case .required:
            if offered.isEmpty { return try DPoPKey.generate(policy.algorithms[0]) }
            guard let common else {
                throw FlowError(
                    .dpop,
                    "provider `\(provider.id)` requires DPoP, but its server signs proofs with \(offered.joined(separator: ", ")) and the descriptor allows \(policy.algorithms.map(\.rawValue).joined(separator: ", ")) (`security.dpop_signing_alg_values_supported`)"
                )
            }
            return try DPoPKey.generate(common)
        }
    }

    /// The key for a token request outside a sign-in (device, service grants): discovery first when DPoP depends on it.
    func newProofKey() async throws -> DPoPKey? {
        guard provider.policy.dpop.use != .never else { return nil }
        return try proofKey(for: provider.usesDiscovery ? try await discoveredProvider() : provider)
    }

    /// Tokens from a request that carried a proof from `key`: bound to it when the server says `token_type: DPoP`;
    /// a Bearer answer is refused or kept unbound, as `security.dpop_bearer_answer` says.
    func bound(_ tokens: TokenSet, key: DPoPKey?) throws -> TokenSet {
        var result = tokens
        guard let key else {
            guard tokens.tokenType != "dpop" else {
                throw FlowError(.dpop, "provider `\(provider.id)` issued a DPoP-bound token to a request that sent no DPoP proof")
            }
            return tokens
        }
        if tokens.tokenType == "dpop" {
            result.proofKey = key
            return result
        }
        switch provider.policy.dpop.bearerAnswer {
        case .accept:
            logger.info("DPoP was asked for, the server issued Bearer tokens", metadata: ["provider": "\(provider.id)"])
            result.proofKey = nil
            return result
        case .refuse:
            throw FlowError(
                .dpop,
                "provider `\(provider.id)` answered a DPoP token request with `token_type: \(tokens.tokenType)`: the tokens are not bound to the key; set `security.dpop_bearer_answer: accept` to keep such tokens as Bearer tokens"
            )
        }
    }

    /// Checks the redirect the browser was sent to and exchanges its code for tokens.
    ///
    /// - Throws: ``AuthorizationServerError`` for an error redirect or a token endpoint error;
    ///   ``FlowError`` for a rejected callback (state, `iss`, missing code, second completion)
    ///   or an unusable token response; ``TransportError`` when the server cannot be reached.
    public func finishAuthorization(callback url: URL, pending: PendingAuthorization) async throws -> TokenSet {
        try await finishSignIn(callback: url, pending: pending).tokens
    }

    /// Like ``finishAuthorization(callback:pending:)``, for a `response_mode=form_post` body.
    public func finishAuthorization(formPost body: Data, pending: PendingAuthorization) async throws -> TokenSet {
        try await finishSignIn(formPost: body, pending: pending).tokens
    }

    /// What a completed authorization established: the tokens and, for OpenID Connect, the verified ID token.
    public struct SignInOutcome: Sendable {
        public let tokens: TokenSet
        /// The ID token's claims, verified (signature, issuer, audience, expiry, nonce, `at_hash`); nil for plain OAuth.
        public let idToken: IDTokenClaims?
        /// What else the provider put in the callback besides `code`, `state` and `iss`: Sign in with Apple's `user`
        /// (the name and e-mail, sent on the first consent only), a JSON value parsed as such. It is not signed:
        /// the descriptor's `profile` reads it (`callback.` sources) only where the provider sends nothing better.
        public var callback: [String: JSONValue] = [:]
    }

    /// Like ``finishAuthorization(callback:pending:)``, also handing back the verified ID token claims.
    public func finishSignIn(callback url: URL, pending: PendingAuthorization) async throws -> SignInOutcome {
        let callback = try AuthorizationCallback(url: url, expectedRedirectURI: pending.redirectURI)
        return try await finish(callback, pending: pending)
    }

    /// Like ``finishAuthorization(formPost:pending:)``, also handing back the verified ID token claims.
    public func finishSignIn(formPost body: Data, pending: PendingAuthorization) async throws -> SignInOutcome {
        try await finish(try AuthorizationCallback(formBody: body), pending: pending)
    }

    /// Checks a callback (``AuthorizationCallback/validate(for:provider:)``) against the server's metadata when
    /// it matters: a callback without `iss` under `iss_parameter: if_present` is checked again once discovery
    /// has run, and refused when the server says it sends `iss` (RFC 9207 §2.4). Only a callback that passed
    /// every other check (its `state` above all) can cause that discovery request.
    ///
    /// - Returns: The authorization code.
    public func check(_ callback: AuthorizationCallback, pending: PendingAuthorization) async throws -> Secret {
        let known = complete ?? provider
        let code = try callback.validate(for: pending, provider: known)
        guard callback.parameters["iss"] == nil, !known.isDiscovered, known.usesDiscovery, known.policy.issParameter == .ifPresent,
            let discovered = try? await discoveredProvider()
        else {
            // No metadata in hand (a descriptor whose endpoints are all its own, a document that cannot be had):
            // `if_present` stays what it says.
            return code
        }
        return try callback.validate(for: pending, provider: discovered)
    }

    private func finish(_ callback: AuthorizationCallback, pending: PendingAuthorization) async throws -> SignInOutcome {
        guard pending.providerID == provider.id else {
            throw FlowError(.invalidCallback, "the pending authorization is for provider `\(pending.providerID)`, not `\(provider.id)`")
        }
        guard completedStates[pending.state.value] == nil else {
            throw FlowError(.alreadyCompleted, "this authorization was already completed; start a new one")
        }
        let code = try await check(callback, pending: pending)
        // Mark before the network call: a second callback racing this one must not also spend the code.
        rememberCompleted(pending.state.value)
        logger.debug("callback accepted", metadata: ["provider": "\(provider.id)", "code": "\(code)"])
        var parameters = [
            ("grant_type", "authorization_code"),
            ("code", code.value),
            ("redirect_uri", pending.redirectURI.absoluteString),
        ]
        if let pkce = pending.pkce { parameters.append(("code_verifier", pkce.verifier.value)) }
        let response = try await tokenRequest(parameters, proofKey: pending.proofKey)
        let tokens = try bound(
            explainingEncoding(sent: parameters) {
                try TokenResponseParser.tokenSet(
                    from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.separator,
                    defaultTokenType: provider.policy.defaultTokenType,
                    requestedScopes: pending.scopes, previous: nil, now: clock.now())
            }, key: pending.proofKey)
        var verified: IDTokenClaims?
        if provider.isOpenIDConnect, pending.scopes.contains("openid") {
            guard let idToken = tokens.idToken else {
                throw IDTokenError(.missing, "provider `\(provider.id)` returned no ID token for an OpenID Connect sign-in")
            }
            let claims = try await idTokenValidator().validate(idToken, nonce: pending.nonce, accessToken: tokens.accessToken)
            logger.debug("ID token verified", metadata: ["provider": "\(provider.id)", "sub": "\(claims.subject)"])
            verified = claims
        }
        logger.debug(
            "tokens issued",
            metadata: [
                "provider": "\(provider.id)", "scopes": "\(tokens.scopes.joined(separator: " "))",
                "refresh_token": "\(tokens.refreshToken != nil)", "id_token": "\(tokens.idToken != nil)",
            ])
        var outcome = SignInOutcome(tokens: tokens, idToken: verified)
        outcome.callback = Self.callbackFields(callback.parameters)
        return outcome
    }

    /// The callback's other parameters: at most 16, of at most 8 KiB each; a JSON object or array is parsed.
    static func callbackFields(_ parameters: [String: String]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }).prefix(32)
        where !["code", "state", "iss", "session_state"].contains(name) && value.utf8.count <= 8192 && fields.count < 16 {
            if value.first == "{" || value.first == "[", let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8)) {
                fields[name] = parsed
            } else {
                fields[name] = .string(value)
            }
        }
        return fields
    }

    /// Remembers a completed state; states older than ``completedStateMemory`` are forgotten,
    /// so a long-lived client (a web server's) does not grow without bound.
    private func rememberCompleted(_ state: String) {
        let now = clock.now()
        if completedStates.count >= 1024 {
            completedStates = completedStates.filter { now.timeIntervalSince($0.value) < Self.completedStateMemory }
        }
        completedStates[state] = now
    }

    /// Fetches the keys a refreshed ID token of `tokens` will be checked with, before the refresh token is
    /// spent: the check after the answer does not wait for them, and this process's first answer is not the
    /// one whose record is delayed (the response path has run once, warm, before the answer that matters).
    /// Nothing for plain OAuth or a session without an ID token; a failure is left for the check.
    func prefetchRefreshKeys(for tokens: TokenSet) async {
        guard provider.isOpenIDConnect, tokens.idToken != nil, tokens.refreshToken != nil else { return }
        await (try? idTokenValidator())?.prefetchKeys()
    }

    /// Uses the refresh token for a new access token (RFC 6749 §6).
    ///
    /// When the server does not rotate the refresh token, the old one is kept.
    /// - Parameters:
    ///   - arrived: Called synchronously with a successful (2xx) answer, unparsed, on the thread
    ///     that read its last byte, so that a caller can make it durable at once: a rotating
    ///     server has already invalidated the old refresh token at that point.
    ///   - received: Called once the answer is parsed, with what may be kept of it before any
    ///     check. When the answer carries a new ID token, which is yet to be checked, that is
    ///     ``TokenSet/keepingRefreshToken(of:)`` (the new refresh token with the previous, verified
    ///     identity): nothing unverified may be adopted if the caller dies before the check.
    /// - Throws: ``AuthorizationServerError`` (`invalid_grant` when the refresh token is
    ///   spent or revoked), ``FlowError``, or ``TransportError``.
    public func refresh(
        _ tokens: TokenSet, scopes: [String]? = nil, arrived: (@Sendable (HTTPResponse) -> Void)? = nil,
        received: (@Sendable (TokenSet) async throws -> Void)? = nil
    ) async throws -> TokenSet {
        guard let refreshToken = tokens.refreshToken else {
            throw FlowError(.noRefreshToken, "the session has no refresh token; sign in again")
        }
        var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value)]
        if let scopes { parameters.append(("scope", provider.policy.scopes.joined(scopes))) }
        let provider = self.provider
        let clock = self.clock
        let parse = { @Sendable (response: HTTPResponse) throws -> TokenSet in
            try TokenResponseParser.tokenSet(
                from: response, format: provider.policy.tokenResponseFormat, separator: provider.policy.scopes.separator,
                defaultTokenType: provider.policy.defaultTokenType,
                requestedScopes: scopes ?? tokens.scopes, previous: tokens, now: clock.now())
        }
        /// What may be kept before the ID token is checked.
        let keepable = { @Sendable (refreshed: TokenSet) -> TokenSet in
            let unchecked = provider.isOpenIDConnect && refreshed.idToken != nil && refreshed.idToken != tokens.idToken
            return unchecked ? refreshed.keepingRefreshToken(of: tokens) : refreshed
        }
        var arrival: (@Sendable (HTTPResponse) -> Void)?
        if let arrived {
            arrival = { response in
                if (200..<300).contains(response.status) { arrived(response) }
            }
        }
        let response = try await tokenRequest(parameters, proofKey: tokens.proofKey, arrival: arrival)
        let refreshed = try bound(explainingEncoding(sent: parameters) { try parse(response) }, key: tokens.proofKey)
        let unchecked = keepable(refreshed) != refreshed
        try await received?(keepable(refreshed))
        if unchecked, let idToken = refreshed.idToken {
            // A refreshed ID token carries no nonce (OpenID Connect Core §12.2) but must name the same subject.
            _ = try await idTokenValidator().validateRefreshed(idToken, previous: tokens.idToken, accessToken: refreshed.accessToken)
        }
        logger.debug(
            "tokens refreshed",
            metadata: [
                "provider": "\(provider.id)", "rotated": "\(refreshed.refreshToken != tokens.refreshToken)",
            ])
        return refreshed
    }

    /// Calls the userinfo endpoint with the access token as a Bearer token.
    ///
    /// - Returns: The claims, as a JSON object.
    /// - Throws: ``AuthorizationServerError`` with the HTTP status for 4xx answers
    ///   (401 `invalid_token` after revocation), ``FlowError``, or ``TransportError``.
    public func userInfo(_ tokens: TokenSet) async throws -> [String: JSONValue] {
        let endpoint = try await endpoint(\.userinfo, "userinfo")
        let response = try await profileRequest(endpoint, tokens, method: provider.policy.userinfo.method, label: "userinfo")
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: response.body) else {
            throw FlowError(.invalidUserInfo, "the userinfo endpoint did not answer with a JSON object (HTTP \(response.status))")
        }
        // OpenID Connect Core §5.3.2: userinfo must be about the ID token's subject.
        if let idToken = tokens.idToken, let (_, idClaims) = try? IDTokenValidator.decodeUnverified(idToken.value),
            let subject = idClaims["sub"]?.stringValue, claims["sub"]?.stringValue != subject
        {
            throw IDTokenError(
                .subjectMismatch,
                "userinfo is about subject `\(claims["sub"]?.stringValue ?? "(none)")`, not the ID token's `\(subject)`")
        }
        return claims
    }

    /// The claims of an ID token kept from an earlier sign-in, verified again (signature, issuer,
    /// audience; not its expiry) before anything shows or maps them.
    ///
    /// - Throws: ``IDTokenError`` naming the check that failed.
    public func storedIDTokenClaims(_ idToken: Secret) async throws -> IDTokenClaims {
        try await idTokenValidator().validateStored(idToken)
    }

    /// The user's profile in the one shape every provider maps to (the descriptor's `profile`).
    ///
    /// Reads userinfo when the mapping uses it and `userInfo` was not given, and makes the
    /// descriptor's one extra call when the mapping uses `extra.` sources. With an ID token,
    /// a failing userinfo or extra call only leaves those fields empty; without one, it throws.
    /// - Parameters:
    ///   - idToken: The ID token's claims, verified (``SignInOutcome/idToken``).
    ///   - userInfo: Userinfo already read, to save the round trip.
    public func profile(
        _ tokens: TokenSet, idToken: [String: JSONValue]?, userInfo: [String: JSONValue]? = nil, callback: [String: JSONValue]? = nil
    ) async throws -> UserProfile {
        let mapping = provider.profile
        let roots = mapping.roots
        var info = userInfo
        if info == nil, roots.contains("userinfo"), provider.endpoints.userinfo != nil || provider.usesDiscovery {
            do {
                info = try await self.userInfo(tokens)
            } catch let error as IDTokenError {
                throw error
            } catch {
                if idToken == nil { throw error }
                logger.debug("userinfo unavailable for the profile", metadata: ["provider": "\(provider.id)"])
            }
        }
        var extra: JSONValue?
        if roots.contains("extra"), let url = mapping.extraCall {
            do {
                extra = UserProfile.pick(try await profileCall(url, tokens), where: mapping.extraCallPickWhere)
            } catch {
                if idToken == nil && info == nil { throw error }
                logger.debug("the profile's extra call failed", metadata: ["provider": "\(provider.id)"])
            }
        }
        return UserProfile.map(mapping, idToken: idToken, userInfo: info, extra: extra, callback: callback)
    }

    /// The descriptor's extra profile call: a GET with the access token, answered with JSON.
    private func profileCall(_ url: URL, _ tokens: TokenSet) async throws -> JSONValue {
        let response = try await profileRequest(url, tokens, method: .get, label: "the profile's extra call")
        guard let answer = try? JSONDecoder().decode(JSONValue.self, from: response.body) else {
            throw FlowError(.invalidUserInfo, "the profile call to \(url.host ?? "the provider") did not answer with JSON (HTTP \(response.status))")
        }
        return answer
    }

    /// A request for the user's profile (userinfo, the extra call) with the access token and the
    /// descriptor's userinfo headers (GitHub needs its `User-Agent` on both); non-2xx throws.
    private func profileRequest(_ url: URL, _ tokens: TokenSet, method: RequestMethod, label: String) async throws -> HTTPResponse {
        var headers = provider.policy.userinfo.headers
        if headers["Accept"] == nil { headers["Accept"] = "application/json" }
        let response = try await tokens.send(
            HTTPRequest(method: method, url: url, headers: headers), transport: transport, nonces: nonces, clock: clock)
        logger.trace("\(label) answered", metadata: ["provider": "\(provider.id)", "status": "\(response.status)"])
        guard (200..<300).contains(response.status) else {
            // The access token went in a header: an error answer that echoes it must not carry it into the error.
            throw Self.resourceError(SentSecrets(values: [tokens.accessToken.value]).scrub(response))
        }
        return response
    }

    /// Which token to revoke (RFC 7009 §2.1 `token_type_hint`).
    public enum TokenKind: String, Sendable {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
    }

    /// Revokes a token at the revocation endpoint (RFC 7009).
    ///
    /// - Parameter proofKey: The DPoP key of the session the token belongs to: the request carries a proof from it.
    /// - Throws: ``AuthorizationServerError`` when the server refuses, ``FlowError``, or ``TransportError``.
    public func revoke(_ token: Secret, kind: TokenKind, proofKey: DPoPKey? = nil) async throws {
        guard let endpoint = try await revocationEndpoint() else {
            throw FlowError(
                .missingEndpoint,
                "provider `\(provider.id)` has no revocation endpoint: neither its descriptor nor its discovery document names one (set `endpoints.revocation`)"
            )
        }
        let response = try await post(to: endpoint, [("token", token.value), ("token_type_hint", kind.rawValue)], proofKey: proofKey)
        guard (200..<300).contains(response.status) else { throw Self.refusal(response, from: "revocation") }
        logger.debug("token revoked", metadata: ["provider": "\(provider.id)", "kind": "\(kind.rawValue)"])
    }

    /// The error for an endpoint's answer that is not a success: the server's OAuth error when the body
    /// holds one, else ``FlowError`` `unexpectedStatus` naming the endpoint and the status.
    private static func refusal(_ response: HTTPResponse, from endpoint: String) -> any Error {
        let fields = try? TokenResponseParser.fields(of: response, format: .auto)
        return fields.flatMap { TokenResponseParser.serverError(in: $0, status: response.status) }
            ?? FlowError(.unexpectedStatus, "the \(endpoint) endpoint answered HTTP \(response.status)")
    }

    /// Asks the provider about an access token (RFC 7662), authenticating as this client.
    ///
    /// The request is always form-encoded (RFC 7662 §2.1), whatever `token_request.body_encoding` says.
    /// - Returns: The answer's members; `active` says whether the token is valid.
    /// - Throws: ``FlowError`` `missingEndpoint` or `unexpectedStatus` (a redirect, an error status, or an
    ///   answer that is not a JSON object with a boolean `active`), ``AuthorizationServerError`` when the
    ///   server refuses the client, or ``TransportError``.
    public func introspect(_ token: Secret) async throws -> [String: JSONValue] {
        let endpoint = try await endpoint(\.introspection, "introspection")
        let response = try await post(to: endpoint, [("token", token.value), ("token_type_hint", "access_token")], encoding: .form)
        guard response.status == 200 else {
            if (300..<400).contains(response.status) {
                throw FlowError(.unexpectedStatus, "the introspection endpoint answered HTTP \(response.status) (a redirect), which is not followed")
            }
            throw Self.refusal(response, from: "introspection")
        }
        guard let answer = try? JSONDecoder().decode([String: JSONValue].self, from: response.body), case .bool? = answer["active"] else {
            throw FlowError(.unexpectedStatus, "the introspection endpoint's answer is not a JSON object with a boolean `active` (RFC 7662 §2.2)")
        }
        return answer
    }

    /// The ID token validator, given the discovered provider when the JWKS endpoint comes from discovery
    /// (the document this client already fetched: it is never fetched twice).
    func idTokenValidator() async throws -> IDTokenValidator {
        if let validator { return validator }
        let keysFrom = provider.endpoints.jwks == nil ? try await discoveredProvider() : provider
        let created = IDTokenValidator(
            provider: keysFrom, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            transport: transport, clock: clock)
        validator = created
        return created
    }

    // MARK: - Requests

    /// Adds a hint to the token endpoint's errors that a wrong `token_request.body_encoding` causes,
    /// only when the answer really points at the encoding: `unsupported_grant_type` (a `grant_type`
    /// was sent), or `invalid_request` whose description says a parameter that was sent is missing.
    /// A refresh refused otherwise is not about the encoding: its hint is to sign in again.
    ///
    /// - Parameters:
    ///   - parameters: The parameters the request sent (before client authentication is added).
    ///   - parse: Reads the answer; its ``AuthorizationServerError`` gets the hint.
    func explainingEncoding<T>(sent parameters: [(String, String)] = [], _ parse: () throws -> T) throws -> T {
        do {
            return try parse()
        } catch let error as AuthorizationServerError where ["unsupported_grant_type", "invalid_request"].contains(error.error) {
            var sent = Set(parameters.map(\.0))
            if let method = try? configuration.authenticationMethod(for: provider), method != .clientSecretBasic { sent.insert("client_id") }
            let description = (error.errorDescription ?? "").lowercased()
            let saysMissing = ["missing", "required", "absent", "not present", "not provided", "must be provided"]
                .contains { description.contains($0) }
            let namesSent = sent.contains { name in
                description.contains(name) || description.contains(name.replacingOccurrences(of: "_", with: " "))
            }
            if error.error == "unsupported_grant_type" || saysMissing && namesSent {
                let encoding = provider.policy.tokenRequest.encoding
                let other = encoding == .form ? "json" : "form"
                throw error.hinted(
                    "the token request was sent \(encoding == .form ? "form-encoded" : "as JSON") (`token_request.body_encoding: \(encoding.rawValue)`); if the provider expects the other encoding, set `body_encoding: \(other)`"
                )
            }
            if parameters.contains(where: { $0 == ("grant_type", "refresh_token") }) {
                throw error.hinted("the provider refused the refresh, so this session cannot be refreshed; sign in again")
            }
            throw error
        } catch let error as AuthorizationServerError
            where error.error == "invalid_client" && provider.policy.tokenRequest.encoding == .json
            && (try? configuration.authenticationMethod(for: provider)) != .clientSecretBasic
        {
            // The client's id (and secret) went in a JSON body: a server that reads only form bodies saw none.
            throw error.hinted(
                "the client was identified in a JSON body (`token_request.body_encoding: json`); if the provider reads form-encoded bodies only, it saw no client_id: set `body_encoding: form`"
            )
        } catch let error as AuthorizationServerError where ["invalid_client", "unauthorized_client"].contains(error.error) {
            // A server that refuses an assertion often refuses its audience (idpyoidc: "Not for me!"), which no method change fixes.
            // A refusal that names another cause (the algorithm, the signature, the key, the lifetime) is not about `aud`.
            let description = (error.errorDescription ?? "").lowercased()
            let otherCause = ["alg", "signature", "key", "expired", "exp ", "jti", "not yet valid", "certificate"].contains {
                description.contains($0)
            }
            guard !otherCause, let method = try? configuration.authenticationMethod(for: provider),
                method == .privateKeyJWT || method == .clientSecretJWT,
                let endpoint = (complete ?? provider).endpoints.token, let audience = try? assertionAudience(endpoint: endpoint)
            else { throw error }
            let setting = provider.policy.clientAssertion.audience
            let other: ClientAssertionAudience = setting == .issuer ? .tokenEndpoint : .issuer
            throw error.hinted(
                "the \(method.rawValue) assertion was sent with `aud` `\(audience)` (`client_auth.assertion_audience: \(setting.rawValue)`); if the provider expects its \(other == .issuer ? "issuer" : "token endpoint") there, set `assertion_audience: \(other.rawValue)`"
            )
        }
    }

    func tokenRequest(
        _ parameters: [(String, String)], proofKey: DPoPKey? = nil, arrival: (@Sendable (HTTPResponse) -> Void)? = nil
    ) async throws -> HTTPResponse {
        let endpoint = try await endpoint(\.token, "token")
        let response = try await post(to: endpoint, parameters, proofKey: proofKey, arrival: arrival)
        if (300..<400).contains(response.status) {
            throw FlowError(
                .unexpectedStatus,
                "the token endpoint answered HTTP \(response.status) (a redirect); OAuthFlow does not follow redirects with credentials")
        }
        logger.trace("token endpoint answered", metadata: ["provider": "\(provider.id)", "status": "\(response.status)"])
        return response
    }

    /// The client secret to send: the configured one, or, when the descriptor says the secret is a JWT the
    /// client signs (`client_auth.generated_secret`), one signed with the client's key, reused until a sixth of
    /// its lifetime is left.
    func clientSecret() async throws -> Secret? {
        guard let policy = provider.policy.generatedSecret, let key = configuration.signingKey else { return configuration.clientSecret }
        let now = clock.now()
        if let generatedSecret, generatedSecret.expiresAt.timeIntervalSince(now) > policy.lifetime / 6 { return generatedSecret.secret }
        let clientID = configuration.clientID
        let secret = try await ClientAssertion.generatedSecret(
            clientID: clientID, issuer: policy.issuer.replacingOccurrences(of: "{client_id}", with: clientID),
            audience: policy.audience.replacingOccurrences(of: "{client_id}", with: clientID), key: key, now: now, lifetime: policy.lifetime)
        generatedSecret = (secret, now.addingTimeInterval(policy.lifetime))
        return secret
    }

    /// POSTs to the token, revocation, device or pushed request endpoint with client authentication and the
    /// descriptor's encoding (or `encoding`), with a DPoP proof from `proofKey` when one is given.
    func post(
        to endpoint: URL, _ parameters: [(String, String)], encoding: TokenRequestEncoding? = nil, proofKey: DPoPKey? = nil,
        arrival: (@Sendable (HTTPResponse) -> Void)? = nil
    ) async throws -> HTTPResponse {
        let shape = provider.policy.tokenRequest
        var fields = parameters
        var headers = shape.headers
        let method = try configuration.authenticationMethod(for: provider)
        var endpoint = endpoint
        var identity: TLSClientIdentity?
        // The Basic secret travels in a header, not among the fields: named here so an echo of it is blanked too.
        var headerSecret: String?
        // A pushed authorization request already names the client (RFC 9126 §2.1): never twice.
        let named = fields.contains { $0.0 == "client_id" }
        let clientID = named ? [] : [("client_id", configuration.clientID)]
        switch method {
        case .none:
            fields += clientID
        case .clientSecretPost:
            fields += clientID
            if let secret = try await clientSecret() { fields.append(("client_secret", secret.value)) }
        case .clientSecretBasic:
            guard let secret = try await clientSecret() else {
                throw FlowError(.missingClientSecret, "provider `\(provider.id)` uses client_secret_basic but no client secret is configured")
            }
            // RFC 6749 §2.3.1: form-urlencode id and secret before joining and base64-encoding them.
            let credentials = FormEncoding.encode(configuration.clientID) + ":" + FormEncoding.encode(secret.value)
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
            headerSecret = secret.value
        case .clientSecretJWT, .privateKeyJWT:
            let key = method == .privateKeyJWT ? configuration.signingKey : nil
            try checkAssertionAlgorithm(key?.algorithm ?? .hs256)
            let assertion = try await ClientAssertion.make(
                clientID: configuration.clientID, audience: try assertionAudience(endpoint: endpoint), key: key,
                secret: configuration.clientSecret, now: clock.now())
            fields += clientID + [("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion.value)]
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            // RFC 8705 §2: the client id in the body, the certificate on the connection, at the mTLS alias when there is one.
            fields += clientID
            identity = configuration.tlsIdentity
            if let alias = try await mutualTLSAlias(for: endpoint) { endpoint = alias }
            guard endpoint.scheme?.lowercased() == "https" else {
                throw FlowError(
                    .clientAuthentication,
                    "`\(method.rawValue)` presents the client certificate over TLS, but \(endpoint.absoluteString) is not https (and discovery names no `mtls_endpoint_aliases` for it)"
                )
            }
        }
        try FlowError.requireSecure(endpoint)
        let body: Data
        switch encoding ?? shape.encoding {
        case .form:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(fields).utf8)
        case .json:
            headers["Content-Type"] = "application/json"
            // A parameter given more than once (RFC 8707 `resource`, `audience`) becomes a JSON array: none is dropped.
            var values: [String: [String]] = [:]
            for (name, value) in fields { values[name, default: []].append(value) }
            let object = values.mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any }
            body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        if headers["Accept"] == nil { headers["Accept"] = "application/json" }
        let request = HTTPRequest(method: .post, url: endpoint, headers: headers, body: body, clientIdentity: identity)
        var sent = SentSecrets(parameters: fields)
        if let headerSecret { sent.add(headerSecret) }
        let response: HTTPResponse
        if let proofKey {
            response = try await DPoPSending.send(
                request, key: proofKey, accessToken: nil, nonces: nonces, transport: transport, clock: clock, arrival: arrival)
        } else if let arrival {
            response = try await transport.send(request, arrival: arrival)
        } else {
            response = try await transport.send(request)
        }
        return sent.scrub(response)
    }

    /// The `aud` of a client assertion sent to `endpoint`: the issuer, or the endpoint itself (`client_auth.assertion_audience`).
    func assertionAudience(endpoint: URL) throws -> String {
        switch provider.policy.clientAssertion.audience {
        case .tokenEndpoint:
            return endpoint.absoluteString
        case .issuer:
            guard let issuer = provider.issuer else {
                throw FlowError(
                    .clientAuthentication,
                    "provider `\(provider.id)` has no issuer to address its client assertions to; set `issuer`, or `client_auth.assertion_audience: token_endpoint` if the provider documents that"
                )
            }
            return issuer.absoluteString
        }
    }

    /// Refuses an assertion algorithm the descriptor's `client_auth.assertion_algs` leaves out.
    private func checkAssertionAlgorithm(_ algorithm: JWSAlgorithm) throws {
        guard !provider.policy.clientAssertion.algorithms.contains(algorithm) else { return }
        let listed = provider.policy.clientAssertion.algorithms.map(\.rawValue).joined(separator: ", ")
        throw FlowError(
            .clientAuthentication, "provider `\(provider.id)` takes client assertions signed with \(listed), not \(algorithm.rawValue)")
    }

    /// The mutual-TLS alias of `endpoint` (RFC 8705 §5, discovery's `mtls_endpoint_aliases`), when it is the token endpoint and has one.
    private func mutualTLSAlias(for endpoint: URL) async throws -> URL? {
        let known = provider.usesDiscovery ? try await discoveredProvider() : provider
        guard endpoint == known.endpoints.token else { return nil }
        return known.endpoints.mtlsToken
    }

    /// The error for a protected-resource answer that is not 2xx (RFC 6750 §3).
    ///
    /// A redirect is a ``FlowError`` `unexpectedStatus` saying it was not followed (the request
    /// carries the access token), naming where it pointed.
    public static func resourceError(_ response: HTTPResponse) -> any Error {
        if (300..<400).contains(response.status) {
            let target = response.header("location").map { " to \(TerminalText.escaped(String($0.prefix(200))))" } ?? ""
            return FlowError(
                .unexpectedStatus,
                "the server answered HTTP \(response.status), a redirect\(target); OAuthFlow does not follow redirects with an access token")
        }
        if let challenge = response.header("www-authenticate"),
            let code = AuthenticationChallenge.parse(challenge).lazy.compactMap(\.error).first
        {
            return AuthorizationServerError(error: code, httpStatus: response.status)
        }
        if let fields = try? TokenResponseParser.fields(of: response, format: .auto),
            let error = TokenResponseParser.serverError(in: fields, status: response.status)
        {
            return error
        }
        return AuthorizationServerError(error: response.status == 401 ? "invalid_token" : "http_\(response.status)", httpStatus: response.status)
    }
}
