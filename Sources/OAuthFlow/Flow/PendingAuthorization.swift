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
    public let pkce: PKCE?
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

    /// Whether the URL can no longer be used: its pushed request expired (a provider would show an error page).
    public func isExpired(at now: Date = Date()) -> Bool { requestExpiresAt.map { now >= $0 } ?? false }

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
            let grantParameters = try GrantManagementAction.requested(by: client, of: provider)?.parameters()
            if grantParameters != nil {
                extra["grant_management_action"] = nil
                extra["grant_id"] = nil
            }
            // The host's resources replace any the descriptor fixes.
            if !client.resources.isEmpty { extra["resource"] = nil }
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
            self.parameters = parameters
            self.providerID = provider.id
            self.redirectURI = redirectURI
            self.scopes = scopes
            self.proofKey = proofKey
        }

        func pending(url: URL, requestExpiresAt: Date?, now: Date) throws -> PendingAuthorization {
            PendingAuthorization(
                url: url, providerID: providerID, state: state, pkce: pkce, nonce: nonce, redirectURI: redirectURI, scopes: scopes,
                createdAt: now, proofKey: proofKey, requestExpiresAt: requestExpiresAt)
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

/// A pushed authorization request's answer (RFC 9126 §2.2): the `request_uri` to send the browser with, and its lifetime.
struct PushedRequest {
    let requestURI: String
    /// Seconds the `request_uri` may be used for: the server's `expires_in`, at most ``longestLifetime``.
    let lifetime: TimeInterval

    /// Longer than any server gives (RFC 9126 suggests 5 to 600 seconds); a larger `expires_in` is read as this.
    static let longestLifetime: TimeInterval = 3600

    /// Reads the answer of `endpoint`.
    ///
    /// - Throws: ``AuthorizationServerError`` for an OAuth error; ``FlowError`` `pushedAuthorization` for a
    ///   redirect (never followed), another status, or an answer without a usable `request_uri` and `expires_in`;
    ///   a `request_uri` on another server than the endpoint's is never used.
    init(_ response: TransportResponse, endpoint: URL, provider: String) throws {
        let host = endpoint.host ?? "the server"
        if (300..<400).contains(response.status) {
            throw FlowError(
                .pushedAuthorization,
                "the pushed authorization request endpoint of `\(provider)` answered HTTP \(response.status) (a redirect); OAuthFlow does not follow redirects with credentials"
            )
        }
        let parsed = Result { try TokenResponseParser.fields(of: response, format: .json) }
        if case let .success(fields) = parsed, let error = TokenResponseParser.serverError(in: fields, status: response.status) { throw error }
        guard (200..<300).contains(response.status) else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered HTTP \(response.status)")
        }
        let fields: [String: JSONValue]
        switch parsed {
        case let .success(object): fields = object
        case let .failure(error):
            // Say what came back (an HTML page, a wrong content type), not only what is missing.
            let status = response.status
            throw FlowError(
                .pushedAuthorization, "the pushed authorization request endpoint at \(host) answered HTTP \(status), but not with JSON: \(error)")
        }
        guard let uri = fields["request_uri"]?.stringValue else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered without a `request_uri`")
        }
        guard !uri.isEmpty, uri.utf8.count <= 2048, uri.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw FlowError(.pushedAuthorization, "the `request_uri` from \(host) is empty, too long or holds spaces or control characters")
        }
        // RFC 9126 §2.2: a reference to the request this server stored. One that points at another server
        // would have the authorization server fetch a request someone else wrote: it is never used.
        // A URL must be https on the pushing server's origin: scheme, host and port (plain http only when the
        // pushing server itself is http on a loopback host).
        let scheme = uri.prefix { $0 != ":" }.lowercased()
        if scheme != "urn" {
            guard let url = URL(string: uri), Self.origin(of: url) == Self.origin(of: endpoint),
                scheme == "https" || (scheme == "http" && Loopback.isLoopbackHost(endpoint.host ?? ""))
            else {
                throw FlowError(
                    .pushedAuthorization,
                    "the `request_uri` from \(host) (\(TerminalText.escaped(String(uri.prefix(80))))) is neither a URN nor an https URL on that server (same scheme, host and port); it is not used"
                )
            }
        }
        guard let seconds = fields["expires_in"]?.numberValue, seconds.isFinite, seconds > 0 else {
            throw FlowError(.pushedAuthorization, "the pushed authorization request endpoint at \(host) answered without a positive `expires_in`")
        }
        requestURI = uri
        lifetime = min(seconds, Self.longestLifetime)
    }
}

extension PushedRequest {
    /// A URL's origin: its scheme and host lowercased, and its port, the scheme's default when none is written.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}

/// Which redirect URIs a native client may use (RFC 8252 §7, RFC 9700 §2.1).
enum RedirectPolicy {
    static func check(_ uri: URL) throws {
        guard let components = URLComponents(url: uri, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased() else {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` has no scheme")
        }
        if components.fragment != nil {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` must not have a fragment (RFC 6749 §3.1.2)")
        }
        if scheme == "http", !Loopback.isLoopbackHost(components.host ?? "") {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` uses plain http to a host that is not loopback")
        }
    }
}
