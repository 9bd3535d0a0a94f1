import Crypto
import Foundation
import Logging
import Tracing

/// An API that accepts access tokens from one or more providers described in YAML: the checks of
/// RFC 6750, RFC 9068, RFC 7662, RFC 9449 §7 and RFC 8705, and the answers they call for.
///
/// ```swift
/// let api = try ProtectedResource(
///     providers: [try registry.descriptor(named: "auth0").resolve(["domain": "example.us.auth0.com"])],
///     settings: .init(resource: URL(string: "https://api.example.com")!))
/// let principal = try await api.authenticate(ProtectedResource.Request(authorization: header), requiring: ["read:notes"])
/// ```
public final class ProtectedResource: Sendable {
    /// The largest `Authorization` header read; longer tokens are refused before anything is decoded.
    public static let maximumTokenSize = 16 * 1024

    public let settings: Settings
    /// The origin clients use: the resource URL's scheme, host and port, also behind a proxy.
    private let origin: String
    let trusted: [TrustedProvider]
    private let cache: VerifiedTokenCache
    private let proofs: DPoPProofVerifier
    private let clock: any DateClock
    private let logger: Logger
    /// The handles each check is counted with, and its span.
    private let instruments: CheckInstruments

    /// A request as a framework adapter sees it. The URL a DPoP proof must name (`htu`) is `path` on the
    /// resource's origin (``Settings/resource``), built only when a proof came.
    public func accessRequest(authorization: [String], dpop: [String], method: String, path: String) -> ProtectedResource.Request {
        ProtectedResource.Request(authorization: authorization, dpop: dpop, method: method, url: dpop.isEmpty ? nil : URL(string: origin + path))
    }

    /// Trusts the access tokens of `providers` for the API that `settings` describe.
    ///
    /// - Parameters:
    ///   - providers: The providers whose tokens are accepted, resolved (discovery runs when first needed).
    ///   - settings: What the API states about itself.
    ///   - introspectionClients: The API's own client at each provider whose tokens are introspected, by
    ///     provider id (any client authentication method the descriptor allows).
    ///   - environment: Its transport fetches JWKS and introspects (by default one with a 5 s deadline and a 1 MiB
    ///     cap); its logger receives why each token was refused.
    /// - Throws: ``ProviderError`` `unsupportedPolicy` for a setup that could never accept a token: no
    ///   provider, a resource that is not https (or loopback http), a provider with no issuer to match
    ///   JWTs against, one whose tokens are introspected without an introspection client, or more than one provider
    ///   whose tokens that are not JWTs are introspected (`access_tokens.format` `opaque` or `both`).
    public convenience init(
        providers: [Provider], settings: Settings, introspectionClients: [String: ClientConfiguration] = [:],
        environment: OAuthEnvironment = OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 5))
    ) throws {
        try self.init(providers: providers, settings: settings, introspectionClients: introspectionClients, environment: environment) { _ in nil }
    }

    /// A protected resource whose providers' discovery documents come from `discovery` (`OAuth`'s cache, shared with
    /// its clients), else are fetched here.
    package init(
        providers: [Provider], settings: Settings, introspectionClients: [String: ClientConfiguration], environment: OAuthEnvironment,
        discovery: (String) -> DiscoveryClient?
    ) throws {
        let clock = environment.clock
        let logger = environment.logger
        func refuse(_ why: String, _ provider: String? = nil) -> ProviderError {
            ProviderError(.unsupportedPolicy, why, provider: provider)
        }
        guard !providers.isEmpty else { throw refuse("a protected resource needs at least one provider to trust") }
        guard TransportPolicy.isSecure(settings.resource), settings.resource.host != nil else {
            throw refuse("the resource \(settings.resource.absoluteString) must be an https URL (or http on a loopback host)")
        }
        // An empty audience would accept tokens whose `aud` is "" (RFC 7519 §4.1.3: an audience names a recipient).
        if let audience = settings.audience, audience.trimmingCharacters(in: .whitespaces).isEmpty {
            throw refuse("the audience is empty; give the value this API's tokens carry in `aud`, or leave it out to use the resource")
        }
        var trusted: [TrustedProvider] = []
        for provider in providers {
            let policy = provider.policy.accessTokens
            let audience = settings.audience ?? policy.audience ?? settings.resource.absoluteString
            let client = introspectionClients[provider.id]
            if policy.format != .jwt, client == nil {
                throw refuse(
                    "provider `\(provider.id)` issues \(policy.format == .opaque ? "opaque" : "opaque or JWT") access tokens (`access_tokens.format: \(policy.format.rawValue)`), which are introspected; give its introspection client",
                    provider.id)
            }
            if let client, (try? client.authenticationMethod(for: provider)) == nil {
                throw refuse(
                    "the introspection client of provider `\(provider.id)` has no credential for any method its descriptor allows (`client_auth.methods`), so no introspection could succeed",
                    provider.id)
            }
            if policy.format != .opaque || client == nil, provider.issuer == nil, provider.issuers.template == nil {
                throw refuse("provider `\(provider.id)` declares no `issuer`, so no JWT's `iss` can be matched to it", provider.id)
            }
            trusted.append(
                TrustedProvider(
                    index: trusted.count, provider: provider, audience: audience, introspectionClient: client, environment: environment,
                    discovery: discovery(provider.id), refetchInterval: settings.keysRefetchInterval, maximumAge: settings.keysMaximumAge))
        }
        // A token that is not a JWT names no issuer: tried at several introspection endpoints, one provider's token
        // would be shown to another, which could replay it (RFC 7662 §4).
        let introspecting = trusted.filter { $0.policy.format != .jwt }.map(\.provider.id)
        if introspecting.count > 1 {
            throw refuse(
                "providers \(introspecting.map { "`\($0)`" }.joined(separator: ", ")) all introspect tokens that are not JWTs, and such a token names no issuer: one provider would be sent another's tokens; protect the API with one ProtectedResource for each, chosen by the route"
            )
        }
        self.trusted = trusted
        self.settings = settings
        var components = URLComponents(url: settings.resource, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.path = ""
        components.query = nil
        components.fragment = nil
        origin = components.string ?? ""
        self.clock = clock
        self.logger = logger
        instruments = CheckInstruments(environment.instruments, providers: trusted.map(\.provider.id))
        cache = VerifiedTokenCache(capacity: settings.cacheCapacity)
        proofs = DPoPProofVerifier(
            window: settings.proofWindow, replays: ProofReplayWindow(capacity: settings.proofReplayCapacity), nonces: settings.dpopNonces)
    }

    // MARK: - Keeping keys fresh

    /// Keeps every trusted provider's signing keys fresh until the task is cancelled: runs discovery and
    /// fetches each JWKS at once, then again when a set has lived 80% of
    /// ``Settings/keysMaximumAge``, so that no request waits for a fetch and a key the provider removed stops
    /// being accepted on time. Waits on the environment's clock. A failed fetch is tried again after
    /// ``Settings/keysRefetchInterval``, and the cached set stays in use until its maximum age, as it would
    /// without this. Providers whose tokens are only introspected have no keys to keep.
    ///
    /// A host that runs a `ServiceGroup` adds `KeySetRefresher` (OAuthFlowHummingbird) to it; any other host
    /// runs this in a task of its own and cancels it on shutdown.
    public func keepKeysFresh() async {
        while !Task.isCancelled {
            var next: Date?
            for provider in trusted {
                guard let due = await provider.refreshKeysIfDue() else { continue }
                next = min(next ?? due, due)
            }
            guard let next else { return }
            do {
                try await clock.sleep(seconds: max(1, next.timeIntervalSince(clock.now())))
            } catch {
                return
            }
        }
    }

    // MARK: - Checking a request

    /// Checks the request's access token and, when `scopes` are given, that it grants each of them; when `details`
    /// are given, that it carries rich authorization details (RFC 9396) of each of those types; with `stepUp`, that
    /// its user authenticated recently and strongly enough (RFC 9470).
    ///
    /// - Parameters:
    ///   - request: The request as the API received it.
    ///   - scopes: The scopes the route requires.
    ///   - details: The `type`s of authorization details the route requires, at least one entry of each; the handler
    ///     then checks what they allow (``Principal/authorizationDetails(ofType:)``).
    ///   - stepUp: The authentication the route requires: an `acr` among its values, an `auth_time` within its age.
    /// - Returns: Who the token speaks for.
    /// - Throws: ``ProtectedResource/Denial``, with the status and headers to answer with:
    ///   ``ErrorCode/insufficientAuthorizationDetails`` (403) for a token without details of a required type,
    ///   ``ErrorCode/insufficientUserAuthentication`` (401, the challenge saying what to sign in with) for a user
    ///   who must authenticate again.
    public func authenticate(
        _ request: ProtectedResource.Request, requiring scopes: [String] = [], details: [String] = [], stepUp: ProtectedResource.StepUp? = nil
    ) async throws(ProtectedResource.Denial) -> ProtectedResource.Principal {
        let (result, trace): (Result<ProtectedResource.Principal, ProtectedResource.Denial>, CheckTrace)
        if let span = instruments.startSpan() {
            // The JWKS and introspection requests a check makes are children of its span.
            (result, trace) = await InstrumentationContext.$current.withValue(span.context) {
                await check(request, requiring: scopes, details: details, stepUp: stepUp)
            }
            instruments.end(span, result, trace)
        } else {
            (result, trace) = await check(request, requiring: scopes, details: details, stepUp: stepUp)
        }
        instruments.count(result, trace)
        return try result.get()
    }

    /// ``authenticate(_:requiring:details:stepUp:)``'s checks, with which provider and cache answered.
    private func check(
        _ request: ProtectedResource.Request, requiring scopes: [String], details: [String], stepUp: ProtectedResource.StepUp?
    ) async -> (
        Result<ProtectedResource.Principal, ProtectedResource.Denial>, CheckTrace
    ) {
        var trace = CheckTrace()
        let presented: PresentedToken
        do throws(ProtectedResource.Denial) {
            presented = try PresentedToken(request.authorization)
        } catch {
            return (.failure(answer(error, scheme: nil)), trace)
        }
        do throws(ProtectedResource.Denial) {
            var principal = try await principal(for: presented.token, trace: &trace)
            try checkBinding(principal, presented: presented, request: request)
            if !settings.scopeImplications.isEmpty { principal.impliedScopes = settings.implied(by: principal.scopes) }
            guard principal.hasScopes(scopes) else {
                let missing = scopes.filter { !principal.hasScopes([$0]) }
                throw ProtectedResource.Denial(
                    .insufficientScope, "the token lacks the scope \(missing.joined(separator: " "))", requiredScopes: scopes)
            }
            try Self.checkDetails(principal, requiring: details)
            try stepUp?.check(principal, now: clock.now())
            return (.success(principal), trace)
        } catch {
            logger.debug("access token refused", metadata: ["code": "\(error.code)", "reason": "\(TerminalText.escaped(error.reason))"])
            return (.failure(answer(error, scheme: presented.scheme)), trace)
        }
    }

    /// The principal of a token, from the cache or by checking it; `trace` learns which provider and cache answered.
    private func principal(for token: String, trace: inout CheckTrace) async throws(ProtectedResource.Denial) -> ProtectedResource.Principal {
        var bytes = token
        let digest = bytes.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        let now = clock.now()
        switch cache.lookup(digest, now: now, generation: { trusted[$0].currentKeysGeneration(now: now) }) {
        case let .accepted(principal):
            trace.hit(provider: trusted.firstIndex { $0.provider.id == principal.providerID }, source: principal.source)
            return principal
        case let .inactive(provider):
            trace.hit(provider: provider, source: .introspection)
            throw ProtectedResource.Denial(.invalidToken, "the provider said the token is not active (remembered)")
        case .miss: break
        }
        // CompactJWS takes exactly three parts of JSON: anything else is an opaque token, but for a token of three parts
        // whose first is a JSON object, which is a JWT that CompactJWS refused (a repeated member, say). An opaque
        // token's random bytes can decode to a `{` (one in 256): only the shape of a JWT makes it one.
        let parsed: CompactJWS?
        do {
            parsed = try CompactJWS(token)
        } catch {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3, let header = Base64URL.decode(bytes: parts[0].utf8), header.first == UInt8(ascii: "{"),
                header.last == UInt8(ascii: "}")
            {
                throw ProtectedResource.Denial(.invalidToken, "the token is not a JWT that can be read: \(error)")
            }
            parsed = nil
        }
        if let jws = parsed {
            let issuer = jws.claims["iss"]?.stringValue ?? ""
            guard let provider = trusted.first(where: { $0.issues(issuer, claims: jws.claims) }) else {
                throw ProtectedResource.Denial(
                    .invalidToken, "the token's issuer `\(TerminalText.escaped(String(issuer.prefix(200))))` is not trusted by this API")
            }
            if provider.policy.format != .opaque {
                trace.miss(provider: provider.index, source: .jwt)
                let (principal, generation) = try await provider.verify(jws, now: now)
                cache.store(
                    digest, principal: principal, until: principal.expiresAt ?? now, provider: provider.index, generation: generation, now: now)
                return principal
            }
            return try await introspect(token, digest: digest, at: provider, now: now, trace: &trace)
        }
        // At most one (the initializer says why).
        guard let introspecting = trusted.first(where: { $0.policy.format != .jwt }) else {
            throw ProtectedResource.Denial(.invalidToken, "the token is not a JWT, and no trusted provider's tokens are introspected")
        }
        return try await introspect(token, digest: digest, at: introspecting, now: now, trace: &trace)
    }

    private func introspect(
        _ token: String, digest: SHA256Digest, at provider: TrustedProvider, now: Date, trace: inout CheckTrace
    ) async throws(ProtectedResource.Denial) -> ProtectedResource.Principal {
        trace.miss(provider: provider.index, source: .introspection)
        let outcome = await provider.introspect(token, digest: digest) { [cache, clock] outcome in
            let now = clock.now()
            switch outcome {
            case let .active(principal):
                let until = min(principal.expiresAt ?? .distantFuture, now.addingTimeInterval(provider.policy.introspectionCache))
                cache.store(digest, principal: principal, until: until, provider: provider.index, generation: nil, now: now)
            case let .refused(denial) where denial.code == .invalidToken:
                cache.store(
                    digest, principal: nil, until: now.addingTimeInterval(provider.policy.inactiveCache), provider: provider.index,
                    generation: nil, now: now)
            case .refused:
                break
            }
        }
        switch outcome {
        case let .active(principal): return principal
        case let .refused(denial): throw denial
        }
    }

    /// RFC 9449 §7.1 and RFC 8705 §3: a bound token only with its key or certificate; DPoP only with a bound token.
    private func checkBinding(_ principal: ProtectedResource.Principal, presented: PresentedToken, request: ProtectedResource.Request)
        throws(ProtectedResource.Denial)
    {
        let confirmation = principal.confirmation
        if ProtectedResource.Confirmation.isUnknown(principal.claims["cnf"]) {
            throw ProtectedResource.Denial(.invalidToken, "the token is bound (`cnf`) by a method OAuthFlow cannot check")
        }
        if let thumbprint = confirmation?.keyThumbprint {
            guard presented.scheme == .dpop else {
                throw ProtectedResource.Denial(.invalidToken, "the token is DPoP-bound (`cnf.jkt`) but was sent with the Bearer scheme")
            }
            try proofs.check(
                request.dpop, accessToken: presented.token, thumbprint: thumbprint, method: request.method, url: request.url, now: clock.now())
        } else if presented.scheme == .dpop {
            throw ProtectedResource.Denial(.invalidToken, "the DPoP scheme was used with a token that is not DPoP-bound")
        } else if settings.dpop == .required {
            throw ProtectedResource.Denial(.invalidToken, "this API accepts only DPoP-bound tokens")
        }
        if let certificate = confirmation?.certificateThumbprint {
            guard let presentedCertificate = request.clientCertificate else {
                throw ProtectedResource.Denial(
                    .invalidToken, "the token is bound to a client certificate (`cnf.x5t#S256`) and the connection presented none")
            }
            let thumbprint = Base64URL.encode(Data(SHA256.hash(data: presentedCertificate)))
            guard ConstantTime.equals(thumbprint, certificate) else {
                throw ProtectedResource.Denial(.invalidToken, "the token is bound to another client certificate than the connection's")
            }
        }
    }

    /// Refuses a token without authorization details of each type of `types` (RFC 9396 §9): 401 when its details are
    /// not an array of objects with a `type`, 403 when a type is missing.
    private static func checkDetails(_ principal: ProtectedResource.Principal, requiring types: [String]) throws(ProtectedResource.Denial) {
        guard !types.isEmpty else { return }
        var granted: [AuthorizationDetail] = []
        if let claim = principal.claims["authorization_details"] {
            do {
                granted = try AuthorizationDetail.list(claim, what: "the token's `authorization_details`")
            } catch {
                throw ProtectedResource.Denial(.invalidToken, "\(error)")
            }
        }
        let missing = types.filter { type in !granted.contains { $0.type == type } }
        guard missing.isEmpty else {
            let held =
                granted.isEmpty
                ? "none" : Set(granted.map(\.type)).sorted().map { TerminalText.escaped(String($0.prefix(100))) }.joined(separator: ", ")
            throw ProtectedResource.Denial(
                .insufficientAuthorizationDetails,
                "the token lacks authorization details of type \(missing.joined(separator: ", ")) (it holds \(held))", requiredScopes: [])
        }
    }

    // MARK: - Answers

    /// Whether any trusted provider's tokens, or the API itself, use DPoP: the challenges then offer it.
    private var offersDPoP: Bool { settings.dpop == .required || trusted.contains { $0.provider.policy.dpop.use != .never } }

    /// `denial` with the headers of its answer.
    private func answer(_ denial: ProtectedResource.Denial, scheme: PresentedToken.Scheme?) -> ProtectedResource.Denial {
        var denial = denial
        if denial.code == .unavailable {
            denial.headers = [("Retry-After", "5")]
            return denial
        }
        let dpopError = [.invalidDPoPProof, .useDPoPNonce].contains(denial.code) || scheme == .dpop
        var attributes: [String] = []
        if let error = denial.wireError {
            attributes.append("error=\"\(error)\"")
            attributes.append("error_description=\"\(Self.descriptions[error] ?? "The request is not authorized")\"")
        }
        if denial.code == .insufficientScope { attributes.append("scope=\"\(denial.requiredScopes.joined(separator: " "))\"") }
        if denial.code == .insufficientUserAuthentication, let stepUp = denial.stepUp { attributes += stepUp.challengeAttributes }
        let realm = "realm=\"\(Self.quoted(settings.realm ?? settings.resource.host ?? "api"))\""
        let metadata = "resource_metadata=\"\(metadataURL.absoluteString)\""
        if settings.dpop != .required {
            let bearer = [realm] + (dpopError ? [] : attributes) + [metadata]
            denial.headers.append(("WWW-Authenticate", "Bearer " + bearer.joined(separator: ", ")))
        }
        // A proof's refusal, or a request that used the DPoP scheme, is answered in a DPoP challenge even where no provider declares DPoP.
        if offersDPoP || dpopError {
            let algorithms = "algs=\"\(DPoPProofVerifier.algorithms.map(\.rawValue).joined(separator: " "))\""
            let errors = dpopError || settings.dpop == .required ? attributes : []
            denial.headers.append(("WWW-Authenticate", "DPoP " + ([realm] + errors + [algorithms, metadata]).joined(separator: ", ")))
        }
        if denial.code == .useDPoPNonce, let nonces = settings.dpopNonces {
            denial.headers.append(("DPoP-Nonce", nonces.current(now: clock.now())))
        }
        return denial
    }

    /// The fixed `error_description` of each error: the same words whichever check failed.
    private static let descriptions = [
        "invalid_request": "The request is malformed",
        "invalid_token": "The access token is not valid",
        "insufficient_scope": "The access token does not grant the required scope",
        "insufficient_user_authentication": "A more recent or stronger authentication is required",
        "invalid_dpop_proof": "The DPoP proof is not valid",
        "use_dpop_nonce": "The DPoP proof must carry the nonce of this resource",
    ]

    private static func quoted(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }.map(Character.init))
    }
}
