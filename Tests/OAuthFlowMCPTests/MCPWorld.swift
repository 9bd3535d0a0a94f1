import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

import OAuthFlowMCP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects values from concurrent closures.
final class Log<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []
    var values: [Value] { lock.withLock { stored } }
    func add(_ value: Value) { lock.withLock { stored.append(value) } }
}

/// A protected MCP server at https://mcp.example/mcp and its authorization server (a ``SimulatedProvider`` at
/// https://auth.example/tenant, with a registration endpoint), in process, behind one transport.
final class MCPWorld: @unchecked Sendable {
    static let endpoint = URL(string: "https://mcp.example/mcp")!
    static let issuer = URL(string: "https://auth.example/tenant")!
    static let metadataURL = URL(string: "https://mcp.example/.well-known/oauth-protected-resource/mcp")!

    let provider: SimulatedProvider
    /// Every request, as sent.
    let requests = Log<TransportRequest>()
    /// Every URL the simulated user signed in at (after the loopback's start address, for a pushed request).
    let authorizations = Log<URL>()
    private let lock = NSLock()
    private var _requiredScopes: [String] = ["mcp:read"]
    /// The protected-resource metadata served; change members to make it lie.
    var resourceMetadata: [String: JSONValue] = [
        "resource": .string("https://mcp.example/mcp"), "authorization_servers": .array([.string("https://auth.example/tenant")]),
        "scopes_supported": .array([.string("mcp:read"), .string("mcp:write")]),
    ]
    /// Members added to (or replacing those of) the authorization server's metadata.
    var metadataChanges: [String: JSONValue] = ["registration_endpoint": .string("https://auth.example/tenant/register")]
    /// Whether the 401 names the metadata (`resource_metadata`); without, the client probes the well-known paths.
    var namesMetadata = true
    /// Where the 401 says the metadata is, when not at its usual place.
    var namedMetadataURL = MCPWorld.metadataURL
    /// The metadata served at the root of the origin (`/.well-known/oauth-protected-resource`), when set.
    var rootResourceMetadata: [String: JSONValue]?
    /// Whether the metadata is served at its path-specific place (RFC 9728 §3.1), where the client looks first.
    var servesPathMetadata = true
    /// What the registration endpoint answers instead of registering, when set.
    var registrationAnswer: TransportResponse?
    /// The scopes a dynamically registered client may be granted (nil: any).
    var registeredScopes: [String]? = nil
    /// Whether the MCP server refuses every token, even one issued for it.
    var rejectsEveryToken = false
    /// How many more DPoP requests the MCP server answers 401 `use_dpop_nonce` (RFC 9449 §9), each with a new nonce.
    var nonceDemands = 0
    /// Whether those answers leave the `DPoP-Nonce` header out (a hostile server).
    var withholdsNonce = false

    var requiredScopes: [String] {
        get { lock.withLock { _requiredScopes } }
        set { lock.withLock { _requiredScopes = newValue } }
    }

    init() throws {
        var settings = SimulatedProvider.Settings()
        settings.accessTokenFormat = .jwt
        provider = try SimulatedProvider(issuer: Self.issuer, settings: settings)
    }

    var transport: any HTTPTransport { WorldTransport(world: self) }

    /// An authorizer of this world (and its user, who approves at once), keeping sessions and registrations in the stores
    /// given; `change` adjusts its configuration.
    func authorizer(
        store: any TokenStore, registrations: any ClientRegistrationStore, _ change: (inout MCPAuthorizer.Configuration) -> Void = { _ in }
    ) -> (MCPAuthorizer, ApprovingUser) {
        let user = browser
        var configuration = MCPAuthorizer.Configuration(
            store: store, browser: user, environment: environment, registrations: registrations, clientName: "MCP tests")
        configuration.signInTimeout = .seconds(90)  // against a hang, far above a sign-in on a loaded machine
        change(&configuration)
        return (MCPAuthorizer(configuration), user)
    }

    var environment: OAuthEnvironment { OAuthEnvironment(transport: transport, clock: provider.clock, nonces: provider.nonces) }

    /// A browser whose user approves at once.
    var browser: ApprovingUser { ApprovingUser(world: self) }

    /// The requests to `path` on `host`.
    func requests(to host: String, _ path: String) -> [TransportRequest] {
        requests.values.filter { $0.url.host == host && $0.url.path == path }
    }

    /// The form of a request's body.
    static func form(_ request: TransportRequest) -> [(String, String)] {
        FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
    }

    /// The authorization requests' parameters: the pushed request's body, or the URL's query.
    func authorizationParameters() -> [[(String, String)]] {
        let pushed = requests(to: "auth.example", "/tenant/par").map(Self.form)
        if !pushed.isEmpty { return pushed }
        return authorizations.values.map { url in
            (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        }
    }

    func answer(_ request: TransportRequest) async throws -> TransportResponse {
        requests.add(request)
        switch (request.url.host ?? "", request.url.path) {
        case ("mcp.example", "/mcp"):
            return mcpAnswer(request)
        case ("mcp.example", MCPWorld.metadataURL.path):
            return servesPathMetadata ? Self.json(resourceMetadata) : TransportResponse(status: 404)
        case ("mcp.example", "/.well-known/oauth-protected-resource") where rootResourceMetadata != nil:
            return Self.json(rootResourceMetadata ?? [:])
        case ("auth.example", "/.well-known/oauth-authorization-server/tenant"):
            let answer = try await provider.transport.send(request)
            guard case var .object(members) = try JSONDecoder().decode(JSONValue.self, from: answer.body) else { return answer }
            members.merge(metadataChanges) { _, changed in changed }
            return Self.json(members)
        case ("auth.example", "/tenant/register"):
            if let registrationAnswer { return registrationAnswer }
            return await register(request)
        case ("auth.example", _):
            return try await provider.transport.send(request)
        default:
            throw TransportError(.unreachable, url: request.url, message: "nothing answers there in this test")
        }
    }

    /// Registers a public client with the redirect URIs asked for (RFC 7591 §3.2.1).
    private func register(_ request: TransportRequest) async -> TransportResponse {
        guard case let .object(members)? = try? JSONDecoder().decode(JSONValue.self, from: request.body ?? Data()),
            case let .array(uris)? = members["redirect_uris"]
        else { return Self.json(["error": .string("invalid_client_metadata")], status: 400) }
        let id = "registered-\(requests(to: "auth.example", "/tenant/register").count)"
        let redirects = uris.compactMap { $0.stringValue.flatMap(URL.init(string:)) }
        await provider.register(.public(id: id, redirectURIs: redirects, scopes: registeredScopes))
        return Self.json(
            [
                "client_id": .string(id), "redirect_uris": .array(redirects.map { .string($0.absoluteString) }),
                "token_endpoint_auth_method": .string("none"),
            ], status: 201)
    }

    /// The MCP server: a JSON-RPC answer for a token issued for it with the scopes it requires, else 401 or 403 (RFC 6750 §3).
    private func mcpAnswer(_ request: TransportRequest) -> TransportResponse {
        let metadata = namesMetadata ? ", resource_metadata=\"\(namedMetadataURL.absoluteString)\"" : ""
        let required = requiredScopes
        if request.headers["Authorization"]?.hasPrefix("DPoP ") == true, nonceDemands > 0 {
            nonceDemands -= 1
            var headers = ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\", algs=\"ES256\"\(metadata)"]
            if !withholdsNonce { headers["DPoP-Nonce"] = "resource-nonce-\(nonceDemands)" }
            return TransportResponse(status: 401, headers: headers)
        }
        guard let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") || authorization.hasPrefix("DPoP "),
            let claims = Self.claims(of: String(authorization.drop { $0 != " " }.dropFirst())),
            Self.audience(claims).contains(MCPWorld.endpoint.absoluteString), !rejectsEveryToken
        else {
            let scope = required.isEmpty ? "" : ", scope=\"\(required.joined(separator: " "))\""
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": "Bearer realm=\"mcp\"\(scope)\(metadata)"])
        }
        let granted = (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard required.allSatisfy(granted.contains) else {
            return TransportResponse(
                status: 403,
                headers: ["WWW-Authenticate": "Bearer error=\"insufficient_scope\", scope=\"\(required.joined(separator: " "))\"\(metadata)"])
        }
        return Self.json(["jsonrpc": .string("2.0"), "id": .number(1), "result": .object([:])])
    }

    static func claims(of jwt: String) -> [String: JSONValue]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            case let .object(claims)? = try? JSONDecoder().decode(JSONValue.self, from: payload)
        else { return nil }
        return claims
    }

    static func audience(_ claims: [String: JSONValue]) -> [String] {
        switch claims["aud"] {
        case let .string(one)?: return [one]
        case let .array(many)?: return many.compactMap(\.stringValue)
        default: return []
        }
    }

    static func json(_ members: [String: JSONValue], status: Int = 200) -> TransportResponse {
        TransportResponse(
            status: status, headers: ["Content-Type": "application/json"], body: (try? JSONEncoder().encode(JSONValue.object(members))) ?? Data())
    }

    /// What `HTTPClientTransport.send` does with an authorizer: the header, the request, and on a 401 or 403 the
    /// challenge, again while the authorizer handles it, up to its attempts.
    ///
    /// - Parameter proofs: Whether each request is handed to the authorizer for its DPoP proof, as its `requestModifier` does.
    func call(_ authorizer: MCPAuthorizer, method: String = "tools/call", proofs: Bool = false) async throws -> TransportResponse {
        try? await authorizer.prepareAuthorization(for: Self.endpoint, session: URLSession.shared)
        var attempts = 0
        while true {
            var headers = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
            if let value = authorizer.authorizationHeader(for: Self.endpoint) { headers["Authorization"] = value }
            if proofs, let proof = authorizer.authorization.dpopProof(method: "POST", url: Self.endpoint, authorization: headers["Authorization"]) {
                headers["DPoP"] = proof
            }
            let body = Data("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\(method)\"}".utf8)
            let response = try await transport.send(TransportRequest(method: .post, url: Self.endpoint, headers: headers, body: body))
            guard response.status == 401 || response.status == 403 else { return response }
            let handled = try await authorizer.handleChallenge(
                statusCode: response.status, headers: response.headers, endpoint: Self.endpoint, operationKey: method, session: URLSession.shared)
            attempts += 1
            guard handled, attempts < authorizer.maxAuthorizationAttempts else { return response }
        }
    }
}

/// Sends each request to its world.
struct WorldTransport: HTTPTransport {
    let world: MCPWorld
    func send(_ request: TransportRequest) async throws -> TransportResponse { try await world.answer(request) }
}

/// The user at the browser: follows the loopback's start address for a pushed request, approves at the simulated
/// authorization server, and lets the browser go back to the loopback redirect (TestBrowser's requests).
struct ApprovingUser: BrowserOpener {
    let provider: SimulatedProvider
    /// Where the authorization requests the user approved are logged, when a test reads them.
    let authorizations: Log<URL>?
    let opened = Log<URL>()

    init(world: MCPWorld) { (provider, authorizations) = (world.provider, world.authorizations) }
    init(provider: SimulatedProvider) { (self.provider, authorizations) = (provider, nil) }

    func open(_ url: URL) async throws {
        opened.add(url)
        let (provider, authorizations) = (self.provider, self.authorizations)
        Task {
            var target = url
            if url.host == "127.0.0.1", let answer = await TestBrowser.get(url), let location = answer.header("Location").flatMap(URL.init(string:)) {
                target = location
            }
            authorizations?.add(target)
            let callback: URL
            do {
                callback = try await provider.approve(target)
            } catch {
                Issue.record("the authorization server cannot redirect the user: \(error)")
                return
            }
            _ = await TestBrowser.get(callback)
        }
    }
}
