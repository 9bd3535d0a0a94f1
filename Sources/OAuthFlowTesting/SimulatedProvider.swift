import Crypto
import Foundation
import OAuthFlow

/// An OpenID provider that runs inside the test process, behind `HTTPTransport`: a host tests its
/// own sign-in, refresh, service-token and API code against it through the library's real engine, with no
/// server, no network and no Python.
///
/// It answers requests to its issuer (`https://simulated.example` by default) as the RFCs say:
/// discovery (OpenID Connect Discovery and RFC 8414), the authorization code grant with PKCE `S256`
/// (``approve(_:subject:)`` stands in for the user at the browser), refresh with rotation and
/// reuse detection (RFC 9700 §4.14.2), client credentials, the device grant (RFC 8628), pushed authorization
/// requests (RFC 9126), DPoP with nonces (RFC 9449), a key set that rotates (``rotateKeys(retiringPrevious:)``),
/// introspection (RFC 7662), revocation (RFC 7009), userinfo and back-channel logout tokens
/// (``logoutToken(subject:sessionID:clientID:)``). Clients authenticate with `client_secret_basic`,
/// `client_secret_post`, a client assertion (`client_secret_jwt`, `private_key_jwt`), the certificate a request presents
/// (`tls_client_auth`, `self_signed_tls_client_auth`, with `mtls_endpoint_aliases` and certificate-bound tokens, RFC 8705)
/// or not at all (``SimulatedClient``).
/// What it refuses, it refuses with the error the RFC names.
///
/// ```swift
/// let simulated = SimulatedProvider()
/// let client = OAuthClient(provider: try simulated.provider(), configuration: ClientConfiguration(
///     clientID: SimulatedProvider.appClientID, redirectURI: SimulatedProvider.appRedirectURI),
///     environment: simulated.environment)
/// let pending = try await client.startAuthorization()
/// let tokens = try await client.finishSignIn(.callback(try await simulated.approve(pending.url)), pending: pending).tokens
/// ```
///
/// A test changes what it answers with ``configure(_:)`` (lifetimes, DPoP, nonces, pushed requests) and
/// makes one endpoint fail with ``failNext(_:error:description:status:)``. Time comes from ``clock``: move it
/// with ``MovableClock/advance(_:)`` and tokens expire.
public actor SimulatedProvider {
    /// The provider's issuer identifier; every endpoint is under it.
    public nonisolated let issuer: URL
    /// The clock the provider issues, ages and expires with; ``environment`` hands it to the client too.
    public nonisolated let clock: MovableClock
    /// The DPoP nonces the clients of ``environment`` keep: one set per simulated provider, so tests do not share them.
    public nonisolated let nonces = DPoPNonces()
    /// What the provider's first key signs with (``Settings/signingAlgorithm`` when it was made): its descriptor
    /// accepts it for ID tokens and JWT access tokens.
    public nonisolated let keyAlgorithm: JWSAlgorithm

    /// The client ``init(issuer:clock:settings:clients:)`` registers unless given others: a public client.
    public static let appClientID = "simulated-app"
    /// Its redirect URI (any port on 127.0.0.1 is accepted, as RFC 8252 §7.3 asks).
    public static let appRedirectURI = URL(string: "http://127.0.0.1/callback") ?? URL(fileURLWithPath: "/")
    /// A confidential client registered by default: `client_secret_basic` with ``serviceSecret``.
    public static let serviceClientID = "simulated-service"
    /// The secret of ``serviceClientID``.
    public static let serviceSecret = "simulated-service-secret-0123456789"

    var settings: Settings
    var clients: [String: SimulatedClient]
    var keys: [SimulatedSigningKey]
    var pushedRequests: [String: PushedRequest] = [:]
    var codes: [String: CodeGrant] = [:]
    var refreshTokens: [String: RefreshGrant] = [:]
    var accessTokens: [String: AccessGrant] = [:]
    var devices: [String: DeviceGrant] = [:]
    /// Families (one per authorization) whose tokens were revoked, after a reuse or a revocation.
    var revokedFamilies: Set<String> = []
    /// DPoP proof `jti`s seen, with when they stop mattering.
    var seenProofs: [String: Date] = [:]
    /// Client assertions seen, by client and `jti`, with when they expire (RFC 7523 §3: one use each).
    var seenAssertions: [String: Date] = [:]
    /// The nonce every DPoP proof must carry when ``Settings/requiresDPoPNonce``.
    var dpopNonce = Base64URL.random(bytes: 16)
    var failures: [Endpoint: [TransportResponse]] = [:]
    var counts: [Endpoint: Int] = [:]
    /// Device authorizations the simulated user approves on their own, on a given poll.
    var deviceApproval: (afterPolls: Int, subject: String)?
    /// The Shared Signals streams it transmits on (``SimulatedProvider/securityEventToken(_:subject:members:audience:)``).
    var streams: [String: SimulatedStream] = [:]

    /// - Parameters:
    ///   - issuer: Its issuer; an https URL without query or fragment.
    ///   - clock: The clock it runs on; real time, movable, by default.
    ///   - settings: Lifetimes and features; the defaults issue refresh tokens that rotate and opaque access tokens.
    ///   - clients: The registered clients; by default the public ``appClientID`` and the confidential ``serviceClientID``.
    /// - Throws: ``SimulationError`` when a signing key cannot be made.
    public init(
        issuer: URL = URL(string: "https://simulated.example") ?? URL(fileURLWithPath: "/"), clock: MovableClock = MovableClock(),
        settings: Settings = Settings(), clients: [SimulatedClient]? = nil
    ) throws {
        self.issuer = issuer
        self.clock = clock
        self.settings = settings
        self.keyAlgorithm = settings.signingAlgorithm
        let registered =
            clients ?? [
                .public(id: Self.appClientID, redirectURIs: [Self.appRedirectURI]),
                .confidential(id: Self.serviceClientID, secret: Self.serviceSecret),
            ]
        self.clients = Dictionary(registered.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        keys = [try SimulatedSigningKey.generate(settings.signingAlgorithm)]
    }

    /// Sends requests to this provider, and refuses any to another host as unreachable.
    public nonisolated var transport: any HTTPTransport { SimulatedTransport(provider: self) }

    /// The environment a host test gives the library: this provider's transport, clock and nonces. The
    /// clock moves forward instead of waiting, so a device sign-in polls without taking real time.
    public nonisolated var environment: OAuthEnvironment {
        OAuthEnvironment(transport: transport, clock: clock, nonces: nonces)
    }

    /// Changes its settings; what was issued before keeps the lifetimes it was issued with.
    public func configure(_ change: (inout Settings) -> Void) {
        change(&settings)
    }

    /// Registers a client, or replaces the one with its id.
    public func register(_ client: SimulatedClient) {
        clients[client.id] = client
    }

    /// How many requests an endpoint has answered (failed ones included).
    public func requestCount(_ endpoint: Endpoint) -> Int {
        counts[endpoint, default: 0]
    }

    // MARK: - Failures

    /// Makes the next request to `endpoint` fail with an OAuth error, then answers as before.
    ///
    /// The error goes in a JSON body (RFC 6749 §5.2), or, at userinfo, in `WWW-Authenticate` (RFC 6750 §3).
    /// Calls queue: two calls fail the next two requests.
    /// - Parameters:
    ///   - endpoint: Which endpoint fails.
    ///   - error: The `error` code, e.g. `invalid_grant`, `temporarily_unavailable`, `slow_down`.
    ///   - description: An `error_description`.
    ///   - status: The HTTP status; 401 for `invalid_client` and `invalid_token`, else 400, unless given.
    public func failNext(_ endpoint: Endpoint, error: String, description: String? = nil, status: Int? = nil) {
        let status = status ?? (["invalid_client", "invalid_token"].contains(error) ? 401 : 400)
        var members: [String: JSONValue] = ["error": .string(error)]
        if let description { members["error_description"] = .string(description) }
        var response = Self.json(members, status: status)
        if endpoint == .userinfo {
            response.headers["www-authenticate"] = "Bearer error=\"\(error)\""
        }
        failures[endpoint, default: []].append(response)
    }

    /// Makes the next request to `endpoint` fail with a bare HTTP status (a 503, a 500), then answers as before.
    public func failNext(_ endpoint: Endpoint, status: Int) {
        failures[endpoint, default: []].append(TransportResponse(status: status, headers: ["Content-Type": "text/plain"], body: Data("failed".utf8)))
    }

    // MARK: - Routing

    /// Answers one request, as the server at ``issuer`` would.
    func answer(_ request: TransportRequest) async -> TransportResponse {
        guard let endpoint = Endpoint(path: request.url.path, issuer: issuer) else {
            return TransportResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Data("not found".utf8))
        }
        counts[endpoint, default: 0] += 1
        if var queued = failures[endpoint], !queued.isEmpty {
            let response = queued.removeFirst()
            failures[endpoint] = queued
            return response
        }
        do {
            let request = try overTLS(request, at: endpoint)
            switch (endpoint, request.method) {
            case (.openIDConfiguration, .get), (.authorizationServerMetadata, .get): return Self.json(metadata())
            case (.jwks, .get): return Self.json(keySet())
            case (.token, .post): return try await tokenEndpoint(request)
            case (.pushedAuthorization, .post): return try await pushedAuthorizationEndpoint(request)
            case (.deviceAuthorization, .post): return try deviceAuthorizationEndpoint(request)
            case (.introspection, .post): return try introspectionEndpoint(request)
            case (.revocation, .post): return try revocationEndpoint(request)
            case (.userinfo, _): return try await userInfoEndpoint(request)
            case (.ssfConfiguration, .get), (.riscConfiguration, .get): return Self.json(transmitterConfiguration())
            case (.streams, _), (.streamStatus, .get), (.streamVerification, .post), (.eventPoll, .post):
                return try await transmitterEndpoint(endpoint, request)
            case (.authorization, _):
                return Self.json(
                    [
                        "error": .string("invalid_request"),
                        "error_description": .string("the authorization endpoint is the browser's: call approve(_:) with the URL"),
                    ],
                    status: 400)
            default:
                return TransportResponse(status: 405, headers: ["Content-Type": "text/plain"], body: Data("method not allowed".utf8))
            }
        } catch let refusal as OAuthRefusal {
            return refusal.response(dpopNonce: settings.requiresDPoPNonce ? dpopNonce : nil)
        } catch {
            return Self.json(
                ["error": .string("server_error"), "error_description": .string("the simulated provider failed: \(error)")], status: 500)
        }
    }

    // MARK: - Helpers

    /// A JSON answer that no cache keeps (RFC 6749 §5.1).
    static func json(_ members: [String: JSONValue], status: Int = 200) -> TransportResponse {
        let body = (try? JSONEncoder().encode(JSONValue.object(members))) ?? Data("{}".utf8)
        return TransportResponse(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"], body: body)
    }

    /// An endpoint's URL.
    nonisolated func url(_ endpoint: Endpoint) -> URL {
        issuer.appendingPathComponent(String(endpoint.path.dropFirst()))
    }

    /// A new random token or code: 256 bits, base64url.
    static func random() -> String { Base64URL.random(bytes: 32) }
}
