import Crypto
import Foundation
import Logging

/// One provider a ``ProtectedResource`` trusts: its keys, its introspection client, and the checks
/// of its tokens' claims.
final class TrustedProvider: Sendable {
    let index: Int
    let provider: Provider
    let policy: Provider.Policy.AccessTokenPolicy
    /// The `aud` its tokens must contain.
    let audience: String
    private let setup: Setup
    private let signingKeys = Locked<SigningKeys?>(nil)
    private let client: OAuthClient?
    private let flights = IntrospectionFlights()
    private let clock: any DateClock

    init(
        index: Int, provider: Provider, audience: String, introspectionClient: ClientConfiguration?, environment: OAuthEnvironment,
        discovery: DiscoveryClient?, refetchInterval: TimeInterval, maximumAge: TimeInterval
    ) {
        let clock = environment.clock
        self.index = index
        self.provider = provider
        self.policy = provider.policy.accessTokens
        self.audience = audience
        self.clock = clock
        setup = Setup(
            provider: provider, transport: environment.transport, clock: clock, logger: environment.logger, discovery: discovery,
            refetchInterval: refetchInterval, maximumAge: maximumAge, instruments: environment.instruments)
        client = introspectionClient.map { OAuthClient(provider: provider, configuration: $0, environment: environment, discovery: discovery) }
    }

    /// The JWKS cache, once made.
    var keys: SigningKeys? { signingKeys.current }

    /// The generation of the cached JWKS while it is younger than its maximum age; nil once it is older,
    /// so that tokens verified with it are checked again against a fresh one.
    func currentKeysGeneration(now: Date) -> Int? {
        signingKeys.current?.fresh(at: now)?.generation
    }

    /// Whether `iss` names this provider: its issuer, an alias, or its tenant template filled from the token's claims.
    func issues(_ iss: String, claims: [String: JSONValue]) -> Bool {
        !iss.isEmpty && provider.issuers.matchesIDToken(iss, claims: claims)
    }

    // MARK: - JWTs

    /// Verifies a JWT access token: header, signature, then claims.
    ///
    /// - Returns: The principal, and the generation of the JWKS that verified it.
    func verify(_ jws: CompactJWS, now: Date) async throws(ProtectedResource.Denial) -> (ProtectedResource.Principal, Int) {
        func refuse(_ why: String) -> ProtectedResource.Denial { ProtectedResource.Denial(.invalidToken, why) }
        let name = jws.algorithmName ?? ""
        guard let algorithm = JWSAlgorithm(rawValue: name), policy.algorithms.contains(algorithm) else {
            let listed = policy.algorithms.map(\.rawValue).joined(separator: ", ")
            throw refuse(
                "the token's `alg` `\(TerminalText.escaped(String(name.prefix(20))))` is not accepted for `\(provider.id)` (accepted: \(listed))")
        }
        if jws.header["crit"] != nil { throw refuse("the token's header marks an extension critical, and OAuthFlow understands none") }
        let type = jws.header["typ"]?.stringValue?.lowercased()
        switch policy.profile {
        case .rfc9068:
            guard type == "at+jwt" || type == "application/at+jwt" else {
                throw refuse("the token's `typ` is not `at+jwt` (`access_tokens.profile: rfc9068`, RFC 9068 §2.1)")
            }
        case .plain:
            guard type != "dpop+jwt" else { throw refuse("the token is a DPoP proof, not an access token") }
            guard type != "logout+jwt", type != "secevent+jwt" else { throw refuse("the token is a security event token, not an access token") }
        }
        let keyID = jws.keyID
        let snapshot = try await keys(for: keyID, now: now)
        if let keyID, !snapshot.mayVerify(keyID: keyID) {
            let named = "the token names key `\(TerminalText.escaped(String(keyID.prefix(80))))`"
            if let why = snapshot.refusal(ofKey: keyID) { throw refuse("\(named), which the JWKS of `\(provider.id)` holds as \(why)") }
            throw refuse("\(named), which is not in the JWKS of `\(provider.id)`")
        }
        guard snapshot.verifies(jws, algorithm: algorithm) else {
            if let keyID, snapshot.repeated.contains(keyID) {
                throw refuse(
                    "the token's signature does not verify (\(algorithm)) with the first of the keys the JWKS of `\(provider.id)` names `\(TerminalText.escaped(String(keyID.prefix(80))))`: it names that key more than once, and a token cannot say which it means"
                )
            }
            throw refuse("the token's signature does not verify (\(algorithm))")
        }
        if let kind = Self.otherKind(jws.claims) { throw refuse("the token is \(kind), not an access token") }
        let principal = try check(jws.claims, source: .jwt, now: now)
        return (principal, snapshot.generation)
    }

    /// Keys that may verify a token naming `keyID`: the cached set without waiting when it is fresh
    /// and has the key; otherwise through ``SigningKeys/snapshot(for:)``.
    private func keys(for keyID: String?, now: Date) async throws(ProtectedResource.Denial) -> SigningKeys.Snapshot {
        do {
            let keys = try await signingKeysMade()
            if let cached = keys.fresh(at: now), cached.mayVerify(keyID: keyID) {
                return cached
            }
            return try await keys.snapshot(for: keyID)
        } catch let denial as ProtectedResource.Denial {
            throw denial
        } catch {
            throw ProtectedResource.Denial(.unavailable, "the signing keys of `\(provider.id)` cannot be had: \(error)")
        }
    }

    /// Fetches the JWKS when it was never fetched or has lived `share` of its maximum age, so that requests
    /// find it fresh; nil for a provider whose tokens are only introspected.
    ///
    /// - Returns: When it should be looked at again: after a failure, the refetch interval (the cached set
    ///   stays in use until its maximum age, as it would without a refresher).
    func refreshKeysIfDue(share: Double = 0.8) async -> Date? {
        guard policy.format != .opaque else { return nil }
        let now = clock.now()
        do {
            let keys = try await signingKeysMade()
            let lifetime = keys.maximumAge * share
            if let cached = keys.cached, now.timeIntervalSince(cached.fetchedAt) < lifetime {
                return cached.fetchedAt.addingTimeInterval(lifetime)
            }
            let fetched = try await keys.refresh()
            return fetched.fetchedAt.addingTimeInterval(lifetime)
        } catch {
            setup.logger.info(
                "signing keys not refreshed; the cached set stays in use",
                metadata: ["provider": "\(provider.id)", "error": "\(error)"])
            return now.addingTimeInterval(setup.refetchInterval)
        }
    }

    private func signingKeysMade() async throws -> SigningKeys {
        if let made = signingKeys.current { return made }
        let made = try await setup.signingKeys()
        signingKeys.withLock { $0 = made }
        return made
    }

    /// The claims of a verified JWT or an active introspection answer, checked.
    private func check(_ claims: [String: JSONValue], source: ProtectedResource.Principal.Source, now: Date) throws(ProtectedResource.Denial)
        -> ProtectedResource.Principal
    {
        func refuse(_ why: String) -> ProtectedResource.Denial { ProtectedResource.Denial(.invalidToken, why) }
        let current = now.timeIntervalSince1970
        let leeway = policy.leeway
        func seconds(_ name: String, required: Bool) throws(ProtectedResource.Denial) -> Double? {
            guard let value = claims[name] else {
                if required { throw refuse("the token has no `\(name)`") }
                return nil
            }
            guard let number = value.numericDate else { throw refuse("the token's `\(name)` is not a number of seconds") }
            return number
        }
        let jwt = source == .jwt
        let profile = jwt && policy.profile == .rfc9068
        let expiry = try seconds("exp", required: jwt)
        if let expiry, expiry + leeway <= current { throw refuse("the token expired at \(Date(timeIntervalSince1970: expiry))") }
        if let notBefore = try seconds("nbf", required: false), notBefore - leeway > current {
            throw refuse("the token is not valid before \(Date(timeIntervalSince1970: notBefore))")
        }
        let issuedAt = try seconds("iat", required: profile)
        if let issuedAt, issuedAt - leeway > current { throw refuse("the token claims to be issued in the future") }
        if let iss = claims["iss"]?.stringValue {
            guard issues(iss, claims: claims) else {
                throw refuse("the token was issued by `\(TerminalText.escaped(String(iss.prefix(200))))`, not `\(provider.id)`")
            }
        } else if jwt {
            throw refuse("the token has no `iss`")
        }
        let audiences = audienceClaim(claims)
        if let audiences {
            guard audiences.contains(where: { ConstantTime.equals($0, audience) }) else {
                throw refuse("the token is not for this API (`aud` lacks `\(audience)`)")
            }
        } else if jwt || policy.introspectedAudience == .required {
            // An API that states its audience accepts only a token someone said was meant for it: a JWT's `aud`, or the
            // introspection answer's, unless the descriptor says this server's answers never name one.
            throw refuse(
                jwt
                    ? "the token has no `aud`, so it is not shown to be for this API"
                    : "the introspection answer names no `aud`, so the token is not shown to be for this API (a provider whose access tokens are JWTs says `access_tokens.format: both`, which checks the token's own `aud` (RFC 9068 §4); one whose introspection never names one and whose tokens are opaque says `access_tokens.introspected_audience: may_be_absent`, which leaves the audience unchecked)"
            )
        }
        // RFC 7519 §4.1, RFC 9068 §2.2, RFC 7662 §2.2: these are strings; a number in their place is read by nobody the same way.
        for name in Self.stringClaims {
            if let value = claims[name], value.stringValue == nil { throw refuse("the token's `\(name)` is not a string") }
        }
        let subject = claims["sub"]?.stringValue
        let clientID = claims["client_id"]?.stringValue ?? claims["azp"]?.stringValue
        let tokenID = claims["jti"]?.stringValue
        if profile {
            guard let subject, !subject.isEmpty else { throw refuse("the token has no `sub` (RFC 9068 §2.2)") }
            guard let clientID = claims["client_id"]?.stringValue, !clientID.isEmpty else {
                throw refuse("the token has no `client_id` (RFC 9068 §2.2)")
            }
            guard let tokenID, !tokenID.isEmpty else { throw refuse("the token has no `jti` (RFC 9068 §2.2)") }
        }
        let scopes: [String] =
            switch claims["scope"] ?? claims["scp"] {
            case let .string(text)?: text.split(separator: " ").map(String.init)
            case let .array(names)?: names.compactMap(\.stringValue)
            default: []
            }
        return ProtectedResource.Principal(
            providerID: provider.id, issuer: claims["iss"]?.stringValue ?? provider.issuer?.absoluteString ?? "", subject: subject,
            clientID: clientID, scopes: scopes, audiences: audiences ?? [], expiresAt: expiry.map(Date.init(timeIntervalSince1970:)),
            issuedAt: issuedAt.map(Date.init(timeIntervalSince1970:)), tokenID: tokenID, source: source,
            confirmation: ProtectedResource.Confirmation(claims["cnf"]), claims: claims)
    }

    /// What a JWT carries that only an ID token (OpenID Connect Core §3.1.3.6, §3.3.2.11), a logout token (Back-Channel
    /// Logout 1.0 §2.4) or a security event token (RFC 8417 §2.2) carries: signed by the API's provider for the API's
    /// audience (an app and its API one client, their `aud` the same), it is still no access token (RFC 9700 §2.2.2).
    /// `nonce` counts only beside no scope: some servers copy it into their access tokens, which carry scopes.
    static func otherKind(_ claims: [String: JSONValue]) -> String? {
        for name in ["at_hash", "c_hash", "s_hash"] where claims[name] != nil { return "an ID token (it has `\(name)`)" }
        if claims["events"] != nil { return "a logout or security event token (it has `events`)" }
        if claims["nonce"] != nil, claims["scope"] == nil, claims["scp"] == nil { return "an ID token (it has a `nonce` and no scope)" }
        // Keycloak names each token's kind in the claims: `Bearer` for access tokens.
        if let kind = claims["typ"]?.stringValue?.lowercased(), ["id", "logout", "refresh"].contains(kind) {
            return "a token of kind `\(kind)`"
        }
        return nil
    }

    /// The claims that must be strings when present (RFC 7519 §4.1, RFC 9068 §2.2, RFC 7662 §2.2).
    private static let stringClaims = ["iss", "sub", "client_id", "azp", "jti"]

    // MARK: - Introspection

    enum IntrospectionOutcome: Sendable {
        case active(ProtectedResource.Principal)
        case refused(ProtectedResource.Denial)
    }

    /// Introspects `token`, once however many requests ask at the same time; `remember` runs with the
    /// outcome before any of them sees it, so a request arriving after finds it remembered.
    func introspect(_ token: String, digest: SHA256Digest, remember: @escaping @Sendable (IntrospectionOutcome) -> Void) async -> IntrospectionOutcome
    {
        await flights.run(digest) { [self] in
            let outcome = await self.askProvider(token)
            remember(outcome)
            return outcome
        }
    }

    private func askProvider(_ token: String) async -> IntrospectionOutcome {
        guard let client else { return .refused(ProtectedResource.Denial(.invalidToken, "`\(provider.id)` tokens are not introspected")) }
        let answer: [String: JSONValue]
        do {
            answer = try await client.introspect(Secret(token))
        } catch {
            // A refused client is the API's setup, not the token: the caller still gets 503, the log the server's own error.
            let why =
                Self.refusesClient(error)
                ? "client authentication failed at the introspection endpoint of `\(provider.id)` (the API's introspection client was refused)"
                : "the introspection endpoint of `\(provider.id)` did not answer usefully"
            var denial = ProtectedResource.Denial(.unavailable, "\(why): \(error)")
            denial.cause = error
            return .refused(denial)
        }
        guard case .bool(true)? = answer["active"] else {
            return .refused(ProtectedResource.Denial(.invalidToken, "`\(provider.id)` says the token is not active"))
        }
        if let type = answer["token_type"], type != .null {
            // RFC 7662 §2.2: a string. Anything else (a list, a number) says nothing the check can read, so nothing it accepts.
            guard let name = type.stringValue?.lowercased() else {
                return .refused(ProtectedResource.Denial(.invalidToken, "the introspection answer's `token_type` is not a string"))
            }
            if name.contains("refresh") {
                return .refused(ProtectedResource.Denial(.invalidToken, "the token is a refresh token, not an access token"))
            }
        }
        do {
            return .active(try check(answer, source: .introspection, now: clock.now()))
        } catch {
            return .refused(error)
        }
    }

    /// Whether an introspection request failed on the client's authentication: `invalid_client` or `unauthorized_client`
    /// (RFC 6749 §5.2), or HTTP 401 with no OAuth error (RFC 7662 §2.1 lets the endpoint answer so).
    static func refusesClient(_ error: any Error) -> Bool {
        if let error = error as? AuthorizationServerError {
            return error.refusesClient || error.httpStatus == 401
        }
        if let error = error as? FlowError { return error.code == .unexpectedStatus && error.message.hasSuffix("HTTP 401") }
        return false
    }

    /// Discovery, when the JWKS comes from it, run once.
    private actor Setup {
        let provider: Provider
        let transport: any HTTPTransport
        let clock: any DateClock
        let logger: Logger
        let refetchInterval: TimeInterval
        let maximumAge: TimeInterval
        let instruments: Instruments
        /// The provider's discovery cache, when `OAuth` keeps one for it.
        let discovery: DiscoveryClient?
        private var made: SigningKeys?

        init(
            provider: Provider, transport: any HTTPTransport, clock: any DateClock, logger: Logger, discovery: DiscoveryClient?,
            refetchInterval: TimeInterval, maximumAge: TimeInterval, instruments: Instruments
        ) {
            self.provider = provider
            self.discovery = discovery
            self.instruments = instruments
            self.transport = transport
            self.clock = clock
            self.logger = logger
            self.refetchInterval = refetchInterval
            self.maximumAge = maximumAge
        }

        func signingKeys() async throws -> SigningKeys {
            if let made { return made }
            var complete = provider
            if complete.endpoints.jwks == nil {
                let discovery =
                    self.discovery
                    ?? DiscoveryClient(transport: instruments.transport(transport, provider: provider.id, endpoint: .discovery), clock: clock)
                complete = try await provider.discovered(with: discovery, logger: logger)
            }
            guard let url = complete.endpoints.jwks else {
                throw ProtectedResource.Denial(
                    .unavailable, "provider `\(provider.id)` has no JWKS endpoint, in its descriptor or its discovery document")
            }
            let keys = SigningKeys(
                url: url, providerID: provider.id, algorithms: provider.policy.accessTokens.algorithms,
                transport: instruments.transport(transport, provider: provider.id, endpoint: .jwks), clock: clock,
                refetchInterval: refetchInterval, maximumAge: maximumAge)
            made = keys
            return keys
        }
    }
}
