import Foundation

/// An authorization request that has been sent to the browser and awaits its callback.
///
/// It is `Codable` so an app can persist it and resume after a restart; it holds
/// the PKCE verifier, so store it as carefully as a token.
public struct PendingAuthorization: Sendable, Hashable, Codable {
    /// The URL to open in the user's browser.
    public let url: URL
    public let providerID: String
    public let state: Secret
    package let pkce: PKCE?
    public let nonce: Secret?
    /// The redirect URI exactly as sent; the token request repeats it.
    public let redirectURI: URL
    /// The scopes requested, joined later only if the token response omits `scope`.
    public let scopes: [String]
    public let createdAt: Date

    /// The DPoP key the tokens will be bound to; its thumbprint went as `dpop_jkt` (RFC 9449 §10).
    public var proofKey: DPoPKey? = nil
    /// When the pushed request's `request_uri` expires (RFC 9126 §2.2); nil when the request was not pushed.
    public var requestExpiresAt: Date? = nil
    /// The `max_age` sent: the ID token's `auth_time` must be at most this many seconds before the callback.
    public var maximumAuthenticationAge: Int? = nil
    /// The `acr_values` sent: the ID token's `acr` must be one of them. Nil when none were sent.
    public var acrValues: [String]? = nil

    /// Whether the URL can no longer be used: its pushed request expired (a provider would show an error page).
    public func isExpired(at now: Date = Date()) -> Bool { requestExpiresAt.map { now >= $0 } ?? false }

    /// How long after ``createdAt`` a started authorization may still be finished: 10 minutes. Signing in (on another
    /// device, as a manual sign-in does) and copying the address back takes a few minutes; the code the provider returns
    /// is meant to live 10 minutes at most (RFC 6749 §4.1.2), and the state and PKCE verifier kept here are what make a
    /// stolen or later response redeemable (RFC 9700 §4.5, §4.7): a started authorization kept for days would let
    /// whoever saw its URL consent with their own account and have the user paste the redirect.
    public static let lifetime: TimeInterval = 600

    /// Whether this authorization can no longer be finished: started more than `lifetime` before `now`, or, by a
    /// clock that moved back, more than a minute after it (its age cannot be told).
    ///
    /// - Parameters:
    ///   - now: The time to judge by.
    ///   - lifetime: How long a started authorization lives; ``lifetime`` by default.
    public func hasLapsed(at now: Date, lifetime: TimeInterval = Self.lifetime) -> Bool {
        let age = now.timeIntervalSince(createdAt)
        return age > lifetime || age < -60
    }

    /// Builds the authorization request for a resolved provider (RFC 6749 §4.1.1, RFC 7636 §4.3), its parameters in the URL.
    ///
    /// - Parameters:
    ///   - provider: The resolved provider.
    ///   - client: The registered client.
    ///   - proofKey: The DPoP key the tokens are to be bound to; its thumbprint is sent as `dpop_jkt`.
    ///   - now: The creation time to record.
    /// - Throws: ``FlowError`` when the provider has no authorization endpoint or the
    ///   redirect URI is unsafe.
    public static func start(
        provider: Provider, client: ClientConfiguration, proofKey: DPoPKey? = nil, now: Date = Date()
    ) throws -> PendingAuthorization {
        let request = try Request(provider: provider, client: client, proofKey: proofKey)
        let url = try url(provider, request.parameters)
        // RFC 9396 §4: details make long URLs, which browsers and servers cut; pushed requests carry any size.
        if !client.authorizationDetails.isEmpty, url.absoluteString.utf8.count > maximumURLLength {
            throw FlowError(
                .invalidAuthorizationDetails,
                "the authorization URL with its authorization details is \(url.absoluteString.utf8.count) bytes long, more than the \(maximumURLLength) a browser is sure to take; push the request (`authorization.pushed`, RFC 9126) or ask for fewer details"
            )
        }
        return try request.pending(url: url, requestExpiresAt: nil, now: now)
    }

    /// The longest authorization URL carrying authorization details that is sent through the browser.
    static let maximumURLLength = 8000

    /// An authorization request's parameters, with the secrets the callback and token request are checked with.
    struct Request {
        let parameters: [(String, String)]
        let providerID: String
        let state: Secret
        let pkce: PKCE?
        let nonce: Secret?
        let redirectURI: URL
        let scopes: [String]
        let proofKey: DPoPKey?
        let maximumAuthenticationAge: Int?
        let acrValues: [String]

        init(provider: Provider, client: ClientConfiguration, proofKey: DPoPKey?) throws {
            guard let redirectURI = client.redirectURI else {
                throw FlowError(
                    .invalidRedirectURI,
                    "client `\(client.clientID)` has no redirect URI (a service or device client): an authorization needs one to send the browser back to"
                )
            }
            try RedirectPolicy.check(redirectURI)
            let policy = provider.policy
            var scopes = client.scopes ?? policy.scopes.defaults
            var parameters: [(String, String)] = []
            // Fixed and offline parameters first, so the reserved ones below always win.
            var extra = policy.authorizationParameters
            if client.requestOfflineAccess {
                for scope in policy.scopes.offlineScopes where !scopes.contains(scope) { scopes.append(scope) }
                extra.merge(policy.scopes.offlineParameters) { _, offline in offline }
            }
            let details = client.authorizationDetails
            if !details.isEmpty {
                try AuthorizationDetail.check(details, for: provider)
                // The host's details replace any the descriptor fixes.
                extra["authorization_details"] = nil
            }
            // Grant management (FAPI Grant Management §5): the host's action replaces any the descriptor fixes.
            let grantParameters = try ManagedGrant.Action.requested(by: client, of: provider)?.parameters()
            if grantParameters != nil {
                extra["grant_management_action"] = nil
                extra["grant_id"] = nil
            }
            // The host's resources replace any the descriptor fixes.
            if !client.resources.isEmpty { extra["resource"] = nil }
            // Step-up (OpenID Connect `max_age` and `acr_values`, RFC 9470): what the descriptor asks of every sign-in
            // (`authorization.acr_values`, `max_age`), narrowed by what the host or an API's step-up asks, is checked in the
            // ID token, so only an OpenID Connect sign-in may ask it.
            let authentication = try Self.authentication(client, provider)
            let stepUp = try Self.authenticationParameters(authentication, provider: provider, scopes: scopes)
            for (name, _) in stepUp { extra[name] = nil }
            for (name, value) in extra.sorted(by: { $0.key < $1.key })
            where !DescriptorSchema.reservedParameters.contains(name) && name != policy.clientIDParameter {
                parameters.append((name, value))
            }
            if policy.responseMode != .query {
                parameters.append(("response_mode", policy.responseMode.rawValue))
            }
            state = Secret(Base64URL.random(bytes: 32))
            pkce = policy.pkce == .unsupported ? nil : PKCE.generate()
            nonce = policy.nonce ? Secret(Base64URL.random(bytes: 32)) : nil
            parameters += [
                ("response_type", "code"),
                (policy.clientIDParameter, client.clientID),
                ("redirect_uri", redirectURI.absoluteString),
            ]
            // `scopes.parameter`: omitted when none is asked for, or never, or always sent.
            parameters += policy.scopes.parameters(for: scopes)
            parameters.append(("state", state.value))
            if let pkce {
                parameters += [("code_challenge", pkce.challenge), ("code_challenge_method", PKCE.method)]
            }
            if let nonce { parameters.append(("nonce", nonce.value)) }
            if let proofKey { parameters.append(("dpop_jkt", proofKey.thumbprint)) }
            if !details.isEmpty { parameters.append(("authorization_details", AuthorizationDetail.encoded(details))) }
            if let grantParameters { parameters += grantParameters }
            // RFC 8707 §2: the resources the tokens are for; the code exchange and every refresh repeat them.
            parameters += try client.resourceParameters()
            parameters += stepUp
            self.parameters = parameters
            self.providerID = provider.id
            self.redirectURI = redirectURI
            self.scopes = scopes
            self.proofKey = proofKey
            maximumAuthenticationAge = authentication.maximumAge
            acrValues = authentication.acrValues
        }

        /// The step-up a sign-in asks, which neither the host nor an API's step-up can make weaker than the descriptor's
        /// (RFC 9470 §4, §6.1: a step-up adds to what the client requires): of the descriptor's classes, those the client
        /// names too, in the client's order of preference (all of them when it names none; the client's when the
        /// descriptor names none); and the shorter of the two ages, so that a client can ask a fresher sign-in than the
        /// provider's but never an older one.
        ///
        /// - Throws: ``FlowError`` `step_up` when the client names classes, none of which the descriptor accepts: no
        ///   ID token could meet both.
        static func authentication(_ client: ClientConfiguration, _ provider: Provider) throws -> (acrValues: [String], maximumAge: Int?) {
            let policy = provider.policy
            let ages = [client.maximumAuthenticationAge, policy.maximumAuthenticationAge].compactMap { $0 }
            guard let classes = ClientConfiguration.authenticationClasses(client.acrValues, within: policy.acrValues) else {
                // An API's challenge names these: escaped, as any text from a server is.
                let asked = TerminalText.escaped(String(client.acrValues.joined(separator: " ").prefix(200)))
                throw FlowError(
                    .stepUp,
                    "the sign-in asks for the authentication class \(asked) (`acr_values`, the host's or an API's step-up), none of which `\(provider.id)` accepts: its descriptor asks every sign-in for one of \(policy.acrValues.joined(separator: " ")) (`authorization.acr_values`), and a step-up can only add to that"
                )
            }
            return (classes, ages.min())
        }

        /// `max_age` and `acr_values`, when the sign-in asks them.
        ///
        /// - Throws: ``FlowError`` `step_up` when asked of a sign-in that returns no ID token to check them in,
        ///   or with a negative age or an empty or space-holding class.
        static func authenticationParameters(
            _ asked: (acrValues: [String], maximumAge: Int?), provider: Provider, scopes: [String]
        ) throws -> [(String, String)] {
            guard asked.maximumAge != nil || !asked.acrValues.isEmpty else { return [] }
            guard provider.isOpenIDConnect, scopes.contains("openid") else {
                throw FlowError(
                    .stepUp,
                    "`max_age` and `acr_values` are checked in the ID token, and a sign-in at `\(provider.id)` without OpenID Connect and the `openid` scope returns none"
                )
            }
            var parameters: [(String, String)] = []
            if let age = asked.maximumAge {
                guard age >= 0 else { throw FlowError(.stepUp, "`max_age` is a number of seconds, not \(age)") }
                parameters.append(("max_age", String(age)))
            }
            if !asked.acrValues.isEmpty {
                guard asked.acrValues.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                    throw FlowError(.stepUp, "each of `acr_values` is one class, without spaces")
                }
                parameters.append(("acr_values", asked.acrValues.joined(separator: " ")))
            }
            return parameters
        }

        func pending(url: URL, requestExpiresAt: Date?, now: Date) throws -> PendingAuthorization {
            PendingAuthorization(
                url: url, providerID: providerID, state: state, pkce: pkce, nonce: nonce, redirectURI: redirectURI, scopes: scopes,
                createdAt: now, proofKey: proofKey, requestExpiresAt: requestExpiresAt, maximumAuthenticationAge: maximumAuthenticationAge,
                acrValues: acrValues.isEmpty ? nil : acrValues)
        }
    }

    /// The authorization endpoint with `parameters` in its query (replacing any of the same name it has).
    static func url(_ provider: Provider, _ parameters: [(String, String)]) throws -> URL {
        guard let endpoint = provider.endpoints.authorization else {
            throw FlowError(.missingEndpoint, "provider `\(provider.id)` has no authorization endpoint")
        }
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw FlowError(.invalidURL, "the authorization endpoint of `\(provider.id)` is not a valid URL")
        }
        let names = Set(parameters.map(\.0))
        let kept = (components.queryItems ?? []).filter { !names.contains($0.name) }
        components.queryItems = kept + parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves `+` unescaped in queries, which servers read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else {
            throw FlowError(.invalidURL, "cannot build the authorization URL of `\(provider.id)`")
        }
        return url
    }
}
